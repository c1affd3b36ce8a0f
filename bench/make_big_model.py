#!/usr/bin/python3
"""make_big_model.py - writes a ~1 GB fp32 ONNX model with external data for the convert benchmark.

  /usr/bin/python3 bench/make_big_model.py OUTDIR [LAYERS] [SIZE]

OUTDIR/model.onnx: input x float32[1, SIZE] -> LAYERS chained MatMuls with SIZE x SIZE weights
(default 16 x 4096 x 4096 = 1.07 GB) -> Relu -> output y.  Weights go to OUTDIR/model.onnx.data,
each tensor written straight from its numpy array with tofile() (never two copies in memory) at a
4096-byte aligned offset, and referenced by external_data (location, offset, length).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

ALIGN = 4096


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    layers = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(0)
    inits, nodes, x = [], [], "x"
    with open(os.path.join(out_dir, "model.onnx.data"), "wb") as data:
        for i in range(layers):
            w = rng.standard_normal((size, size), dtype=np.float32)
            w *= 1.0 / np.sqrt(size)
            offset = data.tell()
            w.tofile(data)
            data.write(b"\0" * (-data.tell() % ALIGN))
            tensor = TensorProto(name=f"w{i}", data_type=TensorProto.FLOAT, dims=[size, size],
                                 data_location=TensorProto.EXTERNAL)
            for key, value in (("location", "model.onnx.data"), ("offset", str(offset)), ("length", str(w.nbytes))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
            inits.append(tensor)
            nodes.append(helper.make_node("MatMul", [x, f"w{i}"], [f"h{i}"], name=f"matmul{i}"))
            x = f"h{i}"
            del w
    nodes.append(helper.make_node("Relu", [x], ["y"], name="relu"))
    graph = helper.make_graph(nodes, "big_matmul_stack",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, size])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, size])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="webnnc bench/make_big_model.py")
    model.ir_version = 8
    with open(os.path.join(out_dir, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    total = os.path.getsize(os.path.join(out_dir, "model.onnx.data"))
    print(f"wrote {out_dir}/model.onnx: {layers} x MatMul {size}x{size} fp32, {total / 1e9:.2f} GB external data")


if __name__ == "__main__":
    main()
