#!/usr/bin/python3
"""reports_tests.py - machine-readable reports and no dead ends for a new user (issue 13).

- `--json` on convert, run, validate, diff, devices, ops, generate: stdout is exactly one JSON object with
  "command", "ok", "exitCode" (and "error" = the stderr line when it failed), plus each command's keys.
- `run --repeat N`: min <= median <= p90 over N runs (text line and JSON "timing").
- `run --expect` without --atol/--rtol passes a correct int4 and fp16 corpus model (the tolerance is
  chosen from the output dtype and weights precision, and printed); a wrong expectation still FAILs.
- `validate --allow-extensions` accepts a fused graph, plain validate names the flag.
- `convert` says when it replaces an earlier output folder.
- `diff` names its columns after the graphs.
- `generate` on a GenAI folder whose max_length (32768) makes a tensor larger than the device's
  maximum buffer size lowers total_sequence_length with one notice naming --dim, and generates the
  same tokens as with that --dim given; `--dim total_sequence_length=N` alone bounds every
  sequence dim (it used to fail with "sequence length exceeds the KV cache capacity").
- `inspect` says whether a graph is portable (spec ops only) or lists its webnnc extension ops.
"""
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def one_object(r, command, what):
    """The JSON object of a --json run, checked for the common keys (None when it is not one)."""
    try:
        obj = json.loads(r.stdout)
    except ValueError:
        check(False, f"{what}: stdout is one JSON object ({r.stdout[:200]!r})")
        return None
    common = obj.get("command") == command and obj.get("exitCode") == r.returncode and obj.get("ok") == (r.returncode == 0)
    if r.returncode != 0 and r.stderr_lines:
        common &= obj.get("error", "") in r.stderr_lines[-1]
    check(isinstance(obj, dict) and common, f"{what}: command/ok/exitCode{'/error' if r.returncode else ''} keys")
    return obj


def json_reports(tmp, testdata):
    mlp = os.path.join(tmp, "mlp")
    model = os.path.join(testdata, "tiny_mlp.onnx")
    r = e2e.run_webnnc(["convert", model, "-o", mlp, "--fix", "batch=2", "--json"])
    o = one_object(r, "convert", "convert --json")
    check(o and o["webnnNodes"] == 6 and o["onnxNodes"] == 6 and o["weightsBytes"] == 874 * 4 and o["replaced"] is False,
          f"convert --json: counts and replaced=false: {o}")
    r = e2e.run_webnnc(["convert", model, "-o", mlp, "--fix", "batch=2"])
    check(r.returncode == 0 and r.stdout.rstrip().endswith("(replaced the previous output there)"),
          f"convert says it replaced the folder: {r.stdout.strip()}")
    r = e2e.run_webnnc(["convert", model, "-o", os.path.join(tmp, "nope"), "--json"])
    o = one_object(r, "convert", "convert --json failing (dynamic dim)")
    check(o and "is dynamic" in o.get("error", "") and r.returncode == 2, "convert --json: the error in the object, exit 2")

    r = e2e.run_webnnc(["validate", mlp, "--json"])
    o = one_object(r, "validate", "validate --json")
    check(o and o.get("summary", "").startswith("6 nodes, 1 inputs, 1 outputs"), f"validate --json summary: {o}")

    r = e2e.run_webnnc(["diff", model, mlp, "--fix", "batch=2", "--json"])
    o = one_object(r, "diff", "diff --json")
    check(o and o["a"]["label"] == "tiny_mlp" and o["b"]["label"] == "mlp" and o["a"]["nodes"] == o["b"]["nodes"] == 6
          and {x["op"] for x in o["ops"]} == {"matmul", "add", "relu", "softmax"}, f"diff --json: labels, nodes, ops: {o}")
    r = e2e.run_webnnc(["diff", model, mlp, "--fix", "batch=2"])
    head = r.stdout.splitlines()[0].split() if r.stdout else []
    check(head[:3] == ["op", "tiny_mlp", "mlp"], f"diff names its columns after the graphs: {head}")
    r = e2e.run_webnnc(["diff", mlp, mlp])
    head = r.stdout.splitlines()[0] if r.stdout else ""
    check("mlp (A)" in head and "mlp (B)" in head, f"diff of one graph twice says which is which: {head}")

    r = e2e.run_webnnc(["ops", "--json"])
    o = one_object(r, "ops", "ops --json")
    check(o and any(x["name"] == "matmul" and x["spec"] and x["family"] == "linalg" for x in o["ops"]) and
          any(not x["spec"] for x in o["ops"]) and all(x["family"] != "?" for x in o["ops"]),
          "ops --json lists spec and extension ops")
    r = e2e.run_webnnc(["ops", "--onnx", "--json"])
    o = one_object(r, "ops", "ops --onnx --json")
    check(o and "MatMul" in o["onnxOps"], "ops --onnx --json lists MatMul")
    r = e2e.run_webnnc(["devices", "--json"])
    o = one_object(r, "devices", "devices --json")
    check(o and all({"index", "name", "maxBufferSize", "uniformBufferStandardLayout", "memoryHeaps", "storageBuffersPerStage",
                     "int64Atomics"} <= set(d) for d in o["devices"]),
          f"devices --json: {len(o['devices']) if o else None} device(s) with limits")
    return mlp


def run_reports(tmp, testdata):
    dec = os.path.join(tmp, "decoder")
    data = os.path.join(testdata, "tiny_decoder", "test_data_set_0")
    r = e2e.run_webnnc(["convert", os.path.join(testdata, "tiny_decoder.onnx"), "-o", dec])
    check(r.returncode == 0, f"convert tiny_decoder: {r.describe()}")
    r = e2e.run_webnnc(["run", dec, "--inputs", data, "--expect", data, "--repeat", "3"])
    m = re.search(r"^time: 3 runs: min (\S+) ms, median (\S+) ms, p90 (\S+) ms$", r.stdout, re.M)
    rows = e2e.parity_lines(r.stdout)
    check(r.returncode == 0 and m and float(m[1]) <= float(m[2]) <= float(m[3]) and rows and rows[0]["ok"],
          f"run --repeat 3: parity holds on every run, min <= median <= p90: {m and m[0]}")
    check(rows and "[tolerance atol 0.0001 rtol 0.0001: default for float32 output, float32 weights]" in rows[0]["text"],
          "run prints the default tolerance it used")
    r = e2e.run_webnnc(["run", dec, "--inputs", data, "--expect", data, "--repeat", "2", "--json"])
    o = one_object(r, "run", "run --json")
    out = o["outputs"][0] if o and o.get("outputs") else {}
    check(o and o["timing"]["runs"] == 2 and o["timing"]["minMs"] <= o["timing"]["p90Ms"] and out.get("pass") is True
          and out.get("shape") == [1, 8, 64] and out.get("atol") == 1e-4 and o["weightsPrecision"] == "float32",
          f"run --json: timing, outputs[0] pass/shape/atol, weightsPrecision: {out}")
    # inputs and outputs staged in host memory, as on a discrete GPU: their io_copy dispatches counted apart
    os.environ["WEBNNC_FORCE_STAGING"] = "1"
    r = e2e.run_webnnc(["run", dec, "--inputs", data, "--json"])
    del os.environ["WEBNNC_FORCE_STAGING"]
    o = one_object(r, "run", "run --json with staged inputs")
    st = o.get("stats", {}) if o else {}
    check(st.get("ioDispatches", 0) > 0 and st["dispatches"] > st["ioDispatches"] and
          f"({st['ioDispatches']} of them input/output copies)" in r.stderr,
          f"run --json: stats.ioDispatches counts the input/output copies, and the text says so: {st}")
    wrong = os.path.join(tmp, "wrong")
    os.mkdir(wrong)
    import numpy as np
    np.save(os.path.join(wrong, "logits.npy"), np.zeros((1, 8, 64), np.float32))
    r = e2e.run_webnnc(["run", dec, "--inputs", data, "--expect", wrong, "--json"])
    o = one_object(r, "run", "run --json with a wrong expectation")
    check(r.returncode == 1 and o and o["outputs"][0]["pass"] is False and o["outputs"][0]["failures"] > 0,
          "run --json: a wrong expectation FAILs (exit 1, pass false)")
    for bad in ("0", "1.5", "x"):
        r = e2e.run_webnnc(["run", dec, "--inputs", data, "--repeat", bad])
        check(r.is_clean_error(), f"run --repeat {bad}: usage error")
    r = e2e.run_webnnc(["run", os.path.join(tmp, "missing"), "--inputs", data, "--json"])
    o = one_object(r, "run", "run --json on a missing graph")
    check(r.returncode == 2 and o and "cannot open" in o.get("error", ""), "run --json: error for a missing graph")


def default_tolerances(tmp, shared):
    for name, want in (("llama-int4-cpu", "atol 0.001 rtol 0: default for float32 output, int4 weights"),
                       ("llama-fp16-dml", "atol 0.03 rtol 0: default for float16 output, float16 weights")):
        model, out = os.path.join(shared, "models", name), os.path.join(tmp, name)
        data = os.path.join(model, "test_data_set_0")
        r = e2e.run_webnnc(["convert", model, "-o", out], timeout=600)
        if r.returncode != 0:
            check(False, f"convert {name}: {r.describe()}")
            continue
        r = e2e.run_webnnc(["run", out, "--inputs", data, "--expect", data], timeout=600)
        logits = [x for x in e2e.parity_lines(r.stdout) if x["name"] == "logits"]
        check(r.returncode == 0 and logits and logits[0]["ok"] and want in logits[0]["text"],
              f"{name}: run --expect with default tolerances passes ({logits[0]['text'] if logits else r.describe()})")


def extensions(tmp, testdata):
    fused = os.path.join(tmp, "fused")
    r = e2e.run_webnnc(["convert", os.path.join(testdata, "tiny_decoder.onnx"), "-o", fused, "--fuse", "all"])
    check(r.returncode == 0, f"convert --fuse all: {r.describe()}")
    r = e2e.run_webnnc(["validate", fused])
    check(r.returncode == 1 and "--allow-extensions" in r.stderr, f"validate of a fused graph names --allow-extensions: {r.describe()}")
    r = e2e.run_webnnc(["validate", fused, "--allow-extensions"])
    check(r.returncode == 0 and r.stdout.startswith("OK "), f"validate --allow-extensions accepts it: {r.describe()}")
    r = e2e.run_webnnc(["inspect", fused, "--json"])
    o = json.loads(r.stdout or "{}")
    check(o.get("portable") is False and "qkvProjection" in o.get("extensionOps", []),
          f"inspect --json of a fused graph: portable false, extensionOps {o.get('extensionOps')}")
    r = e2e.run_webnnc(["inspect", fused])
    check("webnnc-specific" in r.stdout and "qkvProjection" in r.stdout, "inspect text: webnnc-specific, extension ops listed")
    plain = os.path.join(tmp, "decoder")
    r = e2e.run_webnnc(["inspect", plain, "--json"])
    o = json.loads(r.stdout or "{}")
    check(o.get("portable") is True and o.get("extensionOps") == [], "inspect --json of a spec-only graph: portable")


def capacity(tmp, shared):
    src = os.path.join(shared, "models", "qwen2-fp32-cpu")
    big = os.path.join(tmp, "big")
    os.mkdir(big)
    for f in ("model.onnx", "model.onnx.data"):
        shutil.copy(os.path.join(src, f), big)
    with open(os.path.join(src, "genai_config.json")) as f:
        cfg = json.load(f)
    cfg["search"]["max_length"] = 32768
    with open(os.path.join(big, "genai_config.json"), "w") as f:
        json.dump(cfg, f)
    r = e2e.run_webnnc(["devices", "--json"])
    limit = min((d["maxBufferSize"] for d in json.loads(r.stdout)["devices"]), default=0) if r.returncode == 0 else 0
    args = ["generate", big, "--prompt-ids", "1,17,42", "--max-new", "3"]
    r = e2e.run_webnnc(args, timeout=600)
    note = [line for line in r.stderr_lines if line.startswith("webnnc: note: total_sequence_length lowered from 32768 to ")]
    if limit >= 16 * 32768 * 32768:  # attention scores [1, 4 heads, S, T] float32 fit: nothing to lower
        check(r.returncode == 0 and not note, f"generate with max_length 32768 fits this device: {r.describe()}")
        return
    m = re.search(r"lowered from 32768 to (\d+):.*--dim total_sequence_length=N \(N <= (\d+) fits\)$", note[0]) if note else None
    check(r.returncode == 0 and m and m[1] == m[2], f"generate lowers the capacity with one notice: {note or r.describe()}")
    if not m:
        return
    r2 = e2e.run_webnnc(args + ["--dim", f"total_sequence_length={m[1]}"], timeout=600)
    check(r2.returncode == 0 and r2.stdout == r.stdout and not any("note:" in x for x in r2.stderr_lines),
          f"--dim total_sequence_length={m[1]} generates the same tokens ({r.stdout.strip()}) without a notice")
    r3 = e2e.run_webnnc(args + ["--dim", f"total_sequence_length={m[1]}", "--json"], timeout=600)
    o = one_object(r3, "generate", "generate --json")
    check(o and ",".join(str(t) for t in o["tokens"]) == r.stdout.strip() and o["promptTokens"] == 3 and o["kvResident"]
          and o["ttftMs"] > 0, f"generate --json: the same tokens, prompt length, timings: {o}")


def main():
    e2e.webnnc()
    testdata = os.path.join(e2e.source_root(), "testdata")
    if e2e.use_working_vulkan_device() is None:
        check(os.environ.get("CI") != "true", "a Vulkan device (lavapipe) for the run reports")
        return
    with tempfile.TemporaryDirectory(prefix="webnnc-reports-") as tmp:
        json_reports(tmp, testdata)
        run_reports(tmp, testdata)
        extensions(tmp, testdata)
        shared = e2e.shared_dir_or_skip("the corpus checks of reports_tests")
        default_tolerances(tmp, shared)
        capacity(tmp, shared)


if __name__ == "__main__":
    main()
    print(f"{len(failures)} failure(s)" if failures else "all report checks passed", flush=True)
    sys.exit(1 if failures else 0)
