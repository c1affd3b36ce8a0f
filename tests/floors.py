#!/usr/bin/python3
"""floors.py - the build enforces the floors of docs/architecture.md (issue 14): every source file of
a floor is compiled with the include folders of its own floor and of the floors below it only
(read from the build's compile_commands.json), so no lower floor can include a higher one's
header; no source file of a floor includes a header that exists only in a higher floor; and a
floor reaches a lower one (lib/core aside: the IR's vocabulary) only through that floor's one
public header (PUBLIC); no global symbol is defined in two floors' libraries (a clash that static
linking would resolve by taking whichever archive comes first).
usage: floors.py BUILD_ROOT SOURCE_ROOT
"""
import json
import os
import re
import shlex
import subprocess
import sys

# floor -> the source folders it may see (itself first)
FLOORS = {
    "lib/core": ["lib/core"],
    "lib/eval": ["lib/eval", "lib/core"],
    "lib/webnn": ["lib/webnn", "lib/core"],
    "lib/tokenizer": ["lib/tokenizer", "lib/core"],
    "lib/onnx": ["lib/onnx", "lib/eval", "lib/webnn", "lib/core", "proto"],
    "passes": ["passes", "lib/eval", "lib/webnn", "lib/core"],
    "lib/convert": ["lib/convert", "passes", "lib/onnx", "lib/eval", "lib/webnn", "lib/core", "proto"],
    "runtime": ["runtime", "runtime/shaders", "lib/webnn", "lib/core"],
    "lib/run": ["lib/run", "runtime", "lib/convert", "passes", "lib/onnx", "lib/eval", "lib/webnn", "lib/core", "proto"],
}


# the one header each floor offers the floors above it (lib/core: every header, the IR's vocabulary)
PUBLIC = {"lib/eval": "eval.h", "lib/webnn": "webnn.h", "lib/onnx": "onnx.h", "passes": "pipeline_plan.h",
          "lib/convert": "convert.h", "runtime": "webnnc_runtime.h", "lib/run": "run.h", "lib/tokenizer": "tokenizer.h"}
ABOVE = ["lib/api", "cli"]  # the top floors: they see everything, through the public headers too


def include_folders(entry, build, src):
    """The source-relative folders of the entry's -I options (build-tree twins mapped to the source)."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    out = set()
    for i, a in enumerate(args):
        path = a[2:] if a.startswith("-I") and len(a) > 2 else args[i + 1] if a == "-I" else None
        if not path or path.startswith("/usr"):
            continue
        full = os.path.normpath(os.path.join(entry["directory"], path))
        for root in (build, src):
            rel = os.path.relpath(full, root)
            if not rel.startswith(".."):
                out.add(rel)
                break
    return out


def public_header_misses(path, floor, headers):
    """Includes of another floor's header other than its public one, as failure lines."""
    out = []
    for h in re.findall(r'#include "([^"]+)"', open(path).read()):
        owner = headers.get(os.path.basename(h))
        if owner and owner != floor and owner in PUBLIC and os.path.basename(h) != PUBLIC[owner]:
            out.append(f"{path} ({floor}) includes {h}: {owner} offers {PUBLIC[owner]} to the floors above")
    return out


LIBS = ["libwebnnc_core.a", "libwebnnc_eval.a", "libwebnnc_webnn.a", "libwebnnc_onnx.a", "libwebnnc_passes.a",
        "libwebnnc_convert.a", "runtime/libwebnnc_runtime.a", "lib/run/libwebnnc_run.a",
        "lib/tokenizer/libwebnnc_tokenizer.a"]


def symbol_clashes(build):
    """Global symbols defined by more than one floor library, as failure lines."""
    where, out = {}, []
    for lib in LIBS:
        path = os.path.join(build, lib)
        if not os.path.exists(path):
            out.append(f"{lib}: not built")
            continue
        r = subprocess.run(["nm", "--defined-only", "-g", path], capture_output=True, text=True, check=True)
        for line in r.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                if parts[2] in where and where[parts[2]] != lib:
                    out.append(f"global {parts[2]} is defined in {where[parts[2]]} and {lib}")
                where.setdefault(parts[2], lib)
    return out


def main():
    build, src = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    db = json.load(open(os.path.join(build, "compile_commands.json")))
    failures, checked = [], 0
    headers = {}  # header name -> floor that has it
    for floor in FLOORS:
        for f in os.listdir(os.path.join(src, floor)):
            if f.endswith((".h", ".def")):
                headers.setdefault(f, floor)
    for folder in list(FLOORS) + ABOVE:  # the public-header rule, on sources and headers
        for fn in sorted(os.listdir(os.path.join(src, folder))):
            if fn.endswith((".c", ".h")):
                failures += public_header_misses(os.path.join(src, folder, fn), folder, headers)
    for entry in db:
        f = os.path.relpath(os.path.realpath(os.path.join(entry["directory"], entry["file"])), src)
        floor = next((fl for fl in sorted(FLOORS, key=len, reverse=True) if f.startswith(fl + "/")), None)
        if floor is None or f.startswith("runtime/shaders") or "/" in f[len(floor) + 1:]:
            continue
        checked += 1
        allowed = set(FLOORS[floor])
        extra = {d for d in include_folders(entry, build, src) - allowed
                 if not d.endswith(".p") and not any(d == a or d.startswith(a + "/") for a in allowed)}
        if extra:
            failures.append(f"{f} ({floor}) is compiled with include folders of other floors: {sorted(extra)}")
        if f.endswith(".c"):
            for h in re.findall(r'#include "([^"]+)"', open(os.path.join(src, f)).read()):
                owner = headers.get(os.path.basename(h))
                if owner and owner not in allowed:
                    failures.append(f"{f} ({floor}) includes {h} of {owner}")
    failures += symbol_clashes(build)
    for x in failures:
        print("FAIL " + x)
    print(f"{checked} floor sources checked, {len(failures)} failures")
    return 1 if failures or checked < 100 else 0


if __name__ == "__main__":
    sys.exit(main())
