#!/usr/bin/python3
"""cli_tests.py - end-to-end checks of the `webnnc` command line.

Help/version/usage errors and exit codes; `inspect --json` on testdata/tiny_mlp.onnx against facts
known from how gen_models.py builds it (6 nodes: 2 MatMul, 2 Add, Relu, Softmax; 874 float32
parameters; symbolic input dim "batch"); `convert` of both test models, with the output checked
independently of webnnc's reader: WGWT header, 64-byte aligned absolute offsets, byteLength =
elements x dtype size, and the weight bytes equal to the ONNX initializers (read with python3-onnx);
then `inspect` of the output folder.  `run` on a hand-made Relu model whose tensor names are not
identifiers (`past.0.key` -> `present.0.key`, the GenAI KV naming) in the ONNX test_data_set layout
(inputs and expected outputs in one folder): PASS, FAIL (exit 1) on a wrong expectation, clean
errors on a missing input / wrong dtype.  `bench matvec-int4 --size S --rows N --json`: the weight
shape and bytes moved follow --rows (N x S uint4, scales and zero points per 32 along S), and a bad
--rows, or weights of over 2 GiB per set, is a usage error.  `bench dispatch` and `bench launch
--nodes 12 --json`: 12 node dispatches each, a barrier before every dependent one and none between
the independent ones (at most the two around a staging device's input and output copies).
"""
import json
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def usage_error(args, what):
    r = e2e.run_webnnc(args)
    check(r.is_clean_error() and r.stdout == "", f"{what}: exit 2 + one error line ({r.describe()})")
    return r


def cli_basics():
    r = e2e.run_webnnc(["--help"])
    check(r.returncode == 0 and all(c in r.stdout for c in ("convert", "inspect", "ops")), "--help lists commands")
    r = e2e.run_webnnc(["--version"])
    check(r.returncode == 0 and r.stdout.startswith("webnnc "), "--version")
    for cmd in ("convert", "inspect", "ops", "run", "devices"):
        a, b = e2e.run_webnnc(["help", cmd]), e2e.run_webnnc([cmd, "--help"])
        check(a.returncode == 0 and a.stdout == b.stdout and f"usage: webnnc {cmd}" in a.stdout,
              f"help {cmd} == {cmd} --help")
    r = e2e.run_webnnc([])
    check(r.returncode == 2, "no command: exit 2")
    usage_error(["frobnicate"], "unknown command")
    usage_error(["convert", "x.onnx"], "convert without -o")
    usage_error(["convert", "-o", "out"], "convert without INPUT")
    usage_error(["convert", "x.onnx", "-o", "out", "--bogus"], "unknown option")
    for bad in ("n", "=3", "n=", "n=0", "n=-1", "n=1x", "n=99999999999999999999999"):
        usage_error(["convert", "x.onnx", "-o", "out", "--fix", bad], f"--fix {bad}")
        usage_error(["convert", "x.onnx", "-o", "out", "--dim", bad], f"--dim {bad}")
    usage_error(["convert", "x.onnx", "-o", "out", "--fix", "n=2", "--dim", "n=4"], "same name in --fix and --dim")
    usage_error(["convert", "x.onnx", "-o", "a", "-o", "b"], "-o twice")
    r = usage_error(["convert", "/nonexistent/model.onnx", "-o", "/tmp/webnnc-never"], "missing input file")
    check("/nonexistent/model.onnx" in r.stderr, "error names the file")
    usage_error(["inspect", "/nonexistent/model.onnx"], "inspect missing file")
    usage_error(["inspect", "notamodel.txt"], "inspect unknown kind")
    r = e2e.run_webnnc(["ops"])
    check(r.returncode == 0 and "matmul(a, b)" in r.stdout and "layerNormalization(" in r.stdout, "ops lists WebNN ops")
    r = e2e.run_webnnc(["ops", "--onnx"])
    names = r.stdout.split()
    check(r.returncode == 0 and "MatMul" in names and "Softmax" in names, "ops --onnx lists ONNX ops")


def inspect_json(path):
    r = e2e.run_webnnc(["inspect", path, "--json"])
    if r.returncode != 0:
        check(False, f"inspect {path}: {r.describe()}")
        return None
    return json.loads(r.stdout)


def inspect_onnx(testdata):
    s = inspect_json(os.path.join(testdata, "tiny_mlp.onnx"))
    if not s:
        return
    check(s["format"] == "onnx" and s["nodes"] == 6, "inspect tiny_mlp: format, 6 nodes")
    check(s["ops"] == {"Add": 2, "MatMul": 2, "Relu": 1, "Softmax": 1}, f"inspect tiny_mlp: ops {s['ops']}")
    check(s["inputs"] == [{"name": "x", "dataType": "float32", "shape": [{"name": "batch"}, 16]}],
          f"inspect tiny_mlp: inputs {s['inputs']}")
    check(s["outputs"] == [{"name": "probs", "dataType": "float32", "shape": [{"name": "batch"}, 10]}],
          "inspect tiny_mlp: outputs")
    check(s["parameterBytes"] == {"float32": (16 * 32 + 32 + 32 * 10 + 10) * 4}, "inspect tiny_mlp: parameterBytes")
    check(s["opsets"] == {"ai.onnx": 17}, "inspect tiny_mlp: opsets")
    r = e2e.run_webnnc(["inspect", os.path.join(testdata, "tiny_mlp.onnx")])
    check(r.returncode == 0 and "x: float32[batch, 16]" in r.stdout, "inspect text form")


DTYPE_SIZE = {"float32": 4, "float16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
              "int8": 1, "uint8": 1, "int4": 1, "uint4": 1}


def check_output(model_path, outdir, stem):
    for f in ("model.webnn.json", "model.weights", "manifest.json"):
        check(os.path.isfile(os.path.join(outdir, f)), f"{stem}: wrote {f}")
    try:
        with open(os.path.join(outdir, "model.webnn.json")) as f:
            graph = json.load(f)
        with open(os.path.join(outdir, "manifest.json")) as f:
            manifest = json.load(f)
        with open(os.path.join(outdir, "model.weights"), "rb") as f:
            blob = f.read()
    except (OSError, ValueError) as err:
        check(False, f"{stem}: output readable ({err})")
        return
    check(graph.get("format") == "webnn-graph-json" and graph.get("version") == 2, f"{stem}: graph format/version")
    check(blob[:8] == b"WGWT\x01\x00\x00\x00", f"{stem}: weights start with WGWT v1")
    tensors = manifest.get("tensors", {})
    layout_ok, blobs = True, []
    for name, t in tensors.items():
        n = 1
        for d in t["shape"]:
            n *= d
        off, length = t["byteOffset"], t["byteLength"]
        layout_ok &= off % 64 == 0 and off >= 8 and length == n * DTYPE_SIZE[t["dataType"]] \
            and off + length <= len(blob) and len(t.get("xxhash64", "")) == 16
        blobs.append(blob[off:off + length])
    check(layout_ok, f"{stem}: manifest offsets 64-aligned, lengths = elements x size, xxhash64 present")
    # Weights feeding MatMul/Gather are never folded away: their bytes must appear unchanged.
    model = onnx.load(model_path)
    used = {name for n in model.graph.node if n.op_type in ("MatMul", "Gather") for name in n.input}
    weights = [numpy_helper.to_array(i).tobytes() for i in model.graph.initializer if i.name in used]
    check(weights and all(b in blobs for b in weights),
          f"{stem}: every MatMul/Gather weight ({len(weights)}) is in model.weights byte for byte")


def convert_models(testdata, tmp):
    for stem, fixes in (("tiny_mlp", ["--fix", "batch=2"]), ("tiny_decoder", [])):
        model, out = os.path.join(testdata, stem + ".onnx"), os.path.join(tmp, stem)
        r = e2e.run_webnnc(["convert", model, "-o", out, "--text"] + fixes)
        check(r.returncode == 0 and r.stdout.startswith(f"converted {stem}.onnx: ") and "WebNN nodes" in r.stdout,
              f"convert {stem}: {r.stdout.strip() or r.describe()}")
        if r.returncode != 0:
            continue
        check(os.path.isfile(os.path.join(out, "model.webnn")), f"{stem}: --text wrote model.webnn")
        check_output(model, out, stem)
        s = inspect_json(out)
        if s:
            check(s["format"] == "webnn-graph-json" and s["nodes"] > 0, f"inspect {stem} output: {s['nodes']} nodes")
            check(sum(s["parameterBytes"].values()) > 0, f"inspect {stem} output: parameter bytes")
    # --fix freezes the symbolic batch: the output graph's input is float32[2, 16].
    s = inspect_json(os.path.join(tmp, "tiny_mlp"))
    if s:
        check(s["inputs"] == [{"name": "x", "dataType": "float32", "shape": [2, 16]}], f"--fix batch=2: {s['inputs']}")
    r = e2e.run_webnnc(["convert", os.path.join(testdata, "tiny_mlp.onnx"), "-o", os.path.join(tmp, "dyn"),
                        "--dim", "batch=4"])
    s = inspect_json(os.path.join(tmp, "dyn")) if r.returncode == 0 else None
    check(s is not None and s["inputs"][0]["shape"] == [{"name": "batch", "maxSize": 4}, 16],
          f"--dim batch=4 keeps a dynamic dim ({s['inputs'] if s else r.describe()})")


def write_tensor(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())


def run_dotted_names(tmp):
    if e2e.use_working_vulkan_device() is None:
        check(False, "run: a Vulkan device (webnnc devices)")
        return
    g = helper.make_graph([helper.make_node("Relu", ["past.0.key"], ["present.0.key"])], "dotted",
                          [helper.make_tensor_value_info("past.0.key", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("present.0.key", TensorProto.FLOAT, [2, 3])])
    model, out = os.path.join(tmp, "dotted.onnx"), os.path.join(tmp, "dotted")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), model)
    x = np.array([[-1.5, 2, -3], [4, -0.25, 6]], np.float32)
    good, bad, wrong_type = (os.path.join(tmp, d) for d in ("good", "bad", "wrong_type"))
    for d in (good, bad, wrong_type):
        os.mkdir(d)
    write_tensor(os.path.join(good, "input_0.pb"), x, "past.0.key")
    write_tensor(os.path.join(good, "output_0.pb"), np.array([[0, 2, 0], [4, 0, 6]], np.float32), "present.0.key")
    write_tensor(os.path.join(bad, "output_0.pb"), np.array([[0, 2, 0], [4, 0, 7]], np.float32), "present.0.key")
    write_tensor(os.path.join(wrong_type, "input_0.pb"), x.astype(np.int32), "past.0.key")
    r = e2e.convert(model, out)
    check(r.returncode == 0, f"convert dotted-name model: {r.describe()}")
    r = e2e.run_graph(out, good, good, 0.0, 0.0)
    rows = e2e.parity_lines(r.stdout)
    check(r.returncode == 0 and len(rows) == 1 and rows[0]["ok"] and rows[0]["shape"] == [2, 3] and
          rows[0]["max_abs"] == 0.0, f"run: one test_data_set folder as --inputs and --expect, dotted names: PASS "
          f"({r.stdout.strip() or r.describe()})")
    r = e2e.run_graph(out, good, bad, 1e-4, 0.0)
    rows = e2e.parity_lines(r.stdout)
    check(r.returncode == 1 and len(rows) == 1 and not rows[0]["ok"] and rows[0]["max_abs"] == 1.0,
          f"run: a wrong expectation FAILs with exit 1 ({r.stdout.strip() or r.describe()})")
    r = e2e.run_webnnc(["run", out, "--inputs", bad])
    check(r.is_clean_error() and "past_0_key" in r.stderr, f"run: missing input is a clean error ({r.describe()})")
    r = e2e.run_webnnc(["run", out, "--inputs", wrong_type])
    check(r.is_clean_error() and "int32" in r.stderr, f"run: input of another data type is a clean error ({r.describe()})")


def bench_rows():
    usage_error(["bench", "matvec-int4", "--rows", "0"], "bench --rows 0")
    usage_error(["bench", "matvec-int4", "--rows", "x"], "bench --rows x")
    usage_error(["bench", "matvec-int4", "--size", "16384", "--rows", "1048576"], "bench: 8 GiB of uint4 weights per set")
    r = e2e.run_webnnc(["bench", "matvec-int4", "--size", "64", "--rows", "96", "--iters", "1", "--copy-mib", "1", "--json"])
    check(r.returncode == 0, f"bench matvec-int4 --size 64 --rows 96: exit 0 ({r.describe()})")
    if r.returncode:
        return
    res = {b["name"]: b for b in json.loads(r.stdout)["results"]}
    mv = res.get("matvec-int4")
    check(mv is not None and "copy" in res, "bench --json lists copy and matvec-int4")
    if mv is None:
        return
    # packed weights N*S/2 + float16 scales and uint4 zero points per block of 32 + x (S) and y (N) float16
    per_product = 96 * 64 // 2 + 96 * 2 * 2 + 96 * 2 // 2 + (64 + 96) * 2
    check("96x64" in mv["detail"] and mv["bytes"] == mv["repeat"] * per_product and mv["per_item_us"] > 0,
          f"bench --rows 96: 96x64 weights, {per_product} bytes per product ({mv['detail']}, {mv['bytes']} bytes "
          f"over {mv['repeat']})")


def bench_chains():
    for name, barriers in (("dispatch", 11), ("launch", 0)):
        r = e2e.run_webnnc(["bench", name, "--nodes", "12", "--iters", "2", "--json"])
        check(r.returncode == 0, f"bench {name} --nodes 12: exit 0 ({r.describe()})")
        if r.returncode:
            continue
        res = json.loads(r.stdout)["results"]
        b = res[0] if len(res) == 1 else {}
        check(b.get("name") == name and b.get("nodes") == 12 and b.get("per_dispatch_us", 0) > 0,
              f"bench {name} --json: one result of 12 nodes with a per-dispatch time ({res})")
        # the 12 nodes and, where the device stages graph inputs and outputs, their copies (a
        # barrier after the input's, one before the outputs')
        check(b.get("dispatches", 0) >= 12 and b.get("barriers", -1) >= barriers and
              (name == "dispatch" or b.get("barriers", 3) <= 2),
              f"bench {name}: 12 nodes, {'no barrier between them' if not barriers else 'a barrier before each dependent node'} "
              f"({b.get('dispatches')} dispatches, {b.get('barriers')} barriers)")


def main():
    testdata = os.path.join(e2e.source_root(), "testdata")
    cli_basics()
    bench_rows()
    bench_chains()
    inspect_onnx(testdata)
    with tempfile.TemporaryDirectory(prefix="webnnc-cli-") as tmp:
        convert_models(testdata, tmp)
        run_dotted_names(tmp)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
