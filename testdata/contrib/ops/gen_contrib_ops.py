#!/usr/bin/python3
"""gen_contrib_ops.py - single-op ONNX models of the ORT-GenAI contrib ops (com.microsoft
MatMulNBits, SkipSimplifiedLayerNormalization, SkipLayerNormalization, RotaryEmbedding, GatherBlockQuantized, QuickGelu and
ai.onnx SimplifiedLayerNormalization) with random inputs in NAME/test_data_set_0/input_N.pb.

The reference outputs (output_N.pb) come from ONNX Runtime, never from webnnc:
    /usr/bin/python3 testdata/contrib/ops/gen_contrib_ops.py
    MODELS_DIR=testdata/contrib/ops node testdata/make_refs.mjs /tmp/ort   # onnxruntime-node there
tests/passes/test_decompose_ort.c converts each model, decomposes it to spec ops and compares.
"""
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(1234)


def save(name, nodes, inputs, outputs, inits, feeds):
    graph = helper.make_graph(nodes, name, inputs, outputs, [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 10
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    d = os.path.join(HERE, name, "test_data_set_0")
    shutil.rmtree(os.path.join(HERE, name), ignore_errors=True)
    os.makedirs(d)
    for i, (k, v) in enumerate(feeds.items()):
        with open(os.path.join(d, "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(v, k).SerializeToString())


def vi(name, arr_or_type, shape=None):
    if shape is None:
        return helper.make_tensor_value_info(name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[arr_or_type.dtype], arr_or_type.shape)
    return helper.make_tensor_value_info(name, arr_or_type, shape)


def f32(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def matmul_nbits(name, bits, block, k, n, zp, bias):
    kb = (k + block - 1) // block
    a = f32(2, 3, k)
    inits = {"B": rng.integers(0, 256, (n, kb, block * bits // 8), dtype=np.uint8),
             "scales": f32(n, kb, lo=-0.2, hi=0.2)}
    names = ["A", "B", "scales", "", "", ""]
    if zp:
        inits["zero_points"] = rng.integers(0, 256, (n, (kb * bits + 7) // 8), dtype=np.uint8)
        names[3] = "zero_points"
    if bias:
        inits["bias"] = f32(n)
        names[5] = "bias"
    while names[-1] == "":
        names.pop()
    node = helper.make_node("MatMulNBits", names, ["Y"], domain="com.microsoft", K=k, N=n, bits=bits,
                            block_size=block, accuracy_level=0)
    save(name, [node], [vi("A", a)], [vi("Y", TensorProto.FLOAT, [2, 3, n])], inits, {"A": a})


def layer_norms():
    x, s = f32(2, 3, 16, lo=-3, hi=3), f32(16, lo=0.5, hi=1.5)
    node = helper.make_node("SimplifiedLayerNormalization", ["X", "scale"], ["Y"], axis=-1, epsilon=1e-5, stash_type=1)
    save("simplified_layer_norm", [node], [vi("X", x)], [vi("Y", TensorProto.FLOAT, [2, 3, 16])], {"scale": s}, {"X": x})
    inp, skip = f32(2, 3, 16, lo=-2, hi=2), f32(2, 3, 16, lo=-2, hi=2)
    node = helper.make_node("SkipSimplifiedLayerNormalization", ["input", "skip", "gamma", "bias"],
                            ["output", "", "", "sum"], domain="com.microsoft", epsilon=1e-6)
    save("skip_simplified_layer_norm", [node], [vi("input", inp), vi("skip", skip)],
         [vi("output", TensorProto.FLOAT, [2, 3, 16]), vi("sum", TensorProto.FLOAT, [2, 3, 16])],
         {"gamma": f32(16), "bias": f32(16)}, {"input": inp, "skip": skip})


def rotary(name, four_d, interleaved, pos_offset):
    heads, head, maxpos, seq = 2, 8, 16, 3
    x = f32(1, heads, seq, head, lo=-2, hi=2) if four_d else f32(1, seq, heads * head, lo=-2, hi=2)
    pos = np.array([5], np.int64) if pos_offset else rng.integers(0, maxpos, (1, seq)).astype(np.int64)
    t = np.arange(maxpos, dtype=np.float32)[:, None] * (1.0 / 10000 ** (np.arange(0, head, 2) / head))[None, :]
    inits = {"cos_cache": np.cos(t).astype(np.float32), "sin_cache": np.sin(t).astype(np.float32)}
    node = helper.make_node("RotaryEmbedding", ["input", "position_ids", "cos_cache", "sin_cache"], ["output"],
                            domain="com.microsoft", interleaved=int(interleaved))
    save(name, [node], [vi("input", x), vi("position_ids", pos)], [vi("output", TensorProto.FLOAT, list(x.shape))],
         inits, {"input": x, "position_ids": pos})


def gather_block_quantized():
    rows, cols, block = 8, 64, 32
    idx = np.array([[3, 0, 7]], np.int64)
    inits = {"data": rng.integers(0, 256, (rows, cols // 2), dtype=np.uint8),
             "scales": f32(rows, cols // block, lo=-0.5, hi=0.5)}
    node = helper.make_node("GatherBlockQuantized", ["data", "indices", "scales"], ["output"], domain="com.microsoft",
                            bits=4, block_size=block, gather_axis=0, quantize_axis=1)
    save("gather_block_quantized", [node], [vi("indices", idx)], [vi("output", TensorProto.FLOAT, [1, 3, cols])],
         inits, {"indices": idx})


def quick_gelu():
    x = f32(3, 7, lo=-6, hi=6)
    node = helper.make_node("QuickGelu", ["X"], ["Y"], domain="com.microsoft")
    save("quick_gelu", [node], [vi("X", x)], [vi("Y", TensorProto.FLOAT, [3, 7])], {}, {"X": x})


def skip_layer_norm():
    """com.microsoft SkipLayerNormalization (OLMo, Nemotron): gamma, beta, bias, the sum output."""
    inp, skip = f32(2, 3, 16, lo=-2, hi=2), f32(2, 3, 16, lo=-2, hi=2)
    node = helper.make_node("SkipLayerNormalization", ["input", "skip", "gamma", "beta", "bias"],
                            ["output", "", "", "sum"], domain="com.microsoft", epsilon=1e-6)
    save("skip_layer_norm", [node], [vi("input", inp), vi("skip", skip)],
         [vi("output", TensorProto.FLOAT, [2, 3, 16]), vi("sum", TensorProto.FLOAT, [2, 3, 16])],
         {"gamma": f32(16), "beta": f32(16), "bias": f32(16)}, {"input": inp, "skip": skip})


matmul_nbits("matmul_nbits_4bit_zp_bias", 4, 16, 40, 5, True, True)
matmul_nbits("matmul_nbits_8bit", 8, 32, 64, 6, False, False)
matmul_nbits("matmul_nbits_4bit_sym", 4, 32, 64, 7, False, False)
layer_norms()
rotary("rotary_embedding_3d", False, False, False)
rotary("rotary_embedding_4d_interleaved_offset", True, True, True)
gather_block_quantized()
quick_gelu()
skip_layer_norm()  # last: the cases above keep their random values
