#!/usr/bin/python3
"""genai_compare.py - make_genai_model.py's --describe / --compare / --check-outputs: node counts, a
structural diff of two ORT-GenAI models (everything but weight values and data offsets), and a check
of ONNX Runtime's outputs in a test set."""
import collections
import json
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, external_data_helper, helper, numpy_helper

PROMPT = [1, 17, 42, 99, 7, 300, 512, 8]  # the corpus prefill prompt (models/README.md)
DETERMINISTIC = ("cos_cache", "sin_cache")  # compared by value in --compare
CACHE_TOLERANCE = 1e-3        # fp16 rounding of values in [-1, 1] is <= 4.9e-4


def fail(msg):
    sys.exit(f"make_genai_model.py: error: {msg}")

# ---- describe / compare ---------------------------------------------------------------------------

def load_structure(path):
    try:
        return onnx.load(path, load_external_data=False)
    except Exception as e:  # noqa: BLE001 - report any parse failure as one line
        fail(f"{path}: cannot read ONNX model: {e}")


def histogram(model):
    return collections.Counter(n.op_type for n in model.graph.node)


def describe(model):
    hist = histogram(model)
    ops = ", ".join(f"{op}x{count}" for op, count in sorted(hist.items()))
    return f"{len(model.graph.node)} nodes: {ops}"


def value_sig(v):
    t = v.type.tensor_type
    dims = [d.dim_param or d.dim_value for d in t.shape.dim] if t.HasField("shape") else None
    return (v.name, t.elem_type, dims)


def attr_sig(a):
    value = helper.get_attribute_value(a)
    if isinstance(value, TensorProto):
        value = (value.name, value.data_type, list(value.dims), numpy_helper.to_array(value).tolist())
    elif isinstance(value, bytes):
        value = value.decode()
    elif isinstance(value, list):
        value = list(value)
    return (a.name, a.type, value)


def structure(model):
    g = model.graph
    return {
        "header": [(model.ir_version, model.producer_name, g.name),
                   sorted((o.domain, o.version) for o in model.opset_import)],
        "inputs": [value_sig(v) for v in g.input],
        "outputs": [value_sig(v) for v in g.output],
        "initializers": [(t.name, t.data_type, list(t.dims),
                          {e.key: e.value for e in t.external_data}.get("location")) for t in g.initializer],
        "nodes": [(n.domain, n.op_type, n.name, list(n.input), list(n.output),
                   [attr_sig(a) for a in n.attribute]) for n in g.node],
        "value_info": [value_sig(v) for v in g.value_info],
    }


def deterministic_tensors(model, path):
    """The initializers that do not depend on the random weights (rotary caches), as fp32 arrays."""
    base = os.path.dirname(os.path.abspath(path))
    found = {}
    for t in model.graph.initializer:
        if t.name in DETERMINISTIC:
            t = TensorProto.FromString(t.SerializeToString())
            if t.data_location == TensorProto.EXTERNAL:
                external_data_helper.load_external_data_for_tensor(t, base)
                t.data_location = TensorProto.DEFAULT
                del t.external_data[:]
            found[t.name] = numpy_helper.to_array(t).astype(np.float32)
    return found


def genai_config_of(path):
    cfg = os.path.join(os.path.dirname(os.path.abspath(path)), "genai_config.json")
    if not os.path.exists(cfg):
        return None
    with open(cfg) as f:
        return json.load(f)


def compare(mine_path, ref_path):
    """Prints the first differences per section; returns the number of differing sections."""
    mine, ref = load_structure(mine_path), load_structure(ref_path)
    if histogram(mine) != histogram(ref):
        print(f"op histogram differs:\n  mine: {describe(mine)}\n  ref:  {describe(ref)}")
    a, b = structure(mine), structure(ref)
    tables_a, tables_b = deterministic_tensors(mine, mine_path), deterministic_tensors(ref, ref_path)
    a["rotary caches (values)"] = sorted(tables_a)
    b["rotary caches (values)"] = sorted(tables_b)
    for name in sorted(set(tables_a) & set(tables_b)):
        x, y = tables_a[name], tables_b[name]
        err = float(np.max(np.abs(x - y))) if x.shape == y.shape else math.inf
        if not err <= CACHE_TOLERANCE:
            a["rotary caches (values)"].append(f"{name} max abs diff {err}")
    a["genai_config.json"], b["genai_config.json"] = [genai_config_of(mine_path)], [genai_config_of(ref_path)]
    bad = 0
    for key in a:
        if a[key] == b[key]:
            print(f"  {key}: {len(a[key])} equal")
            continue
        bad += 1
        print(f"  {key}: DIFFER ({len(a[key])} vs {len(b[key])})")
        pairs = [(i, x, y) for i, (x, y) in enumerate(zip(a[key], b[key])) if x != y]
        n = min(len(a[key]), len(b[key]))
        pairs += [(i, a[key][i] if i < len(a[key]) else "-", b[key][i] if i < len(b[key]) else "-")
                  for i in range(n, max(len(a[key]), len(b[key])))]
        for i, x, y in pairs[:3]:
            print(f"    [{i}] mine {x}\n    [{i}] ref  {y}")
    return bad


def check_outputs(set_dir):
    """Checks ONNX Runtime's outputs in set_dir: all finite; logits [1, prompt length, vocab]."""
    if not os.path.isdir(set_dir):
        fail(f"{set_dir}: not a folder")
    names = sorted(f for f in os.listdir(set_dir) if f.startswith("output_") and f.endswith(".pb"))
    if not names:
        fail(f"{set_dir}: no output_N.pb (run ONNX Runtime first)")
    for name in names:
        t = TensorProto()
        try:
            with open(os.path.join(set_dir, name), "rb") as f:
                t.ParseFromString(f.read())
        except Exception as e:  # noqa: BLE001 - one line for any unreadable tensor
            fail(f"{set_dir}/{name}: cannot read TensorProto: {e}")
        value = numpy_helper.to_array(t).astype(np.float32)
        if not np.isfinite(value).all():
            fail(f"{set_dir}/{name} ({t.name}): non-finite values")
        if t.name == "logits":
            if value.ndim != 3 or value.shape[:2] != (1, len(PROMPT)):
                fail(f"{set_dir}/{name}: logits shape {value.shape}")
            print(f"{set_dir}: {len(names)} outputs finite; logits {list(value.shape)} "
                  f"std {value.std():.3f} max |x| {np.abs(value).max():.3f}")
    return 0
