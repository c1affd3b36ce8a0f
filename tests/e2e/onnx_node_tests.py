#!/usr/bin/python3
"""onnx_node_tests.py - ONNX backend node tests through `webnnc convert`.

Generates ONNX's ~920 single-op backend test models from Debian's python3-onnx (with the numpy
shim shown in ../shared/models/README.md) into the build folder, converts each with webnnc, and
classifies it:
  in-scope      every op type is in `webnnc ops --onnx`: must convert (exit 0), unless listed with a
                reason in onnx_node_expected_failures.txt (then it must fail cleanly, and a listed case
                that converts is reported so the list stays true)
  out-of-scope  must exit 2 with exactly one stderr line `webnnc: error: ...`
Anything else (crash, sanitizer abort, exit 1, several lines) fails.  Symbolic input dims are
frozen with --fix NAME=N from the test's input_N.pb shapes.  Counts are printed and written to
BUILD/onnx_node_tests.json.  (Running the converted graphs and comparing outputs comes later.)
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = ("import numpy as np, sys; np.float=float; np.int=int; np.bool=bool; np.object=object; "
        "np.complex=complex; sys.argv=['x','generate-data','-o',sys.argv[1]]; "
        "from onnx.backend.test import cmd_tools; cmd_tools.main()")


def generate(out_dir):
    node_dir = os.path.join(out_dir, "node")
    stamp = os.path.join(out_dir, "onnx-" + onnx.__version__ + ".stamp")
    if not os.path.exists(stamp):
        subprocess.run([sys.executable, "-c", SHIM, out_dir], check=True, stdout=subprocess.DEVNULL)
        open(stamp, "w").close()
    return node_dir


def load_expected_failures(path):
    expected = {}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, reason = line.partition(" ")
            if not reason.strip():
                sys.exit(f"{path}:{lineno}: {name} needs a reason")
            expected[name] = reason.strip()
    return expected


def op_types(graph, out):
    """Domain-qualified op types of a graph and its subgraphs."""
    for node in graph.node:
        out.add(node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}")
        for attr in node.attribute:
            for g in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                op_types(g, out)
    return out


def run_case(case_dir, supported, tmp):
    name = os.path.basename(case_dir)
    model_path = os.path.join(case_dir, "model.onnx")
    model = onnx.load(model_path, load_external_data=False)
    ops = op_types(model.graph, set())
    in_scope = ops <= supported
    shapes = e2e.test_data_shapes(os.path.join(case_dir, "test_data_set_0"))
    r = e2e.convert(model_path, os.path.join(tmp, name), e2e.dim_args(model.graph, shapes))
    return name, in_scope, sorted(ops - supported), r


def main():
    build = e2e.build_root()
    node_dir = generate(os.path.join(build, "onnx-node-tests"))
    ops_run = e2e.run_webnnc(["ops", "--onnx"])
    if ops_run.returncode != 0 or not ops_run.stdout.strip():
        print(f"FAIL: `webnnc ops --onnx` did not list ops ({ops_run.describe()})")
        return 1
    supported = set(ops_run.stdout.split())
    expected = load_expected_failures(os.path.join(HERE, "onnx_node_expected_failures.txt"))
    cases = sorted(os.path.join(node_dir, d) for d in os.listdir(node_dir))
    counts = dict(total=len(cases), in_scope=0, in_scope_converted=0, in_scope_expected_failures=0,
                  out_of_scope=0, out_of_scope_clean=0, failed=0)
    failures = []
    with tempfile.TemporaryDirectory(prefix="webnnc-node-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, in_scope, missing, r in pool.map(lambda c: run_case(c, supported, tmp), cases):
            if in_scope:
                counts["in_scope"] += 1
                if name in expected:
                    if r.is_clean_error():
                        counts["in_scope_expected_failures"] += 1
                        continue
                    why = "listed as expected failure but converted" if r.returncode == 0 else r.describe()
                    failures.append(f"{name} (expected failure: {expected[name]}): {why}")
                elif r.returncode == 0:
                    counts["in_scope_converted"] += 1
                    continue
                else:
                    failures.append(f"{name}: in scope, {r.describe()}")
            else:
                counts["out_of_scope"] += 1
                if r.is_clean_error():
                    counts["out_of_scope_clean"] += 1
                    continue
                failures.append(f"{name}: out of scope ({', '.join(missing)}), {r.describe()}")
    stale = sorted(set(expected) - {os.path.basename(c) for c in cases})
    failures += [f"{n}: listed in onnx_node_expected_failures.txt but no such test" for n in stale]
    counts["failed"] = len(failures)
    for f in failures:
        print("FAIL", f)
    print(f"{counts['total']} node tests: {counts['in_scope']} in scope ({counts['in_scope_converted']} converted, "
          f"{counts['in_scope_expected_failures']} expected failures), {counts['out_of_scope']} out of scope "
          f"({counts['out_of_scope_clean']} clean), {counts['failed']} failed")
    with open(os.path.join(build, "onnx_node_tests.json"), "w") as f:
        json.dump(counts, f, indent=2, sort_keys=True)
        f.write("\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
