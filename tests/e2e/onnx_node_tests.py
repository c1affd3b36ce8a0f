#!/usr/bin/python3
"""onnx_node_tests.py - ONNX backend node tests through `webnnc convert` and `webnnc run`.

Generates ONNX's ~920 single-op backend test models from Debian's python3-onnx (with the numpy
shim shown in ../shared/models/README.md) into the build folder, converts each with webnnc, and
classifies it (converted with `--limits none`: the ONNX op semantics, not a browser's limits):
  in table      every op type is in `webnnc ops --onnx`; then either
    inexpressible  the case needs something WebNN cannot hold (expressibility() below): a data type
                   without a WebNN counterpart (double, string, int16, uint16, complex, sequences,
                   optionals) in a graph input/output, initializer, constant or inferred value; a
                   zero-size tensor; or an operand WebNN takes as a static option (shape, axes,
                   pads, repeats, k, training_mode, ...) computed from graph inputs.  Must fail
                   cleanly (a case that converts makes the suite fail: fix the classification).
                   Also out of scope, converted but not run: test data that contradicts the
                   model (an input_N.pb shape other than the input's declared static shape)
    in scope       everything else: must convert (exit 0), unless listed with a reason in
                   onnx_node_expected_failures.txt (then it must fail cleanly, and a listed case
                   that converts is reported so the list stays true)
  out of table  must exit 2 with exactly one stderr line `webnnc: error: ...`
bfloat16 counts as expressible: the importer widens it to float32 (ONNX 1.12's generator stores
bfloat16 test data as UINT16 tensors of the bits; the runner relabels them BFLOAT16 for webnnc run).
Every in-scope case that converts is then run on the Vulkan runtime (lavapipe when no GPU) on each
of its test_data_set_N folders (inputs and reference outputs from ONNX's own reference code, in the
same folder) and compared with ONNX's backend-test tolerances (onnx/backend/test/loader: rtol 1e-3,
atol 1e-7; numpy assert_allclose semantics |got - want| <= atol + rtol * |want|, NaN == NaN); the
output data types must be the reference's (bool is WebNN uint8).  A run that does not pass is
classified as missing kernel, numeric mismatch or runtime error and must be listed with that class
and a reason in onnx_node_run_expected_failures.txt (a listed case that passes, or fails another
way, is reported so the list stays true).
Anything else (crash, sanitizer abort, timeout, exit 1 from convert, several error lines) fails.
Symbolic input dims are frozen with --fix NAME=N from the test's input_N.pb shapes.  Counts (in
table, inexpressible by reason, in scope, converted, passed) and the failing list with reasons are
printed and written to BUILD/onnx_node_tests.json.
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
               onnx.TensorProto.INT8: "int8", onnx.TensorProto.UINT8: "uint8", onnx.TensorProto.BOOL: "uint8",
               onnx.TensorProto.BFLOAT16: "float32"}  # the importer widens bfloat16 to float32


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


# ---- expressibility in WebNN ----------------------------------------------------------------------
# ONNX tensor element types with no WebNN data type (bool -> uint8 and bfloat16 -> float32 are mapped).
NO_WEBNN_TYPE = {onnx.TensorProto.DOUBLE: "double", onnx.TensorProto.STRING: "string",
                 onnx.TensorProto.INT16: "int16", onnx.TensorProto.UINT16: "uint16",
                 onnx.TensorProto.COMPLEX64: "complex64", onnx.TensorProto.COMPLEX128: "complex128"}
# Operands (input slot -> ONNX input name) that WebNN builders take as static options, so that they
# must be known at conversion time: ONNX op semantics, not the importer's op table.
_AXES = {1: "axes"}
STATIC_OPERANDS = {
    "Reshape": {1: "shape"}, "Expand": {1: "shape"}, "Tile": {1: "repeats"}, "Split": {1: "split"},
    "Slice": {1: "starts", 2: "ends", 3: "axes", 4: "steps"}, "Squeeze": _AXES, "Unsqueeze": _AXES,
    "Pad": {1: "pads", 2: "constant_value", 3: "axes"}, "ConstantOfShape": {0: "input"},
    "Range": {0: "start", 1: "limit", 2: "delta"}, "Trilu": {1: "k"}, "CumSum": {1: "axis"},
    "Dropout": {2: "training_mode"}, "TopK": {1: "K"}, "OneHot": {1: "depth"},
    "Resize": {1: "roi", 2: "scales", 3: "sizes"}, "Upsample": {1: "scales"},
    **{op: _AXES for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                            "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare")},
}
# Exclusion kinds that WebNN cannot express, so that conversion must fail (cleanly).
WEBNN_LIMITS = ("no WebNN type", "zero-size tensor", "static operand from graph inputs")
# Ops whose outputs depend only on input shapes (static once --fix freezes the dims).
SHAPE_ONLY = {"Shape", "Size"}


def _type_problem(tp):
    """Why an ONNX TypeProto has no WebNN counterpart, or None."""
    if tp.HasField("tensor_type"):
        return NO_WEBNN_TYPE.get(tp.tensor_type.elem_type)
    if tp.WhichOneof("value") is None:
        return None
    return tp.WhichOneof("value").replace("_type", "")  # sequence, optional, map, sparse_tensor


def _has_zero_dim(tp):
    return tp.HasField("tensor_type") and tp.tensor_type.HasField("shape") and \
        any(d.HasField("dim_value") and d.dim_value == 0 for d in tp.tensor_type.shape.dim)


def _constants(graph):
    """TensorProtos of the graph's initializers and Constant nodes."""
    out = list(graph.initializer)
    for node in graph.node:
        if node.op_type == "Constant":
            out += [a.t for a in node.attribute if a.HasField("t")]
    return out


def _data_tensors(case_dir):
    """TensorProtos of every input_N.pb / output_N.pb of every test_data_set_N."""
    out = []
    for ds in sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_")):
        for f in sorted(os.listdir(os.path.join(case_dir, ds))):
            if f.endswith(".pb"):
                t = onnx.TensorProto()
                with open(os.path.join(case_dir, ds, f), "rb") as fh:
                    t.ParseFromString(fh.read())
                out.append(t)
    return out


def data_contradicts_model(model, case_dir):
    """Detail of an input_N.pb whose shape contradicts a static dim the model declares for that
    input (ONNX Runtime rejects such inputs too), or None."""
    declared = {vi.name: vi.type.tensor_type.shape.dim for vi in model.graph.input if vi.type.HasField("tensor_type")}
    for ds in sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_")):
        for name, dims in e2e.test_data_shapes(os.path.join(case_dir, ds)).items():
            want = declared.get(name)
            if want is None:
                continue
            if len(want) != len(dims) or any(w.HasField("dim_value") and w.dim_value != d for w, d in zip(want, dims)):
                return f"{ds}: {name} has shape {dims}, the model declares " + \
                    str([w.dim_value if w.HasField("dim_value") else w.dim_param for w in want])
    return None


def expressibility(model, case_dir):
    """None when the case is expressible in WebNN, else (kind, detail) with kind one of
    "no WebNN type", "zero-size tensor", "static operand from graph inputs" (conversion must fail
    cleanly: WEBNN_LIMITS) or "test data contradicts the model" (converts, but is not run)."""
    graph = model.graph
    bad_data = data_contradicts_model(model, case_dir)
    if bad_data:
        return "test data contradicts the model", bad_data
    try:
        inferred = onnx.shape_inference.infer_shapes(model).graph.value_info
    except Exception:  # noqa: BLE001 - inference is a best effort; the declared types still count
        inferred = []
    values = list(graph.input) + list(graph.output) + list(inferred)
    for vi in values:
        bad = _type_problem(vi.type)
        if bad:
            return "no WebNN type", f"{bad} value {vi.name}"
    declared_bf16 = {vi.name for vi in list(graph.input) + list(graph.output)
                     if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16}
    for t in _constants(graph) + _data_tensors(case_dir):
        if t.data_type in NO_WEBNN_TYPE and not (t.name in declared_bf16 and t.data_type == onnx.TensorProto.UINT16):
            return "no WebNN type", f"{NO_WEBNN_TYPE[t.data_type]} tensor {t.name}"
        if 0 in t.dims:
            return "zero-size tensor", f"tensor {t.name or '(constant)'} of shape {list(t.dims)}"
    for vi in values:
        if _has_zero_dim(vi.type):
            return "zero-size tensor", f"value {vi.name}"
    init = {t.name for t in graph.initializer}
    dynamic = {vi.name for vi in graph.input if vi.name not in init}
    for node in graph.node:
        for slot, what in STATIC_OPERANDS.get(node.op_type, {}).items():
            if slot < len(node.input) and node.input[slot] in dynamic:
                return "static operand from graph inputs", f"{node.op_type} '{what}'"
        if node.op_type not in SHAPE_ONLY and any(i in dynamic for i in node.input):
            dynamic.update(o for o in node.output if o)
    return None


def bf16_relabeled(data_dir, model, tmp):
    """data_dir, or a copy under tmp whose UINT16 tensors that the model declares BFLOAT16 are
    relabeled BFLOAT16 (ONNX 1.12 writes bfloat16 test data as UINT16 tensors of the same bits)."""
    bf16 = {vi.name for vi in list(model.graph.input) + list(model.graph.output)
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16}
    if not bf16:
        return data_dir
    out = tempfile.mkdtemp(prefix="bf16-", dir=tmp)
    for f in os.listdir(data_dir):
        t = onnx.TensorProto()
        with open(os.path.join(data_dir, f), "rb") as fh:
            t.ParseFromString(fh.read())
        if t.name in bf16 and t.data_type == onnx.TensorProto.UINT16:
            t.data_type = onnx.TensorProto.BFLOAT16  # raw_data / int32_data hold the same 16-bit words
        with open(os.path.join(out, f), "wb") as fh:
            fh.write(t.SerializeToString())
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


def run_data_sets(case_dir, outdir, name, model, tmp):
    """Runs every test_data_set_N of a converted case; returns (class, detail) of the first that
    does not pass, or ("passed", summary)."""
    atol, rtol = TOLERANCE.get(name, (ATOL, RTOL, None))[:2]
    sets = sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_"))
    if not sets:
        return "runtime error", "no test_data_set folder"
    worst = 0.0
    for ds in sets:
        data_dir = bf16_relabeled(os.path.join(case_dir, ds), model, tmp)
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
    in_table = ops <= supported
    excluded = expressibility(model, case_dir) if in_table else None
    in_scope = in_table and excluded is None
    shapes = e2e.test_data_shapes(os.path.join(case_dir, "test_data_set_0"))
    outdir = os.path.join(tmp, name)
    # --limits none: these cases test ONNX op semantics on webnnc's importer and runtime, many with
    # data types a browser's WebNN lacks (uint8 add, int64 pow, ...); browser legality is the browser
    # suite's job (tests/browser, docs/browser.md).
    r = e2e.convert(model_path, outdir, e2e.dim_args(model.graph, shapes) + ["--limits", "none"])
    run = None
    if in_scope and r.returncode == 0 and can_run:
        run = run_data_sets(case_dir, outdir, name, model, tmp)
        subprocess.run(["rm", "-rf", outdir], check=False)
    return name, in_table, excluded, sorted(ops - supported), r, run


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
    counts = dict(total=len(cases), in_table=0, inexpressible=0, inexpressible_by_reason={}, in_scope=0,
                  in_scope_converted=0, in_scope_expected_failures=0, expected_failures_by_reason={},
                  out_of_scope=0, out_of_scope_clean=0, ran=0, passed=0, failed=0,
                  run_failures={c: 0 for c in RUN_CLASSES}, run_expected_failures=0)
    failures, run_failures = [], []
    with tempfile.TemporaryDirectory(prefix="webnnc-node-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, in_table, excluded, missing, r, run in pool.map(lambda c: run_case(c, supported, tmp, device), cases):
            counts["in_table"] += in_table
            if r.crashed():
                failures.append(f"{name}: convert crashed, {r.describe()}")
            elif excluded:
                counts["inexpressible"] += 1
                by = counts["inexpressible_by_reason"]
                by[excluded[0]] = by.get(excluded[0], 0) + 1
                if name in expected:
                    failures.append(f"{name}: inexpressible ({excluded[0]}: {excluded[1]}), so out of scope: "
                                    "delete its line from onnx_node_expected_failures.txt")
                elif excluded[0] in WEBNN_LIMITS and not r.is_clean_error():
                    why = "converts" if r.returncode == 0 else r.describe()
                    failures.append(f"{name}: classified inexpressible ({excluded[0]}: {excluded[1]}) but {why}")
            elif in_table:
                counts["in_scope"] += 1
                if name in expected:
                    if r.is_clean_error():
                        counts["in_scope_expected_failures"] += 1
                        by = counts["expected_failures_by_reason"]
                        kind = expected[name].split(":", 1)[0]
                        by[kind] = by.get(kind, 0) + 1
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
    pct_table = 100.0 * counts["passed"] / counts["in_table"] if counts["in_table"] else 0.0
    counts["passed_percent_of_in_scope"] = round(pct, 1)
    counts["passed_percent_of_in_table"] = round(pct_table, 1)
    by_class = ", ".join(f"{n} {c}" for c, n in counts["run_failures"].items())
    excl = ", ".join(f"{n} {k}" for k, n in sorted(counts["inexpressible_by_reason"].items()))
    listed = ", ".join(f"{n} {k}" for k, n in sorted(counts["expected_failures_by_reason"].items()))
    print(f"{counts['total']} node tests: {counts['in_table']} with every op in the importer table, "
          f"{counts['out_of_scope']} not ({counts['out_of_scope_clean']} fail cleanly)")
    print(f"in table: {counts['inexpressible']} out of scope ({excl or 'none'}), "
          f"{counts['in_scope']} in scope ({counts['in_scope_converted']} converted, "
          f"{counts['in_scope_expected_failures']} listed conversion failures: {listed or 'none'})")
    print(f"run: {counts['ran']} ran, {counts['passed']} passed ({pct:.1f}% of in scope, {pct_table:.1f}% of in table), {by_class} "
          f"({counts['run_expected_failures']} of them listed); {counts['failed']} suite failures")
    with open(os.path.join(build, "onnx_node_tests.json"), "w") as f:
        json.dump(dict(counts=counts, rtol=RTOL, atol=ATOL, device=device,
                       run_failures=sorted(run_failures, key=lambda x: x["name"]), suite_failures=failures),
                  f, indent=2, sort_keys=True)
        f.write("\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
