#!/usr/bin/python3
"""make_seeds.py - seed corpora for the libFuzzer harnesses in tests/fuzz, from the real files in
the repository and ../shared (models, test data sets, genai configs, limits files).

Usage: tests/fuzz/make_seeds.py OUTDIR [--webnnc build/cli/webnnc]
       tests/fuzz/make_seeds.py --check [--webnnc build/cli/webnnc]   (into a temporary folder, then
       removed: only the check below; the `fuzz_seeds` test)

Writes OUTDIR/<harness>/ for every harness (onnx_load, onnx_dir, webnn_read, webnn_dir, npy,
tensor_pb, genai_config, limits, tokenizer; with --webnnc also webnn_text).  Folder harnesses take
several files joined with the separator of fuzz_util.h (model.onnx | model.onnx.data | w.bin; graph
JSON | manifest | weights).  With --webnnc, the test models are converted to webnn-graph folders
(webnn_dir seeds, and their text form for webnn_text) and run to get .npy outputs.  Exits 1 when a
harness would get no seed at all (a converter output renamed, a moved test file), naming it.
Needs only the Python standard library.  The corpora live outside git (run_fuzzers.sh keeps them
in its work folder); past crashes are in tests/fuzz/regressions/<harness>/.
"""
import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

SEP = b"|FZ|PART|"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(ROOT, "..", "shared")
DATA_HEAD = 48 << 10  # bytes of a real external data file kept in an onnx_dir seed


def read(path, limit=None):
    with open(path, "rb") as f:
        return f.read() if limit is None else f.read(limit)


def put(outdir, harness, name, data):
    d = os.path.join(outdir, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name.replace("/", "_")), "wb") as f:
        f.write(data)


# ---- a minimal protobuf encoder for one valid external-data model (no onnx module needed) ----
def varint(v):
    return bytes([v]) if v < 0x80 else bytes([v & 0x7F | 0x80]) + varint(v >> 7)


def field(num, wire, payload):
    key = varint(num << 3 | wire)
    if wire == 0:
        return key + varint(payload)
    if isinstance(payload, str):
        payload = payload.encode()
    return key + varint(len(payload)) + payload


def value_info(name, dims):
    shape = b"".join(field(1, 2, field(1, 0, d)) for d in dims)  # TensorShapeProto.dim.dim_value
    tensor_type = field(1, 0, 1) + field(2, 2, shape)  # elem_type FLOAT, shape
    return field(1, 2, name) + field(2, 2, field(1, 2, tensor_type))


def external_model(location, offset, length):
    """MatMul(x[1,2], w[2,3]) with w stored as external data at location/offset/length."""
    ext = lambda k, v: field(14, 2, field(1, 2, k) + field(2, 2, v))  # external_data entries
    w = (field(1, 0, 2) + field(1, 0, 3) + field(2, 0, 1) + field(8, 2, "w") + ext("location", location)
         + ext("offset", str(offset)) + ext("length", str(length)) + field(15, 0, 1))  # data_location EXTERNAL
    node = field(1, 2, "x") + field(1, 2, "w") + field(2, 2, "y") + field(3, 2, "mm") + field(4, 2, "MatMul")
    graph = (field(1, 2, node) + field(2, 2, "g") + field(5, 2, w) + field(11, 2, value_info("x", [1, 2]))
             + field(12, 2, value_info("y", [1, 3])))
    return field(1, 0, 8) + field(8, 2, field(2, 0, 17)) + field(7, 2, graph)


def onnx_seeds(out):
    models = sorted(glob.glob(os.path.join(SHARED, "models", "*", "model.onnx")))
    for m in models:
        tag = os.path.basename(os.path.dirname(m))
        put(out, "onnx_load", tag + ".onnx", read(m))
        data = m + ".data"
        head = read(data, DATA_HEAD) if os.path.exists(data) else b""
        put(out, "onnx_dir", tag, read(m) + SEP + head)
    for pattern in ("testdata/*.onnx", "testdata/bad/*.onnx", "testdata/contrib/*/*.onnx"):
        for m in sorted(glob.glob(os.path.join(ROOT, pattern))):
            put(out, "onnx_load", os.path.relpath(m, ROOT), read(m))
    for case in sorted(glob.glob(os.path.join(ROOT, "testdata", "bad", "ext_*", "model", "model.onnx"))):
        w = os.path.join(os.path.dirname(case), "w.bin")
        tail = read(w) if os.path.isfile(w) and not os.path.islink(w) else b""
        put(out, "onnx_dir", case.split(os.sep)[-3], read(case) + SEP + SEP + tail)
    weights = struct.pack("<6f", 0, 1, 2, 3, 4, 5)
    put(out, "onnx_dir", "ext_valid_data", external_model("model.onnx.data", 0, 24) + SEP + weights)
    put(out, "onnx_dir", "ext_valid_wbin", external_model("w.bin", 8, 24) + SEP + SEP + b"\0" * 8 + weights)
    put(out, "onnx_load", "ext_refused", external_model("w.bin", 0, 24))


def pb_seeds(out):
    files = glob.glob(os.path.join(SHARED, "models", "*", "test_data_set_*", "*.pb"))
    files += glob.glob(os.path.join(ROOT, "testdata", "**", "*.pb"), recursive=True)
    for f in sorted(files):
        if os.path.getsize(f) <= 64 << 10:
            put(out, "tensor_pb", os.path.relpath(f, os.path.join(ROOT, "..")), read(f))


def npy(descr, shape, data):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    hdr += " " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + data


def npy_seeds(out):
    cases = [("<f4", (2, 3), struct.pack("<6f", *range(6))), ("<f2", (4,), b"\0<" * 4),
             ("<i4", (1, 2), struct.pack("<2i", 7, -1)), ("<i8", (3,), struct.pack("<3q", 1, 2, 3)),
             ("<u8", (), struct.pack("<Q", 9)), ("|u1", (2, 2), b"\1\2\3\4"), ("|b1", (3,), b"\1\0\1"),
             ("|i1", (0, 4), b""), ("<u4", (1, 1, 1, 2), struct.pack("<2I", 5, 6))]
    for descr, shape, data in cases:
        put(out, "npy", "%s_%d.npy" % (descr[1:], len(shape)), npy(descr, shape, data))
    v2 = npy("<f4", (1,), struct.pack("<f", 1.5))
    hlen = struct.unpack("<H", v2[8:10])[0]
    put(out, "npy", "version2.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", hlen) + v2[10:])


TINY_BPE = (b'{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<0x41>": 3, "\\u2581": 4},'
            b' "merges": ["a b"], "byte_fallback": true, "unk_token": null},'
            b' "added_tokens": [{"id": 5, "content": "<s>", "special": true, "lstrip": false, "rstrip": false,'
            b' "normalized": false, "single_word": false}],'
            b' "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Prepend", "prepend": "\\u2581"},'
            b' {"type": "Replace", "pattern": {"String": " "}, "content": "\\u2581"}]},'
            b' "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": true},'
            b' {"type": "Split", "pattern": {"Regex": "\\\\p{L}+"}, "behavior": "Isolated", "invert": false}]},'
            b' "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},'
            b' {"Sequence": {"id": "A", "type_id": 0}}], "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [5],'
            b' "tokens": ["<s>"]}}},'
            b' "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "\\u2581"}, "content": " "},'
            b' {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}}')


def tokenizer_seeds(out):
    seen = set()
    for f in sorted(glob.glob(os.path.join(SHARED, "models", "*", "tokenizer.json"))):
        data = read(f)
        if data in seen:
            continue
        seen.add(data)
        cfg = os.path.join(os.path.dirname(f), "tokenizer_config.json")
        tag = os.path.basename(os.path.dirname(f))
        put(out, "tokenizer", tag, data + SEP + (read(cfg) if os.path.isfile(cfg) else b"") + SEP + "Hello wörld 123 \u4f60\u597d".encode())
    put(out, "tokenizer", "tiny_bpe", TINY_BPE + SEP + b'{"add_bos_token": true, "bos_token": "<s>"}' + SEP + b"ab Ab 12")
    put(out, "tokenizer", "bytelevel", b'{"model": {"type": "BPE", "vocab": {"h": 0, "i": 1, "hi": 2, "\\u0120": 3},'
        b' "merges": [["h", "i"]], "ignore_merges": true}, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": true,'
        b' "use_regex": true}, "post_processor": {"type": "ByteLevel"}, "decoder": {"type": "ByteLevel"}}' + SEP + SEP + b"hi hi")


def json_seeds(out):
    for f in sorted(glob.glob(os.path.join(SHARED, "models", "*", "genai_config.json"))):
        put(out, "genai_config", os.path.basename(os.path.dirname(f)) + ".json", read(f))
    for f in sorted(glob.glob(os.path.join(SHARED, "webnn-limits", "*.json"))):
        put(out, "limits", os.path.basename(f), read(f))
    put(out, "limits", "small.json", b'{"add": {"a": {"dataTypes": ["float32"], "rankRange": {"min": 0, "max": 4}}},'
        b' "input": {"dataTypes": ["float32", "int64"], "rankRange": {"min": 0, "max": 8}},'
        b' "maxTensorByteLength": 2147483648, "preferredInputLayout": "nhwc"}')
    for f in sorted(glob.glob(os.path.join(ROOT, "tests", "webnn", "fuzz_seeds", "*.json"))):
        put(out, "webnn_read", os.path.basename(f), read(f))


def webnn_seeds(out, webnnc):
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")))
    models += sorted(glob.glob(os.path.join(ROOT, "testdata", "contrib", "ops", "*.onnx")))
    with tempfile.TemporaryDirectory() as tmp:
        for m in models:
            tag = os.path.splitext(os.path.basename(m))[0]
            o = os.path.join(tmp, tag)
            r = subprocess.run([webnnc, "convert", m, "-o", o, "--text"], capture_output=True)
            if r.returncode != 0:  # e.g. tiny_mlp's symbolic batch
                r = subprocess.run([webnnc, "convert", m, "-o", o, "--text", "--fix", "batch=1"], capture_output=True)
            if r.returncode != 0:
                print("make_seeds: %s does not convert, skipped" % m, file=sys.stderr)
                continue
            # the names of lib/webnn/webnn_io.h (WN_GRAPH_FILE, WN_MANIFEST_FILE, WN_WEIGHTS_FILE)
            parts = [read(os.path.join(o, n)) for n in ("model.webnn.json", "manifest.json", "model.weights")]
            put(out, "webnn_text", tag + ".webnn", read(os.path.join(o, "model.webnn")))
            # fuzz_webnn_dir checks hashes for inputs of even length: one seed of each parity
            # (JSON takes a trailing space)
            for suffix, parity in (("", 0), ("_nohash", 1)):
                pad = b" " if len(SEP.join(parts)) % 2 != parity else b""
                put(out, "webnn_dir", tag + suffix, SEP.join([parts[0] + pad] + parts[1:]))
            put(out, "webnn_read", tag + ".json", parts[0])
            ds = os.path.join(os.path.dirname(m), tag, "test_data_set_0")
            if os.path.isdir(ds):
                res = os.path.join(tmp, tag + "-out")
                subprocess.run([webnnc, "run", o, "--inputs", ds, "--output-dir", res], capture_output=True)
                for f in sorted(glob.glob(os.path.join(res, "*.npy"))):
                    put(out, "npy", tag + "_" + os.path.basename(f), read(f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--webnnc", help="webnnc binary (converts the test models for webnn_dir seeds)")
    ap.add_argument("--check", action="store_true", help="write into a temporary folder and remove it")
    a = ap.parse_args()
    if (a.outdir is None) == (not a.check):
        ap.error("give OUTDIR or --check")
    if a.check:
        with tempfile.TemporaryDirectory() as tmp:
            a.outdir = tmp
            write_all(a)
    else:
        write_all(a)


def write_all(a):
    onnx_seeds(a.outdir)
    pb_seeds(a.outdir)
    npy_seeds(a.outdir)
    json_seeds(a.outdir)
    tokenizer_seeds(a.outdir)
    if a.webnnc:
        webnn_seeds(a.outdir, a.webnnc)
    # every harness source (a fuzz_*.c that defines LLVMFuzzerTestOneInput), less the two whose seeds
    # need --webnnc when it is not given
    harnesses = []
    for f in sorted(glob.glob(os.path.join(HERE, "fuzz_*.c"))):
        if re.search(r"LLVMFuzzerTestOneInput\([^)]*\)\s*\{", read(f).decode()):
            harnesses.append(os.path.basename(f)[len("fuzz_"):-len(".c")])
    if not a.webnnc:
        harnesses = [h for h in harnesses if h not in ("webnn_dir", "webnn_text")]
    empty = []
    for h in sorted(harnesses):
        d = os.path.join(a.outdir, h)
        n = len(os.listdir(d)) if os.path.isdir(d) else 0
        print("%-14s %4d seeds" % (h, n))
        if n == 0:
            empty.append(h)
    if empty:
        print("make_seeds: no seed for %s" % ", ".join(empty), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
