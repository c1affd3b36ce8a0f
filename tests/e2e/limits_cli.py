#!/usr/bin/python3
"""limits_cli.py - `convert --limits` and `validate --limits` (issue 12) without a browser.

- the default (built-in Chromium 153 limits) and `--limits FILE` with ../shared/webnn-limits' copy
  plus our notes give graphs that `validate --limits chromium` accepts: no uint4, no scatterElements
  with computed indices (qwen2-int4-cpu), and webnnc's own runtime still matches the references;
- `--limits none` keeps the previous output: uint4 and the computed-index scatter, so `validate
  --limits chromium` fails with one line naming the node, the operand and the limit (exit 1); for
  testdata/tiny_decoder.onnx (nothing to legalize) the files equal the default output byte for byte;
- a target whose limits lack an op the graph needs stops the conversion with one line naming the node
  and the op, exit 2, and no output folder; a malformed limits or notes file is exit 2, one line;
  `--limits FILE` with `--fuse` is a usage error.
Without ../shared the model checks are skipped (exit 77) and say so; under CI=true they fail.
"""
import filecmp
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

failures = []


def check(cond, what):
    print(f"{'ok  ' if cond else 'FAIL'} {what}", flush=True)
    if not cond:
        failures.append(what)


def graph_of(outdir):
    with open(os.path.join(outdir, "model.webnn.json")) as f:
        return json.load(f)


def main():
    src = e2e.source_root()
    tiny = os.path.join(src, "testdata", "tiny_decoder.onnx")
    with tempfile.TemporaryDirectory(prefix="webnnc-limits-") as tmp:
        a, b = os.path.join(tmp, "default"), os.path.join(tmp, "none")
        r1, r2 = e2e.run_webnnc(["convert", tiny, "-o", a]), e2e.run_webnnc(["convert", tiny, "-o", b, "--limits", "none"])
        check(r1.returncode == 0 and r2.returncode == 0, f"tiny_decoder converts with and without limits ({r1.describe()} / {r2.describe()})")
        same = all(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False) for f in os.listdir(a))
        check(same, "tiny_decoder: nothing to legalize, --limits none output equals the default output byte for byte")

        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"add": {"a": {"dataTypes": ["float32"]}}, ')
        out = os.path.join(tmp, "out-bad")
        r = e2e.run_webnnc(["convert", tiny, "-o", out, "--limits", bad])
        check(r.is_clean_error() and "bad.json" in r.stderr and not os.path.exists(out), f"malformed limits file: exit 2, one line ({r.describe()})")
        small = os.path.join(tmp, "small.json")
        with open(small, "w") as f:
            json.dump({"gather": {"input": {"dataTypes": ["float32"]}, "indices": {"dataTypes": ["int64"]},
                                  "output": {"dataTypes": ["float32"]}}}, f)
        with open(os.path.join(tmp, "small.notes.json"), "w") as f:
            f.write('{"format": "webnnc-limits-notes", "constantOperands": [{"op": 3}]}')
        r = e2e.run_webnnc(["convert", tiny, "-o", out, "--limits", small])
        check(r.is_clean_error() and "small.notes.json" in r.stderr and not os.path.exists(out), f"malformed notes file: exit 2, one line ({r.describe()})")
        os.remove(os.path.join(tmp, "small.notes.json"))
        r = e2e.run_webnnc(["convert", tiny, "-o", out, "--limits", small])
        check(r.is_clean_error() and "node " in r.stderr and "is not supported by the target" in r.stderr and not os.path.exists(out),
              f"an op the target lacks: exit 2, one line naming the node and op, no output ({r.describe()})")
        r = e2e.run_webnnc(["convert", tiny, "-o", out, "--limits", small, "--fuse", "all"])
        check(r.returncode == 2 and "--fuse" in r.stderr and not os.path.exists(out), f"--limits FILE with --fuse: usage error ({r.describe()})")
        r = e2e.run_webnnc(["validate", a, "--limits", small])
        check(r.returncode == 1 and "is not supported by the target" in r.stderr, f"validate --limits names the first violation, exit 1 ({r.describe()})")

        shared = e2e.shared_dir_or_skip("the --limits model checks")
        model = os.path.join(shared, "models", "qwen2-int4-cpu")
        data = os.path.join(model, "test_data_set_1")
        copy = os.path.join(tmp, "chromium-153-cpu.json")
        shutil.copy(os.path.join(shared, "webnn-limits", "chromium-153-cpu.json"), copy)
        shutil.copy(os.path.join(src, "data", "limits", "chromium-153-cpu.notes.json"), os.path.join(tmp, "chromium-153-cpu.notes.json"))
        for name, extra in (("default", []), ("file", ["--limits", copy])):
            out = os.path.join(tmp, f"qwen2-{name}")
            r = e2e.run_webnnc(["convert", model, "-o", out] + extra, timeout=600)
            check(r.returncode == 0, f"qwen2-int4-cpu converts with limits {name} ({r.describe()})")
            if r.returncode:
                continue
            g = graph_of(out)
            ops = [n["op"] for n in g["nodes"]]
            types = {c["dataType"] for c in g["consts"].values()}
            check("uint4" not in types and "int4" in types and "uint8" in types, f"{name}: 4-bit weights are int4, the embedding uint8 ({sorted(types)})")
            check("scatterElements" not in ops and ops.count("where") >= 4, f"{name}: KV writes are where, not scatterElements")
            r = e2e.run_webnnc(["validate", out, "--limits", "chromium"])
            check(r.returncode == 0, f"{name}: validate --limits chromium accepts it ({r.describe()})")
            r = e2e.run_webnnc(["run", out, "--inputs", data, "--expect", data], timeout=600)
            check(r.returncode == 0, f"{name}: webnnc run matches the decode references ({r.describe()})")
        out = os.path.join(tmp, "qwen2-none")
        r = e2e.run_webnnc(["convert", model, "-o", out, "--limits", "none"], timeout=600)
        check(r.returncode == 0, f"qwen2-int4-cpu converts with --limits none ({r.describe()})")
        if r.returncode == 0:
            g = graph_of(out)
            check("scatterElements" in [n["op"] for n in g["nodes"]] and any(c["dataType"] == "uint4" for c in g["consts"].values()),
                  "--limits none keeps uint4 and the computed-index scatter")
            r = e2e.run_webnnc(["validate", out, "--limits", "chromium"])
            lines = r.stderr_lines
            check(r.returncode == 1 and len(lines) == 1 and "node " in lines[0] and "operand " in lines[0] and "uint4" in lines[0],
                  f"validate --limits chromium of it: exit 1, one line naming node, operand, limit ({r.describe()})")
    print(f"FAIL: {len(failures)} check(s) failed" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
