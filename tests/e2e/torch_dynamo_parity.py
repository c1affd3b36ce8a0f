#!/usr/bin/python3
"""torch_dynamo_parity.py - end-to-end parity of the `*-torch-dynamo` models of ../shared/models
(standard ONNX ops only) on the Vulkan runtime (lavapipe when no GPU).

Each model is converted twice and run against ONNX Runtime's reference outputs:
  test_data_set_0 (the 8-token prompt)   converted with --fix sequence_length=8
  test_data_set_1 (the one token [123])  converted with --fix sequence_length=1
and every output (logits) must be within 1e-4 absolute (`webnnc run --expect --atol 1e-4 --rtol 0`).
The test sets' input shapes are checked to be [1, 8] and [1, 1], so the data cannot silently
change meaning.  Max abs errors per model and test set are printed and written to
BUILD/torch_dynamo_parity.json.  Without ../shared the test is skipped (exit 77) and says so;
under CI=true it fails.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

ATOL = 1e-4  # the issue: "match test_data_set_0 within 1e-4"
CASES = (("test_data_set_0", 8), ("test_data_set_1", 1))  # (test set, sequence_length)


def check_set(model_dir, name, data_set, seq, tmp):
    """Returns (max abs error or None, failure text or None)."""
    data_dir = os.path.join(model_dir, data_set)
    shapes = e2e.test_data_shapes(data_dir)
    if shapes.get("input_ids") != [1, seq]:
        return None, f"{data_set}: input_ids shape {shapes.get('input_ids')}, expected [1, {seq}]"
    outdir = os.path.join(tmp, f"{name}-{seq}")
    r = e2e.convert(model_dir, outdir, ["--fix", f"sequence_length={seq}"])
    if r.returncode != 0:
        return None, f"convert --fix sequence_length={seq}: {r.describe()}"
    r = e2e.run_graph(outdir, data_dir, data_dir, ATOL, 0.0)
    rows = e2e.parity_lines(r.stdout)
    for row in rows:
        print(f"    {data_set}: {row['text']}")
    n_refs = sum(1 for f in os.listdir(data_dir) if f.startswith("output_") and f.endswith(".pb"))
    errors = [row["max_abs"] for row in rows if row["max_abs"] is not None]
    worst = max(errors) if errors else None
    if r.returncode != 0:
        return worst, f"{data_set}: webnnc run {e2e.classify_run(r)}: {r.describe()}"
    if len(rows) != n_refs or not all(row["ok"] for row in rows):
        return worst, f"{data_set}: {len(rows)} parity lines for {n_refs} reference outputs"
    return worst, None


def main():
    models_dir = os.path.join(e2e.shared_dir_or_skip("the torch-dynamo parity test"), "models")
    models = sorted(d for d in os.listdir(models_dir) if d.endswith("-torch-dynamo"))
    if not models:
        print(f"FAIL: no *-torch-dynamo model under {models_dir}")
        return 1
    device = e2e.use_working_vulkan_device()
    if device is None:
        print("FAIL: no Vulkan device")
        return 1
    print(f"Vulkan device: {device}", flush=True)
    failures, results = [], {}
    with tempfile.TemporaryDirectory(prefix="webnnc-dynamo-") as tmp:
        for name in models:
            print(name, flush=True)
            results[name] = {}
            for data_set, seq in CASES:
                worst, failure = check_set(os.path.join(models_dir, name), name, data_set, seq, tmp)
                results[name][data_set] = dict(sequence_length=seq, max_abs=worst, ok=failure is None)
                shown = "n/a" if worst is None else f"{worst:.3g}"
                print(f"  {'ok  ' if failure is None else 'FAIL'} {data_set} (sequence_length={seq}): "
                      f"max abs error {shown} (atol {ATOL:g})" + (f": {failure}" if failure else ""), flush=True)
                if failure:
                    failures.append(f"{name} {failure}")
    with open(os.path.join(e2e.build_root(), "torch_dynamo_parity.json"), "w") as f:
        json.dump(dict(atol=ATOL, rtol=0, device=device, models=results), f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"{len(models)} models x {len(CASES)} test sets: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
