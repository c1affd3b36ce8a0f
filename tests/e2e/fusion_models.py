#!/usr/bin/python3
"""fusion_models.py - the evidence of issue #5 (fusion) on every model of ../shared/models:

1. `webnnc ladder MODEL --json` (its Baseline is convert's spec-only graph) must work on the model
   folder as it is (torch-dynamo: --dim sequence_length=64, as convert needs).
2. `webnnc convert MODEL --fuse all` must write and re-read its fused graph (convert validates what
   it wrote), with no more nodes than the ONNX original, and the same count as the ladder's last row.
3. Fusing the baseline recovers exactly the origin's macro-ops.  Counting rule (fused side):
     matmulNBits   = the output features (n) of all quantized projections: matmulNBits nodes plus
                     qkvProjection / gatedMlp nodes with bits > 0 (their packed n).  Node counts are
                     ambiguous (a packed QKV MatMulNBits split for q/k norms may become a 3-way
                     qkvProjection, three dml projections one), the sum of n is not; float (bits 0)
                     packs are plain MatMul in the origin, not counted
     GQA           = groupQueryAttention nodes
     norms         = rmsNorm + skipRmsNorm nodes + 1 per qkvProjection / gatedMlp (the norm it holds);
                     reported split as plain / skip (a fused node with a skip operand is a skip norm)
     rotary        = rotations: rotaryEmbedding nodes + 2 per groupQueryAttention with doRotary
                     (it rotates q and k); on the ONNX side RotaryEmbedding nodes + 2 per
                     GroupQueryAttention with do_rotary=1.  So the dml form (4 RotaryEmbedding before
                     2 GQA) recovered as 2 GQA with doRotary counts 4 = 4.
     layerNorm     = layerNormalization nodes (LayerNorm models; ONNX: LayerNormalization and
                     com.microsoft SkipLayerNormalization, which the importer lowers to add + it)
     gatherBlockQuantized = gatherBlockQuantized nodes (the int4 tied embeddings; ONNX: com.microsoft
                     GatherBlockQuantized)
   ONNX side: the sum of MatMulNBits N, GroupQueryAttention, SimplifiedLayerNormalization (plain) and
   SkipSimplifiedLayerNormalization (skip) nodes.  The torch-dynamo exports have no macro-ops; their
   expected counts are those of the same architecture's fp32-cpu export, judged for the norms only
   (attention and rotary of the torch form are another pass's work: reported, not judged).
4. Parity: `webnnc run OUT --inputs test_data_set_N --expect test_data_set_N` on the baseline, once
   unfused and once with `--fuse all`, within the corpus README tolerances (fp32 1e-4, int4 with
   fp32 I/O 1e-3, fp16 I/O 3e-2 + identical argmax on the logits, tie-aware); the max abs errors of
   both are reported.

KNOWN_MISSES lists the checks that are known to fail (with the reason); a listed check that passes
fails the suite too, so the list stays true.  Writes fusion_models.json / fusion_models.md into the
build folder and prints the table.  Exit 1 on any failure; without ../shared: skip (77), or fail
under CI=true.  usage: fusion_models.py WEBNNC
"""
import collections
import json
import os
import sys
import tempfile

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402
from genai_models import TORCH_DIM, same_argmax, test_logits, tolerance  # noqa: E402

MACROS = ("matmulNBits", "GQA", "norm", "skipNorm", "layerNorm", "rotary", "gatherBlockQuantized")
# (model, check) -> why it is known to fail
KNOWN_MISSES = {}


def attr(node, name, default=0):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def onnx_macros(model_dir):
    """(ONNX node count, macro-op counts) of the original model."""
    g = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False).graph
    c = collections.Counter()
    for n in g.node:
        if n.op_type == "MatMulNBits":  # a packed QKV read only by a Split: one projection per part
            c["matmulNBits"] += attr(n, "N")
        elif n.op_type == "GroupQueryAttention":
            c["GQA"] += 1
            c["rotary"] += 2 * (attr(n, "do_rotary") == 1)
        elif n.op_type == "SimplifiedLayerNormalization":
            c["norm"] += 1
        elif n.op_type == "SkipSimplifiedLayerNormalization":
            c["skipNorm"] += 1
        elif n.op_type in ("LayerNormalization", "SkipLayerNormalization"):
            c["layerNorm"] += 1
        elif n.op_type == "RotaryEmbedding":
            c["rotary"] += 1
        elif n.op_type == "GatherBlockQuantized":
            c["gatherBlockQuantized"] += 1
    return len(g.node), {k: c[k] for k in MACROS}


def fused_macros(out):
    """(node count, macro-op counts) of a converted --fuse all graph (rule in the docstring)."""
    g = json.load(open(os.path.join(out, "model.webnn.json")))
    c = collections.Counter()
    for n in g["nodes"]:
        op, opt = n["op"], n.get("options", {})
        if op == "matmulNBits":
            c["matmulNBits"] += opt["n"]
        elif op == "groupQueryAttention":
            c["GQA"] += 1
            c["rotary"] += 2 * bool(opt.get("doRotary"))
        elif op == "rotaryEmbedding":
            c["rotary"] += 1
        elif op == "rmsNorm":
            c["norm"] += 1
        elif op == "skipRmsNorm":
            c["skipNorm"] += 1
        elif op == "layerNormalization":
            c["layerNorm"] += 1
        elif op == "gatherBlockQuantized":
            c["gatherBlockQuantized"] += 1
        elif op in ("qkvProjection", "gatedMlp"):
            # input, skip?, ...: a skip written positionally or by name
            skip = len(n["inputs"]) > 1 or "skip" in opt
            c["skipNorm" if skip else "norm"] += 1
            if opt.get("bits", 0) > 0:
                c["matmulNBits"] += opt["n"]
    return len(g["nodes"]), {k: c[k] for k in MACROS}


def run_set(out, data, atol, argmax, fuse):
    """(ok, max abs over the outputs, note) of `webnnc run OUT [--fuse all] --expect` on one set."""
    with tempfile.TemporaryDirectory() as res:
        r = e2e.run_webnnc(["run", out] + (["--fuse", "all"] if fuse else []) +
                           ["--inputs", data, "--expect", data, "--atol", repr(atol), "--rtol", "0", "--output-dir", res])
        logits = os.path.join(res, "logits.npy")
        got = np.load(logits).astype(np.float64) if os.path.exists(logits) else None
    rows = e2e.parity_lines(r.stdout)
    worst = max((row["max_abs"] for row in rows if row["max_abs"] is not None), default=None)
    if r.returncode not in (0, 1) or not rows:
        return False, worst, f"run failed ({e2e.classify_run(r)}): {r.describe()}"
    bad = [row["text"] for row in rows if not row["ok"]]
    if argmax and got is not None:
        agree, n, _ = same_argmax(got, test_logits(data))
        if agree != n:
            bad.append(f"logits argmax differs in {n - agree} of {n} rows")
    return not bad, worst, "; ".join(bad)


def check_model(webnnc_dims, model, name, out_root, expected):
    """One model's row: ladder, fused convert, macro counts, parity.  Returns (row, failed checks)."""
    row = {"model": name, "ladder": None, "onnx_nodes": None, "fused_nodes": None, "origin": None, "fused": None,
           "runs": {}}
    checks = {}  # check -> (ok, detail)
    lad = e2e.run_webnnc(["ladder", model, "--json"] + webnnc_dims)
    checks["ladder"] = (lad.returncode == 0, lad.describe())
    if lad.returncode == 0:
        row["ladder"] = [(r["stage"], r["nodes"]) for r in json.loads(lad.stdout)["rows"]]
    row["onnx_nodes"], row["origin"] = onnx_macros(model)
    base, fused = os.path.join(out_root, name), os.path.join(out_root, name + "-fused")
    cb = e2e.convert(model, base, webnnc_dims)
    cf = e2e.run_webnnc(["convert", model, "-o", fused, "--fuse", "all"] + webnnc_dims)
    checks["convert"] = (cb.returncode == 0, cb.describe())
    checks["convert --fuse all"] = (cf.returncode == 0, cf.describe())
    if cf.returncode == 0:
        row["fused_nodes"], row["fused"] = fused_macros(fused)
        checks["nodes"] = (row["fused_nodes"] <= row["onnx_nodes"], f"{row['fused_nodes']} fused > {row['onnx_nodes']} ONNX")
        if row["ladder"]:
            last = row["ladder"][-1][1]
            checks["ladder = convert"] = (last == row["fused_nodes"], f"ladder {last} vs convert {row['fused_nodes']}")
        for k in expected:
            want, got = expected[k], row["fused"][k]
            checks[k] = (want == got, f"{k}: recovered {got}, origin {want}")
    atol, argmax = tolerance(name)
    for s in ("test_data_set_0", "test_data_set_1"):
        data = os.path.join(model, s)
        if cb.returncode != 0 or not os.path.isdir(data):
            continue
        for fuse in (False, True):
            ok, worst, note = run_set(base, data, atol, argmax, fuse)
            row["runs"][f"{s[-1]}{'f' if fuse else ''}"] = worst
            checks[f"{s} {'fused' if fuse else 'unfused'}"] = (ok, note)
    return row, checks


def fmt(x):
    return "-" if x is None else f"{x:.3g}"


def judge(name, checks, known_misses, failures):
    """Appends the failed checks of one model to failures; a known miss that passes is a failure too."""
    for check, (ok, detail) in checks.items():
        known = known_misses.get((name, check))
        if known and ok:
            failures.append(f"{name}: {check} passes now; drop it from KNOWN_MISSES")
        elif not ok and not known:
            failures.append(f"{name}: {check}: {detail}")
        elif not ok:
            print(f"known miss: {name}: {check} ({known}): {detail}")


EVIDENCE_HEAD = ("origin nodes | baseline | fully fused | recovered / {} macro-ops | left over | "
                 "max abs vs ORT set_0 unfused / fused | set_1 unfused / fused |")


def evidence_cells(r, want):
    """The evidence columns of one row (EVIDENCE_HEAD): node counts, recovered/wanted macro-ops,
    leftovers, parity of both test sets unfused / fused."""
    f = r["fused"] or {}
    macros = ", ".join(f"{k} {f.get(k, '-')}/{want[k]}" for k in want if want[k])
    base = r["ladder"][1][1] if r["ladder"] else "-"
    return (f"{r['onnx_nodes']} | {base} | {r['fused_nodes']} | {macros} | {r.get('leftover') or '-'} | "
            f"{fmt(r['runs'].get('0'))} / {fmt(r['runs'].get('0f'))} | {fmt(r['runs'].get('1'))} / {fmt(r['runs'].get('1f'))} |")


def report(stem, rows, md, failures, what):
    """Writes STEM.json / STEM.md into the build folder, prints the table and failures; exit code."""
    with open(os.path.join(e2e.build_root(), stem + ".json"), "w") as fh:
        json.dump(rows, fh, indent=1)
    with open(os.path.join(e2e.build_root(), stem + ".md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))
    for f in failures:
        print("FAIL " + f)
    print(f"{len(rows)} {what}, {len(failures)} failures")
    return 1 if failures else 0


def main():
    e2e.webnnc()
    shared = e2e.shared_dir_or_skip("fusion_models (fusion evidence on the model corpus)")
    models_dir = os.path.join(shared, "models")
    if e2e.use_working_vulkan_device() is None:
        return 1
    out_root = os.path.join(e2e.build_root(), "fusion-models")
    os.makedirs(out_root, exist_ok=True)
    names = sorted(d for d in os.listdir(models_dir) if os.path.isfile(os.path.join(models_dir, d, "model.onnx")))
    rows, failures = [], []
    for name in names:
        model = os.path.join(models_dir, name)
        torch = name.endswith("-torch-dynamo")
        if torch:  # no macro-ops in the export: the fp32-cpu sibling's norms
            sibling = os.path.join(models_dir, name.split("-")[0] + "-fp32-cpu")
            counts = onnx_macros(sibling)[1] if os.path.isdir(sibling) else {}
            expected = {k: counts[k] for k in ("matmulNBits", "norm", "skipNorm") if k in counts}
        else:
            expected = onnx_macros(model)[1]
        row, checks = check_model(TORCH_DIM if torch else [], model, name, out_root, expected)
        row["expected"] = expected
        rows.append(row)
        judge(name, checks, KNOWN_MISSES, failures)
        lad = " ".join(f"{n}" for _, n in row["ladder"] or [])
        print(f"{name:26s} ladder {lad:40s} fused {row['fused']} origin {row['origin']}", flush=True)
    for (name, check) in KNOWN_MISSES:
        if name not in names:
            failures.append(f"KNOWN_MISSES names {name}, which is not in the corpus")

    md = ["| model | ONNX nodes | ladder (Baseline .. +qkv/gatedMlp) | fused nodes | MatMulNBits sum n | GQA | norm/skip | "
          "rotary | gatherBlockQuantized | set_0 unfused / fused | set_1 unfused / fused |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        f, o = r["fused"] or {}, r["expected"] or {}

        def pair(k):
            return f"{f.get(k, '-')}/{o.get(k, '-')}"
        md.append(f"| {r['model']} | {r['onnx_nodes']} | {' '.join(str(n) for _, n in (r['ladder'] or [])[1:])} | "
                  f"{r['fused_nodes']} | {pair('matmulNBits')} | {pair('GQA')} | {pair('norm')}, {pair('skipNorm')} | "
                  f"{pair('rotary')} | {pair('gatherBlockQuantized')} | {fmt(r['runs'].get('0'))} / {fmt(r['runs'].get('0f'))} | "
                  f"{fmt(r['runs'].get('1'))} / {fmt(r['runs'].get('1f'))} |")
    md.append("")
    md.append("Macro-op columns: recovered/expected (the ONNX origin's; torch-dynamo: the fp32-cpu sibling's "
              "MatMulNBits and norms, '-' where not judged).  qwen3 webgpu models have no test sets.")
    return report("fusion_models", rows, md, failures, "models")


if __name__ == "__main__":
    sys.exit(main())
