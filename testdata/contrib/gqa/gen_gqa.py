#!/usr/bin/python3
"""gen_gqa.py - makes tiny single-node com.microsoft GroupQueryAttention models (gqa_*.onnx) and
their inputs (gqa_cases.json, without outputs yet) for tests/passes/test_decompose_gqa.c.
The past/present buffers are capacity-sized (ORT-GenAI past_present_share_buffer layout): pasts hold random rows below
past_b = seqlens_k[b] + 1 - S and zeros above.  run_ort.mjs then runs every model with
onnxruntime-node and adds ORT's outputs to gqa_cases.json, so the expected values never
come from webnnc.

Usage: /usr/bin/python3 testdata/contrib/gqa/gen_gqa.py && node testdata/contrib/gqa/run_ort.mjs /tmp/ort
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))

# name, B, S, N, kvN, H, C, seqlens_k, packed, rotary(0/1/'i'), dtype, extra attributes
CASES = [
    ("prefill_packed_rotary", 1, 5, 4, 2, 16, 8, [4], True, 1, np.float32, {}),
    ("decode_packed_rotary", 1, 1, 4, 2, 16, 8, [5], True, 1, np.float32, {}),
    ("decode_batch2_softcap_window", 2, 1, 4, 1, 8, 8, [3, 6], False, 0, np.float32,
     {"softcap": 2.0, "local_window_size": 2}),
    ("prefill_window", 1, 6, 2, 2, 8, 8, [5], True, 0, np.float32, {"local_window_size": 2}),
    ("prefill_smooth_interleaved", 1, 4, 2, 1, 16, 6, [3], True, "i", np.float32,
     {"smooth_softmax": 1, "scale": 0.3}),
    ("decode_fp16_rotary", 1, 1, 4, 2, 16, 8, [6], True, 1, np.float16, {}),
]

CAMEL = {"num_heads": "numHeads", "kv_num_heads": "kvNumHeads", "scale": "scale", "softcap": "softcap",
         "local_window_size": "localWindowSize", "do_rotary": "doRotary",
         "rotary_interleaved": "rotaryInterleaved", "smooth_softmax": "smoothSoftmax"}
SLOTS = ["query", "key", "value", "past_key", "past_value", "seqlens_k", "total_sequence_length",
         "cos_cache", "sin_cache"]


def onnx_type(dt):
    return {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16,
            np.int32: TensorProto.INT32}[dt]


def make_case(rng, name, B, S, N, KV, H, C, seqlens, packed, rotary, dt, extra):
    feeds = {}
    width = (N + 2 * KV) * H if packed else N * H
    feeds["query"] = rng.uniform(-1, 1, (B, S, width)).astype(dt)
    if not packed:
        feeds["key"] = rng.uniform(-1, 1, (B, S, KV * H)).astype(dt)
        feeds["value"] = rng.uniform(-1, 1, (B, S, KV * H)).astype(dt)
    for cache in ("past_key", "past_value"):
        buf = np.zeros((B, KV, C, H), dt)
        for b in range(B):
            past = seqlens[b] + 1 - S
            buf[b, :, :past, :] = rng.uniform(-1, 1, (KV, past, H))
        feeds[cache] = buf
    feeds["seqlens_k"] = np.array(seqlens, np.int32)
    feeds["total_sequence_length"] = np.array(max(seqlens) + 1, np.int32)
    attrs = {"num_heads": N, "kv_num_heads": KV}
    if rotary:
        half, rows = H // 2, C + 4
        inv = 1.0 / (10000.0 ** (np.arange(half) * 2.0 / H))
        ang = np.outer(np.arange(rows), inv)
        feeds["cos_cache"] = np.cos(ang).astype(dt)
        feeds["sin_cache"] = np.sin(ang).astype(dt)
        attrs["do_rotary"] = 1
        attrs["rotary_interleaved"] = 1 if rotary == "i" else 0
    attrs.update(extra)
    names = [s if s in feeds else "" for s in SLOTS]
    while names and not names[-1]:
        names.pop()
    node = helper.make_node("GroupQueryAttention", names, ["output", "present_key", "present_value"],
                            domain="com.microsoft", name=name, **attrs)
    inputs = [helper.make_tensor_value_info(k, onnx_type(v.dtype.type), list(v.shape)) for k, v in feeds.items()]
    ty = onnx_type(dt)
    outputs = [helper.make_tensor_value_info("output", ty, [B, S, N * H]),
               helper.make_tensor_value_info("present_key", ty, [B, KV, C, H]),
               helper.make_tensor_value_info("present_value", ty, [B, KV, C, H])]
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                     helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.save(model, os.path.join(HERE, f"gqa_{name}.onnx"))
    options = {CAMEL[k]: (bool(v) if k in ("do_rotary", "rotary_interleaved", "smooth_softmax") else v)
               for k, v in attrs.items()}
    return {"name": name, "model": f"gqa_{name}.onnx", "options": options,
            "inputs": [{"slot": SLOTS.index(k), "name": k, "dtype": {np.float32: "float32",
                        np.float16: "float16", np.int32: "int32"}[v.dtype.type],
                        "shape": list(v.shape), "data": [float(x) for x in v.reshape(-1)]}
                       for k, v in feeds.items()]}


def make_interface_model(name, **bad_attrs):
    """A layer with ORT-GenAI's interface names and symbolic dims (not run: importer/kv_cache tests)."""
    N, KV, H, rows = 4, 2, 16, 64
    sym = ["batch_size", "sequence_length"]
    cache_in = ["batch_size", KV, "past_sequence_length", H]
    cache_out = ["batch_size", KV, "total_sequence_length", H]
    inputs = [helper.make_tensor_value_info("qkv", TensorProto.FLOAT, sym + [(N + 2 * KV) * H]),
              helper.make_tensor_value_info("past_key_values.0.key", TensorProto.FLOAT, cache_in),
              helper.make_tensor_value_info("past_key_values.0.value", TensorProto.FLOAT, cache_in),
              helper.make_tensor_value_info("seqlens_k", TensorProto.INT32, ["batch_size"]),
              helper.make_tensor_value_info("total_sequence_length", TensorProto.INT32, []),
              # unused here (the mask subgraph is not part of this test): declares the total length dim
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"])]
    ang = np.outer(np.arange(rows), 1.0 / (10000.0 ** (np.arange(H // 2) * 2.0 / H)))
    inits = [helper.make_tensor("cos_cache", TensorProto.FLOAT, [rows, H // 2], np.cos(ang).reshape(-1).tolist()),
             helper.make_tensor("sin_cache", TensorProto.FLOAT, [rows, H // 2], np.sin(ang).reshape(-1).tolist())]
    outputs = [helper.make_tensor_value_info("attn_out", TensorProto.FLOAT, sym + [N * H]),
               helper.make_tensor_value_info("present.0.key", TensorProto.FLOAT, cache_out),
               helper.make_tensor_value_info("present.0.value", TensorProto.FLOAT, cache_out)]
    node = helper.make_node("GroupQueryAttention",
                            ["qkv", "", "", "past_key_values.0.key", "past_key_values.0.value", "seqlens_k",
                             "total_sequence_length", "cos_cache", "sin_cache"],
                            ["attn_out", "present.0.key", "present.0.value"], domain="com.microsoft",
                            name="/model/layers.0/attn/GroupQueryAttention", num_heads=N, kv_num_heads=KV,
                            scale=1.0 / np.sqrt(H), local_window_size=-1, softcap=0.0, do_rotary=1,
                            rotary_interleaved=0, **bad_attrs)
    graph = helper.make_graph([node], name, inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                     helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.save(model, os.path.join(HERE, f"{name}.onnx"))


def main():
    make_interface_model("gqa_genai_interface")
    make_interface_model("gqa_bad_qk_output", qk_output=1)
    rng = np.random.default_rng(20240604)
    cases = [make_case(rng, *c) for c in CASES]
    with open(os.path.join(HERE, "gqa_cases.json"), "w") as f:
        json.dump({"cases": cases}, f)
    print(f"wrote {len(cases)} models and gqa_cases.json (inputs only: run run_ort.mjs next)")


if __name__ == "__main__":
    main()
