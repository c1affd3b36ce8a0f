#!/usr/bin/python3
"""api_run.py - webnnc_run (the library, through api_run.c built against libwebnnc.so and the public
header) takes a decoder step in the ONNX KV interface as `webnnc run` does, because both bind through
lib/run/run_io.c: for corpus models (../shared/models, converted by `webnnc convert`) and each of
their test_data_set folders (a prefill with empty pasts, a decode step with pasts shorter than the
cache), the inputs go to webnnc_run by their ONNX names ("past_key_values.0.key"); every output has
the shape of the ONNX reference (output_N.pb: presents at the step's total length, not the cache
capacity) and the values of `webnnc run --output-dir` on the same folder.
Exit 1 on any difference.  Without ../shared: skip (77), or fail under CI=true.
  api_run.py WEBNNC API_RUN
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

MODELS = ("qwen2-int4-webgpu", "phi3-fp32-cpu", "llama-fp16-webgpu", "qwen3-int4-cpu")


def tensors(data_dir, prefix):
    """[(name, array)] of the PREFIX_N.pb files of a test_data_set folder, in file order."""
    out = []
    for f in sorted(os.listdir(data_dir)):
        if f.startswith(prefix) and f.endswith(".pb"):
            t = onnx.TensorProto()
            with open(os.path.join(data_dir, f), "rb") as fh:
                t.ParseFromString(fh.read())
            out.append((t.name, numpy_helper.to_array(t)))
    return out


DTYPES = {np.dtype("float32"): "float32", np.dtype("float16"): "float16", np.dtype("int64"): "int64",
          np.dtype("int32"): "int32"}


def api_step(tool, graph, data_dir, tmp):
    """{output name: array} of webnnc_run, or a description of its failure."""
    manifest = os.path.join(tmp, "inputs.txt")
    with open(manifest, "w") as m:
        for name, a in tensors(data_dir, "input_"):
            m.write(f"{name} {DTYPES[a.dtype]} {a.ndim} {' '.join(str(d) for d in a.shape)}\n")
            a.tofile(os.path.join(tmp, name + ".bin"))
    outdir = os.path.join(tmp, "api-out")
    os.makedirs(outdir, exist_ok=True)
    p = subprocess.run([tool, graph, manifest, tmp, outdir], capture_output=True, text=True, errors="replace", timeout=600)
    if p.returncode != 0:
        return f"api_run exit {p.returncode}: {p.stderr.strip()[-400:]}"
    got = {}
    np_of = {v: k for k, v in DTYPES.items()}
    for line in p.stdout.splitlines():
        name, dtype, rank, *dims = line.split()
        got[name] = np.fromfile(os.path.join(outdir, name + ".bin"), dtype=np_of[dtype]).reshape([int(d) for d in dims])
    return got


def step_checks(tool, graph, data_dir, label, tmp):
    problems = []
    cli_out = os.path.join(tmp, "cli-out")
    r = e2e.run_webnnc(["run", graph, "--inputs", data_dir, "--output-dir", cli_out])
    if r.returncode != 0:
        return [f"{label}: webnnc run: {r.describe()}"]
    got = api_step(tool, graph, data_dir, tmp)
    if isinstance(got, str):
        return [f"{label}: {got}"]
    ref = {e2e_name: a for e2e_name, a in tensors(data_dir, "output_")}
    if len(got) != len(ref):
        problems.append(f"{label}: {len(got)} outputs from webnnc_run, {len(ref)} in the reference")
    for name, a in got.items():
        want = np.load(os.path.join(cli_out, name + ".npy"))
        shapes = {tuple(r.shape) for r in ref.values()}
        if a.shape != want.shape or a.tobytes() != want.tobytes():
            problems.append(f"{label} {name}: webnnc_run {a.shape} differs from webnnc run {want.shape}")
        elif tuple(a.shape) not in shapes:
            problems.append(f"{label} {name}: shape {a.shape} is none of the ONNX reference's {sorted(shapes)}")
    print(f"{label}: {'ok' if not problems else 'FAIL'} ({len(got)} outputs, "
          f"{', '.join(sorted({str(list(a.shape)) for a in got.values()}))})", flush=True)
    return problems


def main():
    tool, shared = e2e.api_suite_start("api_run (model corpus)", __doc__)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in MODELS:
            model = os.path.join(shared, "models", name)
            graph = os.path.join(tmp, name)
            c = e2e.convert(model, graph)
            if c.returncode != 0:
                failures.append(f"{name}: webnnc convert: {c.describe()}")
                continue
            for ds in sorted(d for d in os.listdir(model) if d.startswith("test_data_set_")):
                step_tmp = os.path.join(tmp, name + "-" + ds)
                os.makedirs(step_tmp)
                failures += step_checks(tool, graph, os.path.join(model, ds), f"{name} {ds}", step_tmp)
    return e2e.finish(failures, f"{len(MODELS)} models, webnnc_run == webnnc run in the ONNX KV interface")


if __name__ == "__main__":
    sys.exit(main())
