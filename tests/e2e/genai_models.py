#!/usr/bin/python3
"""genai_models.py - ORT-GenAI decoders end to end: parity of every model in ../shared/models.

Per model (one dynamically shaped conversion each: genai_config.json defaults, i.e. dynamic
sequence_length / total_sequence_length and a KV cache of capacity max_length; the `*-torch-dynamo`
models with --dim sequence_length=64):
- `webnnc convert`, then `webnnc run --expect` on test_data_set_0 (prefill, zero-length past) and
  test_data_set_1 (decode, past of 8) in the ONNX interface, which run maps onto the fixed-capacity
  caches.  Tolerances from ../shared/models/README.md, absolute (rtol 0), on logits and presents:
  fp32 models 1e-4, int4 with fp32 I/O 1e-3, fp16 I/O 3e-2 with identical argmax on the logits
  (tie-aware: the picked token must hold the reference row's maximum, since an fp16 reference row
  can hold two equal maxima, e.g. qwen2-fp16-webgpu set 0 row 4, where transformers ranks the
  second one higher).
- qwen3 `webgpu` models (ORT CPU cannot run them, so no test sets): prefill logits of the 8-token
  prompt against a reference within 3e-2 with identical argmax.  fp16: transformers' fp32 logits
  (hf-ref/qwen3/hf_logits.npy).  int4: quantization moves the logits ~1.0 away from transformers, so
  the reference is ORT's logits of the `dml` twin (qwen3-int4-dml test_data_set_0, the same prompt):
  the builder quantizes the same weights the same way for both targets - ORT's webgpu and dml
  references are bit-identical for llama, phi3 and qwen2, fp16 and int4 (while int4-cpu differs by
  ~0.1 from them: other quantization).  The distance to transformers is reported for information.
- every fp32 model: `webnnc generate` with the hf-ref prompt (the first 8 tokens of hf_greedy.npy)
  and --max-new 12 must reproduce hf_greedy.npy exactly (KV models from the converted folder, and
  qwen2-fp32-cpu also straight from its ONNX folder, converted in memory).

`webnnc generate` on bad input (ids, ids outside the vocabulary, counts, lengths beyond the cache, device, not a model) must
exit 2 with one error line.

Writes genai_models.json and genai_models.md (model, ONNX nodes, emitted baseline nodes, max abs
error per test set) into the build folder and prints the table.  Exit 1 on any failure.  Without
../shared: skip (77), or fail under CI=true.
"""
import json
import os
import re
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

PROMPT_LEN = 8
MAX_NEW = 12
TORCH_DIM = ["--dim", "sequence_length=64"]


def tolerance(name):
    """(atol, check argmax) from the README's rules."""
    if name.endswith("-torch-dynamo") or "-fp32-" in name:
        return 1e-4, False
    if "-int4-cpu" in name:
        return 1e-3, False
    return 3e-2, True


def onnx_node_count(model_dir):
    m = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False)
    return len(m.graph.node)


def test_logits(data):
    """The expected logits of a test_data_set folder (None if it has none)."""
    t = onnx.TensorProto()
    for f in sorted(os.listdir(data)):
        if f.startswith("output_"):
            with open(os.path.join(data, f), "rb") as fh:
                t.ParseFromString(fh.read())
            if t.name == "logits":
                return numpy_helper.to_array(t).astype(np.float64)
    return None


def same_argmax(got, want):
    """(rows agreeing, rows, rows where the reference ties): a row agrees when the token picked from
    `got` holds the maximum of the reference row (an fp16 reference may hold two equal maxima)."""
    g = got.reshape(-1, got.shape[-1])
    w = want.reshape(-1, want.shape[-1])
    pick = np.argmax(g, -1)
    agree = int(np.sum(w[np.arange(len(w)), pick] == w.max(-1)))
    ties = int(np.sum(np.sum(w == w.max(-1, keepdims=True), -1) > 1))
    return agree, len(w), ties


def run_set(out, data, atol, argmax):
    """(ok, max abs over the outputs, note) of `webnnc run --expect` on one test set; with `argmax`
    the logits must also pick a maximal token of every reference row."""
    with tempfile.TemporaryDirectory() as res:
        r = e2e.run_webnnc(["run", out, "--inputs", data, "--expect", data, "--atol", repr(atol), "--rtol", "0",
                            "--output-dir", res])
        got = np.load(os.path.join(res, "logits.npy")).astype(np.float64) if r.returncode in (0, 1) else None
    rows = e2e.parity_lines(r.stdout)
    worst = max((row["max_abs"] for row in rows if row["max_abs"] is not None), default=None)
    if r.returncode not in (0, 1) or not rows:
        return False, worst, f"run failed ({e2e.classify_run(r)}): {r.describe()}"
    bad = [row["text"] for row in rows if not row["ok"]]
    note = ""
    if argmax:
        agree, n, ties = same_argmax(got, test_logits(data))
        if agree != n:
            bad.append(f"logits argmax differs in {n - agree} of {n} rows")
        if ties:
            note = f"{ties} reference logits row(s) with tied maxima"
    return not bad, worst, "; ".join(bad) or note


def graph_kv_inputs(out):
    """{input name: (dtype, shape)} of the converted graph's KV-cache pasts."""
    with open(os.path.join(out, "model.webnn.json")) as f:
        g = json.load(f)
    pasts = [b["past"] for b in g.get("webnnc", {}).get("kvCache", [])]
    return {p: (g["inputs"][p]["dataType"], g["inputs"][p]["shape"]) for p in pasts}, g["inputs"]


def prefill_logits(out, tokens, tmp):
    """Logits of a prefill run of `tokens` on a converted KV model (zero-length pasts as .npy)."""
    pasts, inputs = graph_kv_inputs(out)
    ins = os.path.join(tmp, "in")
    res = os.path.join(tmp, "res")
    os.makedirs(ins, exist_ok=True)
    n = len(tokens)
    np.save(os.path.join(ins, "input_ids.npy"), np.array([tokens], dtype=np.int64))
    np.save(os.path.join(ins, "attention_mask.npy"), np.ones((1, n), dtype=np.int64))
    if "position_ids" in inputs:
        np.save(os.path.join(ins, "position_ids.npy"), np.arange(n, dtype=np.int64)[None, :])
    for name, (dt, shape) in pasts.items():
        np_dt = {"float16": np.float16, "float32": np.float32}[dt]
        np.save(os.path.join(ins, name + ".npy"), np.zeros((shape[0], shape[1], 0, shape[3]), dtype=np_dt))
    r = e2e.run_webnnc(["run", out, "--inputs", ins, "--output-dir", res])
    if r.returncode != 0:
        return None, r.describe()
    return np.load(os.path.join(res, "logits.npy")).astype(np.float64), ""


def check_against(got, want, atol):
    """(ok, max abs, note): within atol everywhere and the same argmax (tie-aware) on every row."""
    if got is None or want is None or got.shape != want.shape:
        return False, None, f"shape {None if got is None else got.shape} vs {None if want is None else want.shape}"
    err = float(np.max(np.abs(got - want)))
    agree, rows, _ = same_argmax(got, want)
    return err <= atol and agree == rows, err, f"max abs {err:.3g}, argmax {agree}/{rows}"


def generate(model, greedy):
    prompt = ",".join(str(int(x)) for x in greedy[:PROMPT_LEN])
    args = ["generate", model, "--prompt-ids", prompt, "--max-new", str(MAX_NEW)]
    if model.rstrip("/").endswith("-torch-dynamo"):
        args += TORCH_DIM
    r = e2e.run_webnnc(args, timeout=600)
    want = [int(x) for x in greedy[PROMPT_LEN:PROMPT_LEN + MAX_NEW]]
    got = [int(x) for x in r.stdout.strip().split(",")] if r.returncode == 0 and r.stdout.strip() else None
    speed = r.stderr_lines[-1] if r.stderr_lines else ""
    return got == want, f"got {got}, want {want}" if got != want else speed


def main():
    webnnc = e2e.webnnc()
    shared = e2e.shared_dir_or_skip("genai_models (model corpus parity)")
    models_dir = os.path.join(shared, "models")
    if e2e.use_working_vulkan_device() is None:
        return 1
    out_root = os.path.join(e2e.build_root(), "genai-models")
    os.makedirs(out_root, exist_ok=True)
    results, failures = [], []
    names = sorted(d for d in os.listdir(models_dir) if os.path.isfile(os.path.join(models_dir, d, "model.onnx")))
    for name in names:
        model = os.path.join(models_dir, name)
        out = os.path.join(out_root, name)
        atol, argmax = tolerance(name)
        row = {"model": name, "onnx_nodes": onnx_node_count(model), "webnn_nodes": None, "atol": atol,
               "set_0": None, "set_1": None, "hf_prefill": None, "generate": None, "notes": []}
        results.append(row)

        def fail(what):
            row["notes"].append(what)
            failures.append(f"{name}: {what}")

        c = e2e.convert(model, out, TORCH_DIM if name.endswith("-torch-dynamo") else [])
        m = re.search(r"-> (\d+) WebNN nodes", c.stdout)
        if c.returncode != 0 or not m:
            fail(f"convert {c.describe()}")
            continue
        row["webnn_nodes"] = int(m[1])
        sets = [s for s in ("test_data_set_0", "test_data_set_1") if os.path.isdir(os.path.join(model, s))]
        for s in sets:
            ok, worst, note = run_set(out, os.path.join(model, s), atol, argmax)
            row["set_" + s[-1]] = worst
            if not ok:
                fail(f"{s}: {note}")
            elif note:
                row["notes"].append(f"{s}: {note}")
        arch = name.split("-")[0]
        ref = os.path.join(models_dir, "hf-ref", arch)
        if not sets:  # qwen3 webgpu: prefill logits against a reference
            greedy = np.load(os.path.join(ref, "hf_greedy.npy"))[0]
            with tempfile.TemporaryDirectory() as tmp:
                got, why = prefill_logits(out, [int(x) for x in greedy[:PROMPT_LEN]], tmp)
            if got is None:
                fail(f"prefill run: {why}")
                continue
            hf = np.load(os.path.join(ref, "hf_logits.npy")).astype(np.float64)
            twin = os.path.join(models_dir, name.replace("-webgpu", "-dml"))
            ort = test_logits(os.path.join(twin, "test_data_set_0"))
            if "-int4-" in name:
                ok, err, note = check_against(got, ort, 3e-2)
                row["notes"].append(f"prefill vs ORT logits of {os.path.basename(twin)}: {note}; "
                                    f"vs transformers: {check_against(got, hf, 1e9)[2]} (int4 quantization)")
            else:
                ok, err, note = check_against(got, hf, 3e-2)
                row["notes"].append(f"prefill vs transformers: {note}; "
                                    f"vs ORT logits of {os.path.basename(twin)}: {check_against(got, ort, 3e-2)[2]}")
            row["hf_prefill"] = err
            if not ok:
                fail(f"prefill logits: {note}")
        if "-fp32-" in name:
            greedy = np.load(os.path.join(ref, "hf_greedy.npy"))[0]
            ok, note = generate(out, greedy)
            row["generate"] = ok
            if not ok:
                fail(f"generate: {note}")
            if name == "qwen2-fp32-cpu":  # straight from the ONNX folder (in-memory conversion)
                ok, note2 = generate(model, greedy)
                if not ok:
                    fail(f"generate from the ONNX folder: {note2}")
            row["notes"].append(f"generate: {note}")
        print(f"{name}: {'FAIL' if any(f.startswith(name + ':') for f in failures) else 'ok'}", flush=True)

    # generate on bad input: one clean error line, exit 2
    qwen2 = os.path.join(out_root, "qwen2-fp32-cpu")
    for bad in (["--prompt-ids", "1,x"], ["--prompt-ids", ""], ["--prompt-ids", "1,2", "--max-new", "0"],
                ["--prompt-ids", "1,2", "--max-new", "600"], ["--prompt-ids", "1", "--device", "-3"],
                ["--prompt-ids", "1,1024"]):
        r = e2e.run_webnnc(["generate", qwen2] + bad)
        if not r.is_clean_error():
            failures.append(f"generate {' '.join(bad)}: expected one error line and exit 2, got {r.describe()}")
    r = e2e.run_webnnc(["generate", os.path.join(models_dir, "README.md"), "--prompt-ids", "1"])
    if not r.is_clean_error():
        failures.append(f"generate on a non-model: expected one error line and exit 2, got {r.describe()}")

    def fmt(x):
        return "-" if x is None else f"{x:.3g}"

    md = ["| model | ONNX nodes | emitted baseline nodes | atol | max abs set_0 | max abs set_1 | prefill vs ref | generate = hf_greedy |",
          "|---|---|---|---|---|---|---|---|"]
    for r in results:
        gen = "-" if r["generate"] is None else ("yes" if r["generate"] else "NO")
        md.append(f"| {r['model']} | {r['onnx_nodes']} | {r['webnn_nodes'] or '-'} | {r['atol']:g} | {fmt(r['set_0'])} | "
                  f"{fmt(r['set_1'])} | {fmt(r['hf_prefill'])} | {gen} |")
    with open(os.path.join(e2e.build_root(), "genai_models.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(e2e.build_root(), "genai_models.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    for r in results:
        for n in r["notes"]:
            print(f"  {r['model']}: {n}")
    del webnnc
    if failures:
        print(f"FAIL: {len(failures)} problem(s):\n  " + "\n  ".join(failures))
        return 1
    print(f"PASS: {len(results)} models")
    return 0


if __name__ == "__main__":
    sys.exit(main())
