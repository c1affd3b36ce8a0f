#!/usr/bin/python3
"""gen_models.py - makes the small test models of webnnc from standard ONNX ops only.

Writes, next to this script (or into the folder given as argv[1]):
  tiny_mlp.onnx        MatMul/Add/Relu/Softmax, symbolic batch dim "batch" (convert with --fix batch=2)
  tiny_decoder.onnx    a 2-layer decoder block: embedding Gather, RMSNorm (Pow/ReduceMean/Add/Sqrt/
                       Div/Mul), q/k/v MatMuls, rotary (Slice/Concat/Neg/Mul), causal attention
                       (Transpose/MatMul/Softmax/Where/Trilu mask), SiLU MLP, LM head
  <model>/test_data_set_0/input_N.pb   inputs as ONNX TensorProto files (ONNX backend-test layout)
Reference outputs (output_N.pb) are NOT made here: make_refs.mjs computes them with ONNX Runtime.
Everything is deterministic (fixed seeds); run with Debian's /usr/bin/python3 (python3-onnx, numpy).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Builder:
    """Collects nodes and initializers; names every intermediate uniquely."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def fresh(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, base, array):
        name = self.fresh(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, base, shape, scale):
        return self.const(base, (self.rng.standard_normal(shape) * scale).astype(np.float32))

    def op(self, op_type, inputs, **attrs):
        out = self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out + "_node", **attrs))
        return out


def write_test_set(model_dir, inputs):
    d = os.path.join(model_dir, "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    for i, (name, array) in enumerate(inputs):
        with open(os.path.join(d, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, name).SerializeToString())


def save(out_dir, stem, graph, inputs):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="webnnc testdata/gen_models.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = os.path.join(out_dir, stem + ".onnx")
    onnx.save(model, path)
    write_test_set(os.path.join(out_dir, stem), inputs)
    print(f"wrote {path} ({os.path.getsize(path)} bytes, {len(graph.node)} nodes)")


def tiny_mlp(out_dir):
    b = Builder(seed=1)
    h = b.op("MatMul", ["x", b.weight("w1", (16, 32), 0.25)])
    h = b.op("Relu", [b.op("Add", [h, b.weight("b1", (32,), 0.1)])])
    h = b.op("Add", [b.op("MatMul", [h, b.weight("w2", (32, 10), 0.25)]), b.weight("b2", (10,), 0.1)])
    b.nodes.append(helper.make_node("Softmax", [h], ["probs"], name="softmax_out", axis=-1))
    graph = helper.make_graph(b.nodes, "tiny_mlp",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
                              [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 10])],
                              b.inits)
    x = np.random.default_rng(11).standard_normal((2, 16)).astype(np.float32)
    save(out_dir, "tiny_mlp", graph, [("x", x)])


VOCAB, HIDDEN, HEADS, HEAD_DIM, SEQ, FFN, LAYERS = 64, 32, 2, 16, 8, 64, 2


def rms_norm(b, x):
    var = b.op("ReduceMean", [b.op("Pow", [x, b.const("two", np.float32(2.0))])], axes=[-1], keepdims=1)
    denom = b.op("Sqrt", [b.op("Add", [var, b.const("eps", np.float32(1e-5))])])
    weight = b.const("norm_w", (1.0 + 0.1 * b.rng.standard_normal(HIDDEN)).astype(np.float32))
    return b.op("Mul", [b.op("Div", [x, denom]), weight])


def heads(b, x):
    """[1, SEQ, HIDDEN] -> [1, HEADS, SEQ, HEAD_DIM]"""
    r = b.op("Reshape", [x, b.const("shape", np.array([1, SEQ, HEADS, HEAD_DIM], np.int64))])
    return b.op("Transpose", [r], perm=[0, 2, 1, 3])


def rotary(b, x, cos, sin):
    half = HEAD_DIM // 2
    axes = b.const("axes", np.array([3], np.int64))
    x1 = b.op("Slice", [x, b.const("s", np.array([0], np.int64)), b.const("e", np.array([half], np.int64)), axes])
    x2 = b.op("Slice", [x, b.const("s", np.array([half], np.int64)),
                        b.const("e", np.array([HEAD_DIM], np.int64)), axes])
    rot = b.op("Concat", [b.op("Neg", [x2]), x1], axis=3)
    return b.op("Add", [b.op("Mul", [x, cos]), b.op("Mul", [rot, sin])])


def attention(b, x, cos, sin, mask_cond):
    scale = 1.0 / np.sqrt(HIDDEN)
    q = rotary(b, heads(b, b.op("MatMul", [x, b.weight("wq", (HIDDEN, HIDDEN), scale)])), cos, sin)
    k = rotary(b, heads(b, b.op("MatMul", [x, b.weight("wk", (HIDDEN, HIDDEN), scale)])), cos, sin)
    v = heads(b, b.op("MatMul", [x, b.weight("wv", (HIDDEN, HIDDEN), scale)]))
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.op("Mul", [scores, b.const("inv_sqrt_d", np.float32(1.0 / np.sqrt(HEAD_DIM)))])
    scores = b.op("Where", [mask_cond, b.const("neg_big", np.float32(-1e9)), scores])
    ctx = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
    ctx = b.op("Reshape", [b.op("Transpose", [ctx], perm=[0, 2, 1, 3]),
                           b.const("shape", np.array([1, SEQ, HIDDEN], np.int64))])
    return b.op("MatMul", [ctx, b.weight("wo", (HIDDEN, HIDDEN), scale)])


def mlp(b, x):
    up = b.op("MatMul", [x, b.weight("w_up", (HIDDEN, FFN), 1.0 / np.sqrt(HIDDEN))])
    silu = b.op("Mul", [up, b.op("Sigmoid", [up])])
    return b.op("MatMul", [silu, b.weight("w_down", (FFN, HIDDEN), 1.0 / np.sqrt(FFN))])


def tiny_decoder(out_dir):
    b = Builder(seed=2)
    x = b.op("Gather", [b.weight("embed", (VOCAB, HIDDEN), 1.0), "input_ids"], axis=0)
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, HEAD_DIM, 2) / HEAD_DIM))
    angles = np.outer(np.arange(SEQ), inv_freq)
    angles = np.concatenate([angles, angles], axis=1)  # [SEQ, HEAD_DIM]
    cos = b.const("cos", np.cos(angles).astype(np.float32))
    sin = b.const("sin", np.sin(angles).astype(np.float32))
    # Causal mask: keep the lower triangle (Trilu upper=0), mask where the kept value is 0.
    lower = b.op("Trilu", [b.const("ones", np.ones((SEQ, SEQ), np.float32))], upper=0)
    mask_cond = b.op("Equal", [lower, b.const("zero", np.float32(0.0))])
    for _ in range(LAYERS):
        x = b.op("Add", [x, attention(b, rms_norm(b, x), cos, sin, mask_cond)])
        x = b.op("Add", [x, mlp(b, rms_norm(b, x))])
    b.nodes.append(helper.make_node("MatMul", [rms_norm(b, x), b.weight("lm_head", (HIDDEN, VOCAB), 0.2)],
                                    ["logits"], name="lm_head_node"))
    graph = helper.make_graph(b.nodes, "tiny_decoder",
                              [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, SEQ])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, SEQ, VOCAB])],
                              b.inits)
    ids = np.array([[1, 17, 42, 9, 7, 30, 51, 8]], np.int64)
    save(out_dir, "tiny_decoder", graph, [("input_ids", ids)])


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out_dir, exist_ok=True)
    tiny_mlp(out_dir)
    tiny_decoder(out_dir)


if __name__ == "__main__":
    main()
