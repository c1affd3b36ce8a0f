#!/usr/bin/python3
"""shared_models.py - model corpus e2e test: `webnnc convert` on every model in ../shared/models.

Each model must either convert (exit 0) or fail with one clean line naming an unsupported op
(exit 2, `webnnc: error: ...: unsupported op ...`).  The `*-torch-dynamo` models use standard ops
only and must convert fully with a dynamic sequence length (`--dim sequence_length=64`: shape
expressions, see dynamic_shapes.py for their parity runs).  Symbolic dims of the other models are
set from their test_data_set_0 inputs (--fix NAME=N; --dim NAME=2048 for the zero-length past),
or, for models without test data, batch_size=1, (total_)sequence_length=8, kv_cache_dim = head_size of
genai_config.json.  Without ../shared the test is skipped
(exit 77) and says so; under CI=true it fails.
"""
import json
import os
import sys
import tempfile

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402


def genai_dim_args(model_dir):
    defaults = {"batch_size": 1, "sequence_length": 8, "total_sequence_length": 8}
    try:
        with open(os.path.join(model_dir, "genai_config.json")) as f:
            defaults["kv_cache_dim"] = json.load(f)["model"]["decoder"]["head_size"]
    except (OSError, ValueError, KeyError):
        pass
    graph = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False).graph
    shapes = e2e.test_data_shapes(os.path.join(model_dir, "test_data_set_0"))
    return e2e.dim_args(graph, shapes, defaults)


def main():
    models_dir = os.path.join(e2e.shared_dir_or_skip("the model corpus test"), "models")
    models = sorted(d for d in os.listdir(models_dir) if os.path.isfile(os.path.join(models_dir, d, "model.onnx")))
    if not models:
        print(f"FAIL: no models under {models_dir}")
        return 1
    failures, converted, unsupported = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="webnnc-models-") as tmp:
        for name in models:
            must_convert = name.endswith("-torch-dynamo")
            model_dir = os.path.join(models_dir, name)
            args = ["--dim", "sequence_length=64"] if must_convert else genai_dim_args(model_dir)
            r = e2e.convert(model_dir, os.path.join(tmp, name), args)
            if r.returncode == 0:
                converted += 1
                print(f"ok       {name}: {r.stdout.strip()}")
            elif not must_convert and r.is_clean_error() and "unsupported op " in r.stderr_lines[0]:
                unsupported += 1
                print(f"unsupp   {name}: {r.stderr_lines[0]}")
            else:
                failures.append(name)
                print(f"FAIL     {name}: {r.describe()}")
    print(f"{len(models)} models: {converted} converted, {unsupported} clean 'unsupported op', {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
