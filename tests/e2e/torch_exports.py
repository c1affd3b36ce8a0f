#!/usr/bin/python3
"""torch_exports.py - the evidence of issue #11 on torch.onnx (dynamo) exports written the ways
PyTorch code writes attention, rotary, norms and SiLU (testdata/torch: bench/make_torch_exports.py
made them, each folder's export.json records its forms and the torch/onnx/onnxruntime versions;
test_data_set_0/1 hold ONNX Runtime's outputs for an 8-token prompt and for [123] at position 8).

Per variant, converted with --dim sequence_length=64 (the checks of fusion_models.py):
`webnnc ladder` works and ends at the node count of `convert --fuse all`, which is <= the ONNX
origin's; the fused graph holds the expected macro-ops (the origin has none): one
groupQueryAttention per layer, every rotation (2 per GQA with doRotary, or one rotaryEmbedding per Q
and K where positions come from a position_ids input), the block norms (1 plain + 2 per layer - 1
skip ... as qkvProjection/gatedMlp/head) plus the q/k norms kept outside a GQA with per-token
rotation; no decomposed macro-op left over (softmax, erf, tanh, reduceMean, scatterElements); and
`webnnc run` unfused and --fuse all matches both test sets within 1e-4.  Writes torch_exports.json /
torch_exports.md into the build folder.  usage: torch_exports.py WEBNNC
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402
from arch_models import check_with_leftovers  # noqa: E402
from fusion_models import EVIDENCE_HEAD, evidence_cells, judge, report  # noqa: E402

DIMS = ["--dim", "sequence_length=64"]
KNOWN_MISSES = {}


def expected(forms, layers):
    """The macro-ops the fused graph must hold, from the export's forms."""
    per_token = forms["positions"] == "input"
    return {"GQA": layers, "rotary": 2 * layers, "matmulNBits": 0, "layerNorm": 0,
            "norm": 1 + (2 * layers if forms["qk_norm"] and per_token else 0), "skipNorm": 2 * layers}


def main():
    e2e.webnnc()
    if e2e.use_working_vulkan_device() is None:
        return 1
    root = os.path.join(e2e.source_root(), "testdata", "torch")
    names = sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "export.json")))
    if not names:
        print(f"FAIL: no export under {root}")
        return 1
    out_root = os.path.join(e2e.build_root(), "torch-exports")
    os.makedirs(out_root, exist_ok=True)
    rows, failures = [], []
    for name in names:
        model = os.path.join(root, name)
        info = json.load(open(os.path.join(model, "export.json")))
        want = expected(info["forms"], info["size"]["layers"])
        row, checks = check_with_leftovers(DIMS, model, name + "-torch-dynamo", out_root, want)
        row["forms"], row["expected"] = info["forms"], want
        rows.append(row)
        judge(name, checks, KNOWN_MISSES, failures)
        print(f"{name:24s} ladder {' '.join(str(n) for _, n in row['ladder'] or [])} fused {row['fused']}", flush=True)
    md = ["| export | forms | " + EVIDENCE_HEAD.format("expected"), "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        fm = r["forms"]
        forms = f"{fm['attention']}, {fm['repeat'] or 'sdpa enable_gqa'}, {'q/k norm, ' if fm['qk_norm'] else ''}" \
                f"positions {fm['positions']}, silu {fm['silu']}"
        md.append(f"| {r['model'].replace('-torch-dynamo', '')} | {forms} | {evidence_cells(r, r['expected'])}")
    return report("torch_exports", rows, md, failures, "exports")


if __name__ == "__main__":
    sys.exit(main())
