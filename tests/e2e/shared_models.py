#!/usr/bin/python3
"""shared_models.py - model corpus e2e test: `webnnc convert` on every model in ../shared/models.

Each model must either convert (exit 0) or fail with one clean line naming an unsupported op
(exit 2, `webnnc: error: ...: unsupported op ...`).  The `*-torch-dynamo` models use standard ops
only and must convert fully with `--fix sequence_length=8`.  Without ../shared the test is skipped
(exit 77) and says so; under CI=true it fails.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402


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
            fixes = [("sequence_length", 8)] if must_convert else []
            r = e2e.convert(os.path.join(models_dir, name), os.path.join(tmp, name), fixes)
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
