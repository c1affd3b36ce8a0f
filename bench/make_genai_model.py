#!/usr/bin/python3
"""make_genai_model.py - writes ONNX Runtime GenAI-shaped decoder models with random weights.

The graph reproduces what the ORT-GenAI model builder emits (docs: /work/shared/docs/ortgenai-ops.md
section 1; checked against the small builder outputs in /work/shared/models): the same op types,
domains, attributes, graph inputs/outputs, node/tensor/initializer names and order, value_info and
external data file `model.onnx.data`, plus `genai_config.json`. Only the weight values are random.
Quantized weights are drawn directly in the MatMulNBits layout (uint8 [N, k_blocks, 16], low nibble
first; signed fp scales [N, k_blocks]; symmetric => no zero points), never quantized from floats,
and every tensor is streamed to the data file in bounded chunks, so a 0.5B model needs < 1 GB RAM.

  make_genai_model.py [--preset P] [--arch A] [--precision int4|fp16|fp32] [--target dml|cpu|webgpu]
                      [--layers N --hidden H ...] [--bias-init random|zero] OUTDIR
      generate OUTDIR/{model.onnx, model.onnx.data, genai_config.json, test_data_set_0/input_N.pb}
      (test_data_set_0 = the corpus prefill step: 8 tokens, zero-length past; inputs only)
  make_genai_model.py --describe MODEL.onnx        one line: node count and op histogram
  make_genai_model.py --compare MINE.onnx REF.onnx structural diff (everything but weight values and
                                                   data offsets); exit 1 when they differ
  make_genai_model.py --check-outputs SET_DIR      ONNX Runtime's output_N.pb there are finite and the
                                                   logits are [1, 8, vocab]

Presets: tiny (the shared corpus sizes; --arch picks any of genai_arch.ARCHS: qwen2, llama, mistral,
gemma, gemma2, granite, olmo, nemotron, ernie, chatglm, phi3), qwen2-0.5b, smollm-135m, and full-size
gemma2-2b, phi3.5-mini, mistral-7b (issue 11; with --layers N for a reduced layer count).
--bias-init zero drops the qkv bias Adds like the builder does for all-zero biases (what a
Hugging Face random init gives, hence the README's 373-node Qwen2-0.5B); random keeps them.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import genai_arch as arch  # noqa: E402
from genai_arch import ARCHS  # noqa: E402
from genai_compare import PROMPT, check_outputs, compare, describe, load_structure  # noqa: E402

MS = "com.microsoft"
DATA_FILE = "model.onnx.data"
ALIGN = 64                    # byte alignment of each tensor in the data file
CHUNK_ELEMS = 1 << 22         # elements generated per streaming step
MAX_DIM = 1 << 24             # sanity bound on any config size

PRESETS = {
    "tiny": dict(layers=2, hidden=128, heads=4, kv_heads=2, head_dim=32, intermediate=256,
                 vocab=1024, max_pos=512, tie=True, bias_init="random"),
    "qwen2-0.5b": dict(arch="qwen2", layers=24, hidden=896, heads=14, kv_heads=2, head_dim=64,
                       intermediate=4864, vocab=151936, max_pos=32768, rope_theta=1e6,
                       rms_eps=1e-6, tie=True, bias_init="zero", bos=151643, eos=151645,
                       pad=151643),
    "smollm-135m": dict(arch="llama", layers=30, hidden=576, heads=9, kv_heads=3, head_dim=64,
                        intermediate=1536, vocab=49152, max_pos=2048, rope_theta=1e4,
                        rms_eps=1e-5, tie=True, bias_init="zero", bos=0, eos=0, pad=None),
    # issue 11's full-size shapes (HF configs; use --layers N for a reduced layer count)
    "gemma2-2b": dict(arch="gemma2", layers=26, hidden=2304, heads=8, kv_heads=4, head_dim=256,
                      intermediate=9216, vocab=256000, max_pos=8192, rope_theta=1e4, rms_eps=1e-6,
                      window=4096, attn_scale=256 ** -0.5, tie=True, bias_init="zero", bos=2, eos=1),
    "phi3.5-mini": dict(arch="phi3", layers=32, hidden=3072, heads=32, kv_heads=32, head_dim=96,
                        intermediate=8192, vocab=32064, max_pos=131072, original_max_pos=4096,
                        rope_theta=1e4, rms_eps=1e-5, window=262144, tie=False, bias_init="zero",
                        bos=1, eos=32000),
    "mistral-7b": dict(arch="mistral", layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128,
                       intermediate=14336, vocab=32000, max_pos=32768, rope_theta=1e4, rms_eps=1e-5,
                       window=4096, tie=False, bias_init="zero", bos=1, eos=2),
}

IO_TYPES = {"fp32": (TensorProto.FLOAT, np.float32), "fp16": (TensorProto.FLOAT16, np.float16)}
PROVIDER_OPTIONS = {"cpu": [], "dml": [{"dml": {"enable_graph_capture": "1"}}],
                    "webgpu": [{"webgpu": {"enableGraphCapture": "0", "validationMode": "basic"}}]}


def fail(msg):
    sys.exit(f"make_genai_model.py: error: {msg}")


# ---- configuration --------------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outdir", nargs="?")
    p.add_argument("--describe", metavar="MODEL")
    p.add_argument("--compare", nargs=2, metavar=("MINE", "REF"))
    p.add_argument("--check-outputs", metavar="SET_DIR")
    p.add_argument("--preset", choices=sorted(PRESETS), default="tiny")
    p.add_argument("--arch", choices=sorted(ARCHS))
    p.add_argument("--precision", choices=["int4", "fp16", "fp32"], default="int4")
    p.add_argument("--target", choices=sorted(PROVIDER_OPTIONS), default="dml")
    for name in ("layers", "hidden", "heads", "kv-heads", "head-dim", "intermediate", "vocab",
                 "max-pos"):
        p.add_argument("--" + name, type=int)
    p.add_argument("--rope-theta", type=float)
    p.add_argument("--rms-eps", type=float)
    p.add_argument("--tie", dest="tie", action="store_true", default=None)
    p.add_argument("--no-tie", dest="tie", action="store_false")
    p.add_argument("--bias-init", choices=["random", "zero"])
    p.add_argument("--block-size", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-test-inputs", action="store_true")
    return p.parse_args(argv)


def make_config(a):
    cfg = dict(PRESETS[a.preset])
    cfg.setdefault("arch", a.arch or "qwen2")
    if a.arch:
        cfg["arch"] = a.arch
    for key, value in ARCHS[cfg["arch"]].items():
        cfg.setdefault(key, value)
    for key in ("layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab",
                "max_pos", "rope_theta", "rms_eps", "tie", "bias_init"):
        value = getattr(a, key)
        if value is not None:
            cfg[key] = value
    cfg.setdefault("bos", 1)
    cfg.setdefault("eos", 2)
    cfg.setdefault("pad", 0)
    cfg.update(precision=a.precision, target=a.target, block_size=a.block_size, seed=a.seed,
               preset=a.preset)
    if cfg["precision"] == "fp32" and cfg["target"] != "cpu":
        fail("fp32 is the cpu target's io dtype (the builder makes fp16 for dml/webgpu)")
    for key in ("layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab",
                "max_pos"):
        if not 1 <= cfg[key] <= MAX_DIM:
            fail(f"{key}={cfg[key]} out of range [1, {MAX_DIM}]")
    if cfg["heads"] % cfg["kv_heads"]:
        fail(f"heads={cfg['heads']} is not a multiple of kv_heads={cfg['kv_heads']}")
    if cfg["head_dim"] % 2:
        fail(f"head_dim={cfg['head_dim']} must be even (rotary halves)")
    bs = cfg["block_size"]
    if bs < 16 or bs & (bs - 1):
        fail(f"block_size={bs} must be a power of 2 >= 16")
    if cfg["precision"] == "int4" and cfg["tie"] and cfg["hidden"] % bs:
        fail(f"tied int4 embeddings need hidden ({cfg['hidden']}) to be a multiple of block_size")
    if not (cfg["rope_theta"] > 0 and cfg["rms_eps"] > 0):
        fail("rope_theta and rms_eps must be positive")
    cfg["eps"] = float(np.float32(cfg["rms_eps"]))
    cfg.setdefault("original_max_pos", cfg["max_pos"] // 2)  # LongRoPE: the short cache's length
    if cfg["target"] == "cpu" and cfg["precision"] == "fp16":
        fail("cpu fp16 is not a builder combination (it emits MultiHeadAttention)")
    return cfg


# ---- streaming weight writer ----------------------------------------------------------------------

class DataWriter:
    """Appends tensors to model.onnx.data chunk by chunk and returns external TensorProtos."""

    def __init__(self, path, seed):
        self.file = open(path, "wb")
        self.rng = np.random.default_rng(seed)

    def close(self):
        self.file.close()

    def tensor(self, name, onnx_type, np_type, shape, fill):
        """fill(rng, first_row, rows) -> array of `rows` rows of shape[1:]; rows along dim 0."""
        self.file.write(b"\0" * (-self.file.tell() % ALIGN))
        offset = self.file.tell()
        row_elems = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1
        rows_per_chunk = max(1, CHUNK_ELEMS // max(1, row_elems))
        for first in range(0, shape[0], rows_per_chunk):
            rows = min(rows_per_chunk, shape[0] - first)
            chunk = np.ascontiguousarray(fill(self.rng, first, rows), dtype=np_type)
            if chunk.shape != (rows, *shape[1:]):
                raise AssertionError(f"{name}: chunk shape {chunk.shape}")
            chunk.tofile(self.file)
        length = self.file.tell() - offset
        t = TensorProto(name=name, data_type=onnx_type, dims=list(shape),
                        data_location=TensorProto.EXTERNAL)
        for key, value in (("location", DATA_FILE), ("offset", str(offset)), ("length", str(length))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        return t


# ---- graph builder --------------------------------------------------------------------------------

class GraphBuilder:
    """Collects nodes, initializers (float group, then quantized group) and value_info in builder order."""

    def __init__(self, cfg, writer):
        self.cfg, self.w = cfg, writer
        self.io_type, self.io_np = IO_TYPES["fp32" if cfg["target"] == "cpu" else "fp16"]
        self.nodes, self.float_inits, self.quant_inits, self.node_vi = [], [], [], []
        self.outputs = set()
        self.constants = set()

    # nodes and value_info
    def node(self, op, name, inputs, outputs, domain="", vi=None, **attrs):
        n = helper.make_node(op, inputs, outputs, name=name, domain=domain or None)
        n.attribute.extend(helper.make_attribute(k, v) for k, v in attrs.items())
        self.nodes.append(n)
        for out, info in zip(outputs, vi or []):
            if out and out not in self.outputs and info is not None:
                self.node_vi.append((out, info))
        return outputs[0]

    def act(self, width):
        return (self.io_type, ["batch_size", "sequence_length", width])

    def constant(self, value, dims, dtype=TensorProto.INT64):
        """Builder `make_constant`: /model/constant_nodes/<DTYPE>/<value> (value printed as Python does)."""
        out = arch.constant_name(dtype, value)
        if out not in self.constants:
            self.constants.add(out)
            tensor = helper.make_tensor(out, dtype, dims, value if dims else [value])
            # the builder's value_info gives every constant an empty shape
            self.node("Constant", out.replace("constants", "constant_nodes"), [], [out],
                      vi=[(dtype, [])], value=tensor)
        return out

    def scalar(self, value):
        """A scalar constant of the io dtype (builder /model/constants/FLOAT|FLOAT16/<value>)."""
        return self.constant(value, [], self.io_type)

    # initializers
    def float_init(self, name, shape, fill):
        self.float_inits.append(self.w.tensor(name, self.io_type, self.io_np, shape, fill))
        return name

    def quant_init(self, name, onnx_type, np_type, shape, fill):
        self.quant_inits.append(self.w.tensor(name, onnx_type, np_type, shape, fill))
        return name


def float_fill(shape, std, mean=0.0):
    def fill(rng, first, rows):
        return rng.standard_normal((rows, *shape[1:]), dtype=np.float32) * std + mean
    return fill


def nbits_fills(n, k, bs):
    """uint8 [N, k_blocks, bs/2] codes (K padding holds code 8 = 0) and signed scales [N, k_blocks]."""
    k_blocks = -(-k // bs)
    blob = bs // 2
    # codes q-8 uniform on [-8, 7] have std ~4.6; aim for weights with std ~1/sqrt(K)
    scale = 1.0 / (math.sqrt(k) * 4.6)

    def codes(rng, first, rows):
        b = rng.integers(0, 256, size=(rows, k_blocks, blob), dtype=np.uint8)
        if k % bs:
            flat = b.reshape(rows, k_blocks * blob)
            pad_from = k // 2  # element k lives in byte k/2 of the row (low nibble = even k)
            if k % 2:
                flat[:, pad_from] = (flat[:, pad_from] & 0x0F) | 0x80
                pad_from += 1
            flat[:, pad_from:] = 0x88
        return b

    def scales(rng, first, rows):
        mag = rng.uniform(0.5, 1.5, size=(rows, k_blocks)).astype(np.float32) * scale
        return np.where(rng.random((rows, k_blocks)) < 0.5, -mag, mag)  # symmetric => signed

    return k_blocks, blob, codes, scales


def linear(b, x, path, wname, k, n):
    """Builder MatMul / MatMulNBits for `path` (e.g. /model/layers.0/attn/q_proj)."""
    cfg = b.cfg
    out = f"{path}/MatMul/output_0"
    vi = [b.act(n)] if out != "logits" else None
    if cfg["precision"] != "int4":
        w = b.float_init(wname, [k, n], float_fill([k, n], 1.0 / math.sqrt(k)))
        return b.node("MatMul", f"{path}/MatMul", [x, w], [out], vi=vi)
    return b.node("MatMulNBits", f"{path}/MatMul_Q4", [x, wname + "_Q4", wname + "_scales"], [out],
                  domain=MS, vi=vi, **nbits_attrs(cfg, k, n))


def nbits_attrs(cfg, k, n):
    attrs = dict(K=k, N=n)
    if cfg["target"] in ("cpu", "webgpu"):
        attrs["accuracy_level"] = 4
    attrs.update(bits=4, block_size=cfg["block_size"])
    return attrs


def quant_weights(b, wname, k, n):
    """Writes <w>_Q4 and <w>_scales (the quantizer appends them in node order)."""
    k_blocks, blob, codes, scales = nbits_fills(n, k, b.cfg["block_size"])
    b.quant_init(wname + "_Q4", TensorProto.UINT8, np.uint8, [n, k_blocks, blob], codes)
    b.quant_init(wname + "_scales", b.io_type, b.io_np, [n, k_blocks], scales)


def rope_caches(cfg, b):
    """cos_cache / sin_cache initializers, or LongRoPE's If between two constant pairs (phi.py)."""
    rows = cfg["max_pos"]
    if not cfg["longrope"]:
        cos, sin = arch.rope_tables(cfg, cfg["rope_theta"], rows)
        b.float_init("cos_cache", list(cos.shape), lambda rng, first, n: cos[first:first + n])
        b.float_init("sin_cache", list(sin.shape), lambda rng, first, n: sin[first:first + n])
        return
    short, long, mscale = arch.longrope_factors(cfg)
    orig = cfg["original_max_pos"]
    large = arch.rope_tables(cfg, cfg["rope_theta"], rows, long, mscale)
    small = arch.rope_tables(cfg, cfg["rope_theta"], orig, short, mscale)
    sub = "/model/rope_caches_subgraph"
    width = "/model/attn_mask_reformat/attn_mask_subgraph/Gather/output_0"
    cond = b.node("Greater", f"{sub}/Greater", [width, b.constant(orig, [])], [f"{sub}/Greater/output_0"],
                  vi=[(TensorProto.BOOL, [])])

    def branch(tables, size, graph_name):
        nodes = [helper.make_node("Constant", [], [f"{kind}_cache_{size}"], name=f"/{size}/{kind}_cache/Constant",
                                  value=numpy_helper.from_array(t.astype(b.io_np), f"{kind}_cache_{size}"))
                 for kind, t in zip(("cos", "sin"), tables)]
        outs = [helper.make_tensor_value_info(f"{kind}_cache_{size}", b.io_type, list(t.shape))
                for kind, t in zip(("cos", "sin"), tables)]
        return helper.make_graph(nodes, graph_name, [], outs)
    b.node("If", f"{sub}/If", [cond], ["cos_cache", "sin_cache"],
           vi=[(b.io_type, ["max_sequence_length", "head_dim / 2"])] * 2,
           then_branch=branch(large, "large", "large_rope_caches_graph"),
           else_branch=branch(small, "small", "small_rope_caches_graph"))


def attention(b, cfg, i, h, rope_in_attn, seqlens_k, total_len):
    """Q/K/V projections (+ biases), rotary (dml: RotaryEmbedding nodes), GroupQueryAttention, o_proj."""
    lay, pre, H = f"/model/layers.{i}", f"model.layers.{i}", cfg["hidden"]
    nq, nkv, hd = cfg["heads"], cfg["kv_heads"], cfg["head_dim"]
    q_dim, kv_dim = nq * hd, nkv * hd
    int4 = cfg["precision"] == "int4"
    projections = [("q_proj", q_dim), ("k_proj", kv_dim), ("v_proj", kv_dim)] if not rope_in_attn \
        else [("qkv_proj", q_dim + 2 * kv_dim)]
    outs = [linear(b, h, f"{lay}/attn/{proj}", f"{pre}.attn.{proj}.MatMul.weight", H, n) for proj, n in projections]
    if int4:
        for proj, n in projections:
            quant_weights(b, f"{pre}.attn.{proj}.MatMul.weight", H, n)
    if cfg["qkv_bias"] and cfg["bias_init"] == "random":
        outs = [b.node("Add", f"{lay}/attn/{proj}/Add",
                       [o, b.float_init(f"{pre}.attn.{proj}.Add.bias", [n], float_fill([n], 0.1))],
                       [f"{lay}/attn/{proj}/Add/output_0"], vi=[b.act(n)])
                for o, (proj, n) in zip(outs, projections)]
    if i == 0:
        rope_caches(cfg, b)
    rot = int(cfg["partial_rotary"] * hd) if cfg["partial_rotary"] != 1.0 else 0
    if not rope_in_attn:
        q, k = [b.node("RotaryEmbedding", f"{lay}/attn/{r}_rotary/RotaryEmbedding",
                       [src, "position_ids", "cos_cache", "sin_cache"],
                       [f"{lay}/attn/{r}_rotary/RotaryEmbedding/output_0"], domain=MS, vi=[b.act(n)],
                       interleaved=cfg["interleaved"], num_heads=heads if rot else 0, rotary_embedding_dim=rot)
                for r, src, n, heads in (("q", outs[0], q_dim, nq), ("k", outs[1], kv_dim, nkv))]
        gqa_in, rope_in, do_rotary = [q, k, outs[2]], ["", ""], 0
    else:
        gqa_in, rope_in, do_rotary = [outs[0], "", ""], ["cos_cache", "sin_cache"], 1
    scale = cfg["attn_scale"] if cfg["attn_scale"] is not None else 1.0 / math.sqrt(hd)
    gqa_attrs = dict(num_heads=nq, kv_num_heads=nkv, scale=float(np.float32(scale)))
    if cfg["local_window_attr"]:
        gqa_attrs["local_window_size"] = cfg["window"] if arch.is_local(cfg, i) else -1
    gqa_attrs.update(softcap=float(cfg["attn_softcap"]), do_rotary=do_rotary, rotary_interleaved=cfg["interleaved"])
    attn = b.node("GroupQueryAttention", f"{lay}/attn/GroupQueryAttention",
                  gqa_in + [f"past_key_values.{i}.key", f"past_key_values.{i}.value", seqlens_k,
                            total_len] + rope_in + ["", "", ""],
                  [f"{lay}/attn/GroupQueryAttention/output_0", f"present.{i}.key", f"present.{i}.value"],
                  domain=MS, vi=[b.act(q_dim)], **gqa_attrs)
    o = linear(b, attn, f"{lay}/attn/o_proj", f"{pre}.attn.o_proj.MatMul.weight", q_dim, H)
    if int4:
        quant_weights(b, f"{pre}.attn.o_proj.MatMul.weight", q_dim, H)
    return o


def mlp(b, cfg, i, h):
    """gate/up projections, activation, product, down projection (Nemotron: up -> act -> down)."""
    lay, pre, H, inter = f"/model/layers.{i}", f"model.layers.{i}", cfg["hidden"], cfg["intermediate"]
    if cfg["gated"]:
        gate = linear(b, h, f"{lay}/mlp/gate_proj", f"{pre}.mlp.gate_proj.MatMul.weight", H, inter)
        up = linear(b, h, f"{lay}/mlp/up_proj", f"{pre}.mlp.up_proj.MatMul.weight", H, inter)
        act = arch.activation(b, cfg, i, gate, inter)
        x = b.node("Mul", f"{lay}/mlp/Mul", [act, up], [f"{lay}/mlp/Mul/output_0"], vi=[b.act(inter)])
        projs = (("gate_proj", H, inter), ("up_proj", H, inter), ("down_proj", inter, H))
    else:
        up = linear(b, h, f"{lay}/mlp/up_proj", f"{pre}.mlp.up_proj.MatMul.weight", H, inter)
        x = arch.activation(b, cfg, i, up, inter)
        projs = (("up_proj", H, inter), ("down_proj", inter, H))
    down = linear(b, x, f"{lay}/mlp/down_proj", f"{pre}.mlp.down_proj.MatMul.weight", inter, H)
    if cfg["precision"] == "int4":
        for proj, k, n in projs:
            quant_weights(b, f"{pre}.mlp.{proj}.MatMul.weight", k, n)
    return down


def decoder_layers(b, cfg, x, seqlens_k, total_len):
    """The layers (builder make_layer; Granite and Gemma-2 overrides); returns (residual, skip)."""
    H, rope_in_attn = cfg["hidden"], cfg["target"] != "dml"
    residual, skip = x, None
    for i in range(cfg["layers"]):
        if i == 0:
            h = arch.plain_norm(b, cfg, i, "input", residual, H)
        else:
            h, residual = arch.skip_norm(b, cfg, i, "input", residual, skip, H)
        o = attention(b, cfg, i, h, rope_in_attn, seqlens_k, total_len)
        if cfg["residual_scale"] is not None:
            o = arch.scale_mul(b, f"/model/layers.{i}/residual_mul/Mul_1", o, cfg["residual_scale"], H)
        if cfg["sandwich"]:
            o = arch.plain_norm(b, cfg, i, "post_attention", o, H)
            h, residual = arch.skip_norm(b, cfg, i, "pre_feedforward", residual, o, H)
        else:
            h, residual = arch.skip_norm(b, cfg, i, "post_attention", residual, o, H)
        skip = mlp(b, cfg, i, h)
        if cfg["residual_scale"] is not None:
            skip = arch.scale_mul(b, f"/model/layers.{i}/residual_mul/Mul_2", skip, cfg["residual_scale"], H)
        if cfg["sandwich"]:
            skip = arch.plain_norm(b, cfg, i, "post_feedforward", skip, H)
    return residual, skip


def build_graph(cfg, writer):
    b = GraphBuilder(cfg, writer)
    L, H, V = cfg["layers"], cfg["hidden"], cfg["vocab"]
    nkv = cfg["kv_heads"]
    split_qkv = cfg["target"] == "dml"
    int4 = cfg["precision"] == "int4"
    kv_shape = lambda seq: ["batch_size", nkv, seq, "kv_cache_dim"]  # noqa: E731
    b.outputs = {"logits"} | {f"present.{i}.{kind}" for i in range(L) for kind in ("key", "value")}

    # attention-mask subgraph (ortgenai-ops.md 1.4)
    sub = "/model/attn_mask_reformat/attn_mask_subgraph"
    one_vec = b.constant([1], [1])
    rsum = b.node("ReduceSum", f"{sub}/ReduceSum", ["attention_mask", one_vec], [f"{sub}/ReduceSum/output_0"],
                  vi=[(TensorProto.INT64, ["batch_size"])], keepdims=0)
    diff = b.node("Sub", f"{sub}/Sub", [rsum, one_vec], [f"{sub}/Sub/output_0"],
                  vi=[(TensorProto.INT64, ["batch_size"])])
    seqlens_k = b.node("Cast", f"{sub}/Sub/Cast", [diff], [f"{sub}/Sub/Cast/output_0"],
                       vi=[(TensorProto.INT32, ["batch_size"])], to=TensorProto.INT32)
    shape = b.node("Shape", f"{sub}/Shape", ["attention_mask"], [f"{sub}/Shape/output_0"],
                   vi=[(TensorProto.INT64, [2])])
    one = b.constant(1, [])
    width = b.node("Gather", f"{sub}/Gather", [shape, one], [f"{sub}/Gather/output_0"],
                   vi=[(TensorProto.INT64, [])], axis=0)
    total_len = b.node("Cast", f"{sub}/Gather/Cast", [width], [f"{sub}/Gather/Cast/output_0"],
                       vi=[(TensorProto.INT32, None)], to=TensorProto.INT32)

    # embedding (1.6)
    if cfg["tie"] and int4:
        dims = b.constant([V, H // 2], [2])
        packed = b.node("Reshape", "/model/embed_tokens/Reshape", ["lm_head.MatMul.weight_Q4", dims],
                        ["/model/embed_tokens/Reshape/output_0"], vi=[(TensorProto.UINT8, [V, H // 2])])
        x = b.node("GatherBlockQuantized", "/model/embed_tokens/GatherBlockQuantized",
                   [packed, "input_ids", "lm_head.MatMul.weight_scales"],
                   ["/model/embed_tokens/GatherBlockQuantized/output_0"], domain=MS, vi=[b.act(H)],
                   bits=4, block_size=cfg["block_size"], gather_axis=0, quantize_axis=1)
    elif cfg["tie"]:
        table = b.node("Transpose", "/model/embed_tokens/Transpose", ["lm_head.MatMul.weight"],
                       ["/model/embed_tokens/Transpose/output_0"], vi=[(b.io_type, [V, H])], perm=[1, 0])
        x = b.node("Gather", "/model/embed_tokens/Gather", [table, "input_ids"],
                   ["/model/embed_tokens/Gather/output_0"], vi=[b.act(H)])
    else:
        table = b.float_init("model.embed_tokens.weight", [V, H], float_fill([V, H], 1.0))
        x = b.node("Gather", "/model/embed_tokens/Gather", [table, "input_ids"],
                   ["/model/embed_tokens/Gather/output_0"], vi=[b.act(H)])

    if arch.embed_scale(cfg) != 1:
        x = arch.scale_mul(b, "/model/embed_tokens/Mul", x, arch.embed_scale(cfg), H)
    residual, skip = decoder_layers(b, cfg, x, seqlens_k, total_len)
    final, _ = arch.skip_norm(b, cfg, L, "final_norm", residual, skip, H, last=True)
    logits = "logits" if cfg["logits_scale"] is None and not cfg["final_softcap"] else "/lm_head/MatMul/output_0"
    if int4:
        b.node("MatMulNBits", "/lm_head/MatMul_Q4",
               [final, "lm_head.MatMul.weight_Q4", "lm_head.MatMul.weight_scales"], [logits],
               domain=MS, **nbits_attrs(cfg, H, V))
        quant_weights(b, "lm_head.MatMul.weight", H, V)
    else:
        b.float_init("lm_head.MatMul.weight", [H, V], float_fill([H, V], 1.0 / math.sqrt(H)))
        b.node("MatMul", "/lm_head/MatMul", [final, "lm_head.MatMul.weight"], [logits])
    if logits != "logits":
        arch.lm_head_tail(b, cfg, logits, V)

    inputs = [("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
              ("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"])]
    if split_qkv:
        inputs.append(("position_ids", TensorProto.INT64, ["batch_size", "sequence_length"]))
    inputs += [(f"past_key_values.{i}.{kind}", b.io_type, kv_shape("past_sequence_length"))
               for kind in ("key", "value") for i in range(L)]
    outputs = [("logits", b.io_type, ["batch_size", "sequence_length", V])]
    outputs += [(f"present.{i}.{kind}", b.io_type, kv_shape("total_sequence_length"))
                for kind in ("key", "value") for i in range(L)]
    inits = b.float_inits + b.quant_inits
    vinfo = [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in inits]
    vinfo += [helper.make_tensor_value_info(name, dtype, dims) for name, (dtype, dims) in b.node_vi]
    graph = helper.make_graph(b.nodes, "main_graph",
                              [helper.make_tensor_value_info(*v) for v in inputs],
                              [helper.make_tensor_value_info(*v) for v in outputs],
                              initializer=inits, value_info=vinfo)
    model = helper.make_model(graph, producer_name="onnxruntime-genai",
                              opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    return model


# ---- side files -----------------------------------------------------------------------------------

def genai_config(cfg):
    inputs = {"input_ids": "input_ids", "attention_mask": "attention_mask"}
    if cfg["target"] == "dml":
        inputs["position_ids"] = "position_ids"
    inputs.update(past_key_names="past_key_values.%d.key", past_value_names="past_key_values.%d.value")
    model = {"bos_token_id": cfg["bos"], "context_length": cfg["max_pos"], "decoder": {
        "session_options": {"log_id": "onnxruntime-genai",
                            "provider_options": PROVIDER_OPTIONS[cfg["target"]]},
        "filename": "model.onnx", "head_size": cfg["head_dim"], "hidden_size": cfg["hidden"],
        "inputs": inputs,
        "outputs": {"logits": "logits", "present_key_names": "present.%d.key",
                    "present_value_names": "present.%d.value"},
        "num_attention_heads": cfg["heads"], "num_hidden_layers": cfg["layers"],
        "num_key_value_heads": cfg["kv_heads"]},
        "eos_token_id": cfg["eos"]}
    if cfg["pad"] is not None:
        model["pad_token_id"] = cfg["pad"]
    model.update(type=cfg["arch"], vocab_size=cfg["vocab"])
    search = {"diversity_penalty": 0.0, "do_sample": False, "early_stopping": True, "length_penalty": 1.0,
              "max_length": cfg["max_pos"], "min_length": 0, "no_repeat_ngram_size": 0, "num_beams": 1,
              "num_return_sequences": 1, "past_present_share_buffer": True, "repetition_penalty": 1.0,
              "temperature": 1.0, "top_k": 50, "top_p": 1.0}
    return {"model": model, "search": search}


def write_test_inputs(cfg, out_dir):
    """test_data_set_0 inputs of the corpus prefill step (references come from ONNX Runtime)."""
    set_dir = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(set_dir, exist_ok=True)
    ids = np.array([PROMPT], dtype=np.int64) % cfg["vocab"]
    io_np = np.float32 if cfg["target"] == "cpu" else np.float16
    feeds = [("input_ids", ids), ("attention_mask", np.ones_like(ids))]
    if cfg["target"] == "dml":
        feeds.append(("position_ids", np.arange(ids.shape[1], dtype=np.int64)[None, :]))
    empty = np.zeros((1, cfg["kv_heads"], 0, cfg["head_dim"]), dtype=io_np)
    feeds += [(f"past_key_values.{i}.{kind}", empty) for kind in ("key", "value") for i in range(cfg["layers"])]
    for n, (name, value) in enumerate(feeds):
        with open(os.path.join(set_dir, f"input_{n}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, name).SerializeToString())


def generate(cfg, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    writer = DataWriter(os.path.join(out_dir, DATA_FILE), cfg["seed"])
    try:
        model = build_graph(cfg, writer)
    finally:
        writer.close()
    with open(os.path.join(out_dir, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    with open(os.path.join(out_dir, "genai_config.json"), "w") as f:
        json.dump(genai_config(cfg), f, indent=4)
        f.write("\n")
    if not cfg.get("no_test_inputs"):
        write_test_inputs(cfg, out_dir)
    return model


def main(argv):
    a = parse_args(argv)
    if a.describe:
        print(describe(load_structure(a.describe)))
        return 0
    if a.check_outputs:
        return check_outputs(a.check_outputs)
    if a.compare:
        bad = compare(*a.compare)
        print("structure equal" if not bad else f"structure differs in {bad} section(s)")
        return 1 if bad else 0
    if not a.outdir:
        fail("OUTDIR missing (see --help)")
    cfg = make_config(a)
    cfg["no_test_inputs"] = a.no_test_inputs
    model = generate(cfg, a.outdir)
    size = os.path.getsize(os.path.join(a.outdir, DATA_FILE))
    print(f"{a.outdir}: {cfg['preset']} {cfg['arch']} {cfg['precision']} {cfg['target']}: "
          f"{describe(model)}; weights {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
