#!/usr/bin/python3
"""onnx_node_tests.py - ONNX backend node tests through `webnnc convert` and `webnnc run`.

Generates ONNX's ~920 single-op backend test models from Debian's python3-onnx (with the numpy
shim shown in ../shared/models/README.md) into the build folder, converts each with webnnc, and
classifies it:
  in-scope      every op type is in `webnnc ops --onnx`: must convert (exit 0), unless listed with a
                reason in onnx_node_expected_failures.txt (then it must fail cleanly, and a listed case
                that converts is reported so the list stays true)
  out-of-scope  must exit 2 with exactly one stderr line `webnnc: error: ...`
Every in-scope case that converts is then run on the Vulkan runtime (lavapipe when no GPU) on each
of its test_data_set_N folders (inputs and reference outputs from ONNX's own reference code, in the
same folder) and compared with ONNX's backend-test tolerances (onnx/backend/test/loader: rtol 1e-3,
atol 1e-7; numpy assert_allclose semantics |got - want| <= atol + rtol * |want|, NaN == NaN); the
output data types must be the reference's (bool is WebNN uint8).  A run that does not pass is
classified as missing kernel, numeric mismatch or runtime error and must be listed with that class
and a reason in onnx_node_run_expected_failures.txt (a listed case that passes, or fails another
way, is reported so the list stays true).
Anything else (crash, sanitizer abort, timeout, exit 1 from convert, several error lines) fails.
Symbolic input dims are frozen with --fix NAME=N from the test's input_N.pb shapes.  Counts and the
failing list with reasons are printed and written to BUILD/onnx_node_tests.json.
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

# onnx/backend/test/loader/__init__.py: the defaults every node test uses.
RTOL, ATOL = 1e-3, 1e-7
# Per-case tolerance overrides: NAME -> (atol, rtol, reason).  None so far.
TOLERANCE = {}
RUN_CLASSES = ("missing kernel", "numeric mismatch", "runtime error")
# ONNX TensorProto data types -> the WebNN data type a converted graph must produce.
WEBNN_DTYPE = {onnx.TensorProto.FLOAT: "float32", onnx.TensorProto.FLOAT16: "float16",
               onnx.TensorProto.INT32: "int32", onnx.TensorProto.UINT32: "uint32",
               onnx.TensorProto.INT64: "int64", onnx.TensorProto.UINT64: "uint64",
               onnx.TensorProto.INT8: "int8", onnx.TensorProto.UINT8: "uint8", onnx.TensorProto.BOOL: "uint8"}


def generate(out_dir):
    node_dir = os.path.join(out_dir, "node")
    stamp = os.path.join(out_dir, "onnx-" + onnx.__version__ + ".stamp")
    if not os.path.exists(stamp):
        subprocess.run([sys.executable, "-c", SHIM, out_dir], check=True, stdout=subprocess.DEVNULL)
        open(stamp, "w").close()
    return node_dir


def load_list(path, first_word_is_class=False):
    """NAME REASON lines (or NAME CLASS REASON, CLASS one of RUN_CLASSES with '-' for ' ')."""
    entries = {}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, reason = line.partition(" ")
            reason = reason.strip()
            if first_word_is_class:
                cls, _, reason = reason.partition(" ")
                cls = cls.replace("-", " ")
                if cls not in RUN_CLASSES:
                    sys.exit(f"{path}:{lineno}: {name}: class must be one of "
                             + ", ".join(c.replace(' ', '-') for c in RUN_CLASSES))
                reason = (cls, reason.strip())
            if not (reason[1] if first_word_is_class else reason):
                sys.exit(f"{path}:{lineno}: {name} needs a reason")
            if name in entries:
                sys.exit(f"{path}:{lineno}: {name} is listed twice")
            entries[name] = reason
    return entries


def op_types(graph, out):
    """Domain-qualified op types of a graph and its subgraphs."""
    for node in graph.node:
        out.add(node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}")
        for attr in node.attribute:
            for g in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                op_types(g, out)
    return out


def reference_dtypes(data_dir):
    """{output tensor name: WebNN data type (or the ONNX type number if none)} of output_N.pb files."""
    out = {}
    for f in sorted(os.listdir(data_dir)):
        if f.startswith("output_") and f.endswith(".pb"):
            t = onnx.TensorProto()
            with open(os.path.join(data_dir, f), "rb") as fh:
                t.ParseFromString(fh.read())
            out[t.name] = WEBNN_DTYPE.get(t.data_type, f"onnx type {t.data_type}")
    return out


def run_data_sets(case_dir, outdir, name):
    """Runs every test_data_set_N of a converted case; returns (class, detail) of the first that
    does not pass, or ("passed", summary)."""
    atol, rtol = TOLERANCE.get(name, (ATOL, RTOL, None))[:2]
    sets = sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_"))
    if not sets:
        return "runtime error", "no test_data_set folder"
    worst = 0.0
    for ds in sets:
        data_dir = os.path.join(case_dir, ds)
        r = e2e.run_graph(outdir, data_dir, data_dir, atol, rtol, timeout=120)
        cls = e2e.classify_run(r)
        rows = e2e.parity_lines(r.stdout)
        if cls == "numeric mismatch":
            bad = "; ".join(row["text"] for row in rows if not row["ok"])
            return cls, f"{ds}: {bad or r.describe()}"
        if cls != "passed":
            return cls, f"{ds}: {r.describe()}"
        want = reference_dtypes(data_dir)
        if len(rows) != len(want) or not all(row["ok"] for row in rows):
            return "runtime error", f"{ds}: exit 0 but {len(rows)} parity lines for {len(want)} outputs"
        wrong = [f"{row['name']} is {row['dtype']}, the reference {want.get(row['name'])}"
                 for row in rows if want.get(row["name"]) != row["dtype"]]
        if wrong:
            return "numeric mismatch", f"{ds}: data type: " + "; ".join(wrong)
        worst = max([worst] + [row["max_abs"] for row in rows if row["max_abs"] is not None])
    return "passed", f"{len(sets)} data set(s), max_abs {worst:.3g}"


def run_case(case_dir, supported, tmp, can_run):
    name = os.path.basename(case_dir)
    model_path = os.path.join(case_dir, "model.onnx")
    model = onnx.load(model_path, load_external_data=False)
    ops = op_types(model.graph, set())
    in_scope = ops <= supported
    shapes = e2e.test_data_shapes(os.path.join(case_dir, "test_data_set_0"))
    outdir = os.path.join(tmp, name)
    r = e2e.convert(model_path, outdir, e2e.dim_args(model.graph, shapes))
    run = None
    if in_scope and r.returncode == 0 and can_run:
        run = run_data_sets(case_dir, outdir, name)
        subprocess.run(["rm", "-rf", outdir], check=False)
    return name, in_scope, sorted(ops - supported), r, run


def main():
    build = e2e.build_root()
    node_dir = generate(os.path.join(build, "onnx-node-tests"))
    ops_run = e2e.run_webnnc(["ops", "--onnx"])
    if ops_run.returncode != 0 or not ops_run.stdout.strip():
        print(f"FAIL: `webnnc ops --onnx` did not list ops ({ops_run.describe()})")
        return 1
    device = e2e.use_working_vulkan_device()
    print(f"Vulkan device: {device or 'none'}" + (f" (VK_ICD_FILENAMES={os.environ['VK_ICD_FILENAMES']})"
                                                 if "VK_ICD_FILENAMES" in os.environ else ""), flush=True)
    supported = set(ops_run.stdout.split())
    expected = load_list(os.path.join(HERE, "onnx_node_expected_failures.txt"))
    expected_run = load_list(os.path.join(HERE, "onnx_node_run_expected_failures.txt"), True)
    cases = sorted(os.path.join(node_dir, d) for d in os.listdir(node_dir))
    counts = dict(total=len(cases), in_scope=0, in_scope_converted=0, in_scope_expected_failures=0,
                  out_of_scope=0, out_of_scope_clean=0, ran=0, passed=0, failed=0,
                  run_failures={c: 0 for c in RUN_CLASSES}, run_expected_failures=0)
    failures, run_failures = [], []
    with tempfile.TemporaryDirectory(prefix="webnnc-node-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, in_scope, missing, r, run in pool.map(lambda c: run_case(c, supported, tmp, device), cases):
            if r.crashed():
                failures.append(f"{name}: convert crashed, {r.describe()}")
            elif in_scope:
                counts["in_scope"] += 1
                if name in expected:
                    if r.is_clean_error():
                        counts["in_scope_expected_failures"] += 1
                        continue
                    why = "listed as expected failure but converted" if r.returncode == 0 else r.describe()
                    failures.append(f"{name} (expected failure: {expected[name]}): {why}")
                elif r.returncode != 0:
                    failures.append(f"{name}: in scope, conversion failure: {r.describe()}")
                else:
                    counts["in_scope_converted"] += 1
                    if run is None:
                        continue
                    counts["ran"] += 1
                    cls, detail = run
                    listed = expected_run.get(name)
                    if cls == "passed":
                        counts["passed"] += 1
                        if listed:
                            failures.append(f"{name}: listed in onnx_node_run_expected_failures.txt "
                                            f"({listed[0]}) but passes ({detail}): delete its line")
                        continue
                    if cls == "crash":
                        failures.append(f"{name}: webnnc run crashed: {detail}")
                        continue
                    counts["run_failures"][cls] += 1
                    run_failures.append(dict(name=name, cls=cls, detail=detail,
                                             reason=listed[1] if listed and listed[0] == cls else None))
                    if listed and listed[0] == cls:
                        counts["run_expected_failures"] += 1
                    elif listed:
                        failures.append(f"{name}: listed as {listed[0]} but now {cls}: {detail}")
                    else:
                        failures.append(f"{name}: {cls}: {detail}")
            else:
                counts["out_of_scope"] += 1
                if r.is_clean_error():
                    counts["out_of_scope_clean"] += 1
                    continue
                failures.append(f"{name}: out of scope ({', '.join(missing)}), {r.describe()}")
    names = {os.path.basename(c) for c in cases}
    for listed, file in ((expected, "onnx_node_expected_failures.txt"),
                         (expected_run, "onnx_node_run_expected_failures.txt")):
        failures += [f"{n}: listed in {file} but no such test" for n in sorted(set(listed) - names)]
    if device is None:
        failures.append("no Vulkan device: the converted graphs were not run")
    counts["failed"] = len(failures)
    for rf in sorted(run_failures, key=lambda x: (x["cls"], x["name"])):
        print(f"{rf['cls']:16s} {rf['name']}: {rf['detail']}" + (f"  [listed: {rf['reason']}]" if rf["reason"] else ""))
    for f in failures:
        print("FAIL", f)
    pct = 100.0 * counts["passed"] / counts["in_scope"] if counts["in_scope"] else 0.0
    counts["passed_percent_of_in_scope"] = round(pct, 1)
    by_class = ", ".join(f"{n} {c}" for c, n in counts["run_failures"].items())
    print(f"{counts['total']} node tests: {counts['in_scope']} in scope ({counts['in_scope_converted']} converted, "
          f"{counts['in_scope_expected_failures']} expected conversion failures), {counts['out_of_scope']} out of scope "
          f"({counts['out_of_scope_clean']} clean)")
    print(f"run: {counts['ran']} ran, {counts['passed']} passed ({pct:.1f}% of in scope), {by_class} "
          f"({counts['run_expected_failures']} of them listed); {counts['failed']} suite failures")
    with open(os.path.join(build, "onnx_node_tests.json"), "w") as f:
        json.dump(dict(counts=counts, rtol=RTOL, atol=ATOL, device=device,
                       run_failures=sorted(run_failures, key=lambda x: x["name"]), suite_failures=failures),
                  f, indent=2, sort_keys=True)
        f.write("\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
