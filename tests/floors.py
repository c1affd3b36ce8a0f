#!/usr/bin/python3
"""floors.py - the build enforces the floors of docs/architecture.md (issue 14): every source file of
a floor is compiled with the include folders of its own floor and of the floors below it only
(read from the build's compile_commands.json), so no lower floor can include a higher one's
header; no source file of a floor includes a header that exists only in a higher floor; and a
floor reaches a lower one only through that floor's one public header (PUBLIC; lib/core's is
core.h, its X-macro tables aside); no global symbol is defined in two floors' libraries (a clash that static
linking would resolve by taking whichever archive comes first); every global symbol of a floor's
library carries one of its folder's prefixes (PREFIXES); and every runtime kernel family of
runtime/kernels.def lives in runtime/k_OPFAMILY.c or k_OPFAMILY_PART.c, OPFAMILY being the
lib/core/ops.def family of each op it runs (a neutral file says "shared by op families: A, B").
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


# the one header each floor offers the floors above it (lib/core: core.h, the IR's vocabulary, plus its
# X-macro tables ops.def, op_families.def, ... for the floors that expand them)
PUBLIC = {"lib/core": "core.h", "lib/eval": "eval.h", "lib/webnn": "webnn.h", "lib/onnx": "onnx.h", "passes": "pipeline_plan.h",
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
        if owner == "lib/core" and h.endswith(".def"):
            continue
        if owner and owner != floor and owner in PUBLIC and os.path.basename(h) != PUBLIC[owner]:
            out.append(f"{path} ({floor}) includes {h}: {owner} offers {PUBLIC[owner]} to the floors above")
    return out


LIB_OF = {"lib/core": "libwebnnc_core.a", "lib/eval": "libwebnnc_eval.a", "lib/webnn": "libwebnnc_webnn.a",
          "lib/onnx": "libwebnnc_onnx.a", "passes": "libwebnnc_passes.a", "lib/convert": "libwebnnc_convert.a",
          "runtime": "runtime/libwebnnc_runtime.a", "lib/run": "lib/run/libwebnnc_run.a",
          "lib/tokenizer": "lib/tokenizer/libwebnnc_tokenizer.a"}
LIBS = list(LIB_OF.values())


# folder -> the prefixes of its global symbols (docs/architecture.md, "Prefixes").  lib/core's are its
# headers' nouns, the IR vocabulary every floor speaks.
PREFIXES = {
    "lib/core": ["arena_", "clamp_", "diag_", "dim_", "dtype_", "file_map_", "graph_", "infer_", "input_", "json_",
                 "name_", "nameset_", "node_", "op_", "progress_", "value_",
                 "fused_", "gate_", "gbq_", "gqa_", "nbits_", "rotary_", "skip_rms_norm_"],  # ext_ops.h, fused_ops.h, gqa.h
    "lib/eval": ["eval_", "ten_"],
    "lib/webnn": ["webnn_", "wn_"],
    "lib/onnx": ["onnx_"],
    "passes": ["pass_", "fuse_", "pipeline_"],
    "lib/convert": ["convert_"],
    "runtime": ["wnrt_", "vk_", "vkdev_", "plan_", "kernel_", "kfam_", "kx_", "kc_", "kcheck_", "kshape_", "kstrided_",
                "kmatvec_", "ext_"],
    "lib/run": ["run_", "decoder_"],
    "lib/tokenizer": ["tokenizer_", "tk_"],
}
# symbols that keep another prefix for now, with the reason
PREFIX_EXCEPTIONS: dict = {}


def lib_symbols(build, lib):
    """(symbol, object) of the global symbols a library defines."""
    r = subprocess.run(["nm", "-A", "--defined-only", "-g", os.path.join(build, lib)],
                       capture_output=True, text=True, check=True)
    out = []
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":  # ARCHIVE:MEMBER:VALUE TYPE NAME
            out.append((parts[2], os.path.basename(parts[0].split(":")[1])))
    return out


def prefix_misses(build):
    """Global symbols without a prefix of their folder, as failure lines."""
    out = []
    for folder, lib in LIB_OF.items():
        for sym, obj in lib_symbols(build, lib):
            if sym.startswith("__"):  # the implementation's (sanitizers: __odr_asan.NAME, __asan_*)
                continue
            if not sym.startswith(tuple(PREFIXES[folder])) and sym not in PREFIX_EXCEPTIONS:
                out.append(f"global {sym} of {obj} ({folder}) lacks a prefix of its folder: {' '.join(PREFIXES[folder])}")
    return out


def kernel_layout_misses(build, src):
    """Ops whose kernel family lives in a file of another op family, as failure lines."""
    fam_of = dict(re.findall(r"^OP\((\w+),\s*(\w+)", open(os.path.join(src, "lib/core/ops.def")).read(), re.M))
    families = set(re.findall(r"^FAMILY\((\w+)\)", open(os.path.join(src, "lib/core/op_families.def")).read(), re.M))
    kernels = re.findall(r"^KERNEL\((\w+),\s*(\w+)\)", open(os.path.join(src, "runtime/kernels.def")).read(), re.M)
    home = {sym[len("kfam_"):]: obj[:-len(".o")] for sym, obj in lib_symbols(build, "runtime/libwebnnc_runtime.a")
            if sym.startswith("kfam_")}
    out = []
    for op, kfam in kernels:
        fam, f = fam_of.get(op), home.get(kfam)
        if f is None:
            out.append(f"op {op}: kernel family {kfam} is defined in no runtime object")
            continue
        rest = f[len("k_"):-len(".c")] if f.startswith("k_") else ""
        ffam = next((x for x in sorted(families, key=len, reverse=True) if rest == x or rest.startswith(x + "_")), None)
        if ffam is not None:
            if ffam != fam:
                out.append(f"op {op} of op family {fam}: its kernel family {kfam} lives in runtime/{f}, a file of "
                           f"op family {ffam}")
            continue
        head = open(os.path.join(src, "runtime", f)).read(2000)
        m = re.search(r"shared by op\s+families:\s*([a-z_]+(?:,\s*[a-z_]+)*)", head)
        if not m or fam not in re.split(r",\s*", m.group(1)):
            out.append(f"op {op} of op family {fam}: its kernel family {kfam} lives in runtime/{f}, neither "
                       f"k_{fam}.c / k_{fam}_PART.c nor a file \"shared by op families: ..., {fam}\"")
    return out


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
    failures += prefix_misses(build)
    failures += kernel_layout_misses(build, src)
    for x in failures:
        print("FAIL " + x)
    print(f"{checked} floor sources checked, {len(failures)} failures")
    return 1 if failures or checked < 100 else 0


if __name__ == "__main__":
    sys.exit(main())
