#!/usr/bin/python3
"""floors.py - the build enforces the floors of docs/architecture.md (issue 14): every source file of
a floor is compiled with the include folders of its own floor and of the floors below it only
(read from the build's compile_commands.json), so no lower floor can include a higher one's
header; and no source file of a floor includes a header that exists only in a higher floor.
usage: floors.py BUILD_ROOT SOURCE_ROOT
"""
import json
import os
import re
import shlex
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


def main():
    build, src = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    db = json.load(open(os.path.join(build, "compile_commands.json")))
    failures, checked = [], 0
    headers = {}  # header name -> floor that has it
    for floor in FLOORS:
        for f in os.listdir(os.path.join(src, floor)):
            if f.endswith((".h", ".def")):
                headers.setdefault(f, floor)
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
    for x in failures:
        print("FAIL " + x)
    print(f"{checked} floor sources checked, {len(failures)} failures")
    return 1 if failures or checked < 100 else 0


if __name__ == "__main__":
    sys.exit(main())
