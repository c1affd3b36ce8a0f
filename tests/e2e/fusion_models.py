#!/usr/bin/python3
"""fusion_models.py - the fusion ladder (`webnnc ladder --json`) of every model in ../shared/models:
prints Origin/Baseline/stage node counts and fails when the fully fused graph has more nodes than
the ONNX original (qwen3 webgpu models, whose GQA holds q/k-norm weights, are known misses).
usage: fusion_models.py WEBNNC MODELS_DIR"""
import json
import os
import subprocess
import sys

KNOWN_MISSES = {"qwen3-fp16-webgpu", "qwen3-int4-webgpu"}  # GQA with qNorm/kNorm is not recovered yet


def dims(folder):
    cfg = os.path.join(folder, "genai_config.json")
    if not os.path.exists(cfg):
        return ["--dim", "sequence_length=64"]
    head = json.load(open(cfg))["model"]["decoder"]["head_size"]
    return ["--fix", "batch_size=1", "--fix", f"kv_cache_dim={head}", "--dim", "sequence_length=512",
            "--dim", "total_sequence_length=512", "--dim", "past_sequence_length=512"]


def main():
    webnnc, root = sys.argv[1], sys.argv[2]
    if not os.path.isdir(root):
        print(f"models folder {root} missing", file=sys.stderr)
        return 1 if os.environ.get("CI") == "true" else 77
    failed = 0
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        if not os.path.exists(os.path.join(folder, "model.onnx")):
            continue
        r = subprocess.run([webnnc, "ladder", folder, "--json"] + dims(folder), capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{name}: FAIL {r.stderr.strip()}")
            failed += 1
            continue
        rows = json.loads(r.stdout)["rows"]
        counts = [row["nodes"] for row in rows]
        ok = counts[-1] <= counts[0] or name in KNOWN_MISSES
        print(f"{name:26s} " + " ".join(f"{row['stage']}={row['nodes']}" for row in rows) + ("" if ok else "  FAIL"))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
