#!/usr/bin/python3
"""gen_bad_inputs.py - writes the bad-input corpus for webnnc's loader and importer.

Usage: /usr/bin/python3 testdata/gen_bad_inputs.py OUTDIR

Every case is an ONNX file or a model folder that `webnnc convert` must refuse cleanly (exit 2,
one line on stderr, no output folder).  OUTDIR/cases.txt lists them, one per line:
    NAME<TAB>INPUT (relative to OUTDIR)<TAB>what is wrong
Cases that need files beside the model (external data escaping the folder) are folders
OUTDIR/NAME/ holding model/ (the input) and the files it points at.  Output is deterministic
(fixed random seed), so the corpus in testdata/bad can be regenerated and compared.
"""
import os
import random
import shutil
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 17)]


def model_of(nodes, inputs, outputs, inits=(), name="bad"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=OPSET, producer_name="gen_bad_inputs")
    m.ir_version = 8
    return m


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def small_valid_model():
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    n = helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")
    return model_of([n], [vi("x", [1, 2])], [vi("y", [1, 3])], [w])


def raw_tensor(name, dims, data_type, raw):
    """A TensorProto built field by field (helper.make_tensor would validate the dims)."""
    t = TensorProto()
    t.name = name
    t.data_type = data_type
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def external_tensor(name, dims, location, offset=None, length=None):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            e = t.external_data.add()
            e.key, e.value = key, str(value)
    return t


def model_using(tensor):
    """x[3] + tensor -> y: the tensor is really used by a node."""
    n = helper.make_node("Add", ["x", tensor.name], ["y"], name="add")
    return model_of([n], [vi("x", [3])], [vi("y", [3])], [tensor])


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field_bytes(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def deep_if_model(levels):
    """ModelProto whose graph nests If/then_branch `levels` deep, as raw wire bytes (the onnx
    Python package itself cannot build or serialize something this deep)."""
    inner = b""
    for _ in range(levels):
        attr = field_bytes(1, b"then_branch") + varint(20 << 3) + varint(5) + field_bytes(6, inner)
        node = field_bytes(4, b"If") + field_bytes(1, b"c") + field_bytes(5, attr)
        inner = field_bytes(1, node)  # GraphProto.node
    opset = field_bytes(8, varint(2 << 3) + varint(17))
    return varint(1 << 3) + varint(8) + opset + field_bytes(7, inner)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_bad_inputs.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cases = []
    rng = random.Random(1234)

    def file_case(name, data, why):
        write(os.path.join(out, name + ".onnx"), data)
        cases.append((name, name + ".onnx", why))

    def model_case(name, model, why):
        file_case(name, model.SerializeToString(), why)

    def folder_case(name, model, why, extra=None):
        """OUTDIR/NAME/model/model.onnx; extra(case_dir, model_dir) adds files around it."""
        case_dir = os.path.join(out, name)
        shutil.rmtree(case_dir, ignore_errors=True)
        model_dir = os.path.join(case_dir, "model")
        os.makedirs(model_dir)
        write(os.path.join(model_dir, "model.onnx"), model.SerializeToString())
        if extra:
            extra(case_dir, model_dir)
        cases.append((name, name + "/model", why))

    valid = small_valid_model().SerializeToString()
    file_case("empty", b"", "empty file")
    file_case("truncated", valid[: len(valid) // 2], "protobuf cut in the middle")
    file_case("truncated_last_byte", valid[:-1], "protobuf missing its last byte")
    file_case("random", bytes(rng.getrandbits(8) for _ in range(4096)), "random bytes")
    file_case("deep_recursion", deep_if_model(10000), "If/then_branch nested 10000 deep")
    no_graph = onnx.ModelProto()
    no_graph.ir_version = 8
    no_graph.opset_import.extend(OPSET)
    model_case("no_graph", no_graph, "model without a graph")

    f4 = struct.pack("<3f", 1, 2, 3)
    model_case("negative_dim", model_using(raw_tensor("w", [-1, 3], TensorProto.FLOAT, f4)),
               "initializer with a negative dimension")
    model_case("huge_dims", model_using(raw_tensor("w", [1 << 40, 1 << 40, 3], TensorProto.FLOAT, f4)),
               "initializer dims whose element count overflows")
    model_case("overflow_dims", model_using(raw_tensor("w", [1 << 32, 1 << 32], TensorProto.FLOAT, b"")),
               "dims whose product wraps to 0 in 64 bits")
    model_case("rank9", model_using(raw_tensor("w", [1] * 8 + [3], TensorProto.FLOAT, f4)),
               "initializer of rank 9")
    model_case("wrong_raw_length", model_using(raw_tensor("w", [3], TensorProto.FLOAT, f4[:8])),
               "raw_data shorter than dtype x shape")
    model_case("double_initializer", model_using(raw_tensor("w", [3], TensorProto.DOUBLE, bytes(24))),
               "float64 initializer (unsupported data type)")

    data = struct.pack("<3f", 1, 2, 3)

    def target_beside(case_dir, model_dir):
        write(os.path.join(case_dir, "target.bin"), data)

    folder_case("ext_dotdot", model_using(external_tensor("w", [3], "../target.bin", 0, 12)),
                "external data location with ..", target_beside)
    folder_case("ext_absolute", model_using(external_tensor("w", [3], "/etc/passwd", 0, 12)),
                "absolute external data location")

    def symlink_out(case_dir, model_dir):
        target_beside(case_dir, model_dir)
        os.symlink("../target.bin", os.path.join(model_dir, "link.bin"))

    folder_case("ext_symlink", model_using(external_tensor("w", [3], "link.bin", 0, 12)),
                "external data symlink pointing outside the model folder", symlink_out)
    folder_case("ext_missing", model_using(external_tensor("w", [3], "missing.bin", 0, 12)),
                "external data file does not exist")

    def short_data(case_dir, model_dir):
        write(os.path.join(model_dir, "w.bin"), data[:8])

    folder_case("ext_range", model_using(external_tensor("w", [3], "w.bin", 4, 12)),
                "external data range past the end of the file", short_data)

    def exact_data(case_dir, model_dir):
        write(os.path.join(model_dir, "w.bin"), data)

    folder_case("ext_length_mismatch", model_using(external_tensor("w", [3], "w.bin", 0, 8)),
                "external data length disagrees with dtype x shape", exact_data)

    cycle = [helper.make_node("Add", ["x", "a"], ["b"], name="n1"),
             helper.make_node("Relu", ["b"], ["a"], name="n2")]
    model_case("cycle", model_of(cycle, [vi("x", [3])], [vi("b", [3])]), "two nodes feeding each other")
    dangling = [helper.make_node("Relu", ["never_produced"], ["y"], name="r")]
    model_case("dangling_input", model_of(dangling, [vi("x", [3])], [vi("y", [3])]),
               "node input that nothing produces")
    missing = [helper.make_node("MatMul", ["x"], ["y"], name="mm_one_input")]
    model_case("missing_required_input", model_of(missing, [vi("x", [2, 2])], [vi("y", [2, 2])]),
               "MatMul with one input")
    unknown = [helper.make_node("Relu", ["x"], ["h"], name="r"),
               helper.make_node("FrobnicateTensor", ["h"], ["y"], name="f")]
    model_case("unknown_op", model_of(unknown, [vi("x", [3])], [vi("y", [3])]), "op no importer knows")

    with open(os.path.join(out, "cases.txt"), "w") as f:
        for name, path, why in cases:
            f.write(f"{name}\t{path}\t{why}\n")
    print(f"{len(cases)} bad inputs in {out}")


if __name__ == "__main__":
    main()
