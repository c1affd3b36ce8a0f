"""genai_arch.py - the architecture table of make_genai_model.py and the nodes that differ per
architecture, each written as the ORT-GenAI model builder writes it (onnxruntime-genai
src/python/py/models/builders/base.py and the per-model files named below; docs/architectures.md
lists the features and how webnnc handles them).

ARCHS[name] holds the builder's per-model settings:
  local_window_attr  GQA gets local_window_size (False: HF sliding_window=None, attribute omitted)
  window             sliding_window of the HF config (-1: none); window_layers: 'all' or 'odd'
                     (Gemma-2 `is_local`: layer_id % 2 == 1)
  qkv_bias           q/k/v projection biases
  norm               'rms' (Simplified*LayerNormalization) or 'layer' (LayerNormalization +
                     com.microsoft SkipLayerNormalization with a bias; builder `simple=False`)
  norm_offset        `add_offset`: the builder adds it to every norm weight (Gemma (1 + w),
                     Nemotron): no graph change, the weights are stored shifted
  sandwich           Gemma-2 norms after the attention and after the MLP (post_attention /
                     post_feedforward SimplifiedLayerNormalization, pre_feedforward skip norm)
  act, gated         MLP activation (builder make_activation): silu = Sigmoid + Mul; gelu_tanh =
                     Gelu(approximate="tanh") (FastGelu); gelu = Gelu(approximate="none"); relu2 =
                     Relu + Pow(2) (Nemotron, no gate projection: gated False)
  embed_scale        Mul after the embedding: 'sqrt' = round(sqrt(hidden), 2) (Gemma) or a number
                     (Granite embedding_multiplier)
  attn_scale         GQA scale: None = 1/sqrt(head_dim); a number (Granite attention_multiplier,
                     Gemma-2 query_pre_attn_scalar**-0.5)
  residual_scale     Granite residual_multiplier: Mul on the attention and MLP outputs
  logits_scale       Granite 1/logits_scaling: Mul after the LM head
  attn_softcap       GQA softcap (Gemma-2 attn_logit_softcapping)
  final_softcap      Div, Tanh, Mul after the LM head (Gemma-2 final_logit_softcapping)
  interleaved        rotary_interleaved (ERNIE, ChatGLM)
  partial_rotary     partial_rotary_factor: caches hold head_dim*factor/2 columns (Nemotron,
                     ChatGLM)
  longrope           Phi-3.5 LongRoPE: two cache pairs chosen by an If on the total length
                     (CPU/CUDA form; original_max_position_embeddings = max_pos / 2 here)
"""
import numpy as np
from onnx import TensorProto

BASE = dict(local_window_attr=True, window=-1, window_layers="all", qkv_bias=False, norm="rms",
            norm_offset=0.0, sandwich=False, act="silu", gated=True, embed_scale=1, attn_scale=None,
            residual_scale=None, logits_scale=None, attn_softcap=0.0, final_softcap=0.0,
            interleaved=0, partial_rotary=1.0, longrope=False, rms_eps=1e-5, rope_theta=1e4)


def arch(**changes):
    unknown = set(changes) - set(BASE)
    if unknown:
        raise AssertionError(f"unknown arch keys {unknown}")
    return {**BASE, **changes}


ARCHS = {
    # qwen2: HF config sets sliding_window=None -> GQA local_window_size omitted; q/k/v biases.
    "qwen2": arch(local_window_attr=False, qkv_bias=True, rms_eps=1e-6, rope_theta=1e6),
    # llama (also SmolLM/SmolLM2): no sliding_window attribute -> local_window_size=-1; no biases.
    "llama": arch(),
    # mistral.py: base Model; sliding_window (4096 in v0.1) on every layer.
    "mistral": arch(window=4),
    # gemma.py GemmaModel: embedding * round(sqrt(H), 2), add_offset 1, gelu_pytorch_tanh.
    "gemma": arch(embed_scale="sqrt", norm_offset=1.0, act="gelu_tanh", rms_eps=1e-6),
    # gemma.py Gemma2Model: + sandwich norms, softcaps, query_pre_attn_scalar, odd layers local.
    "gemma2": arch(embed_scale="sqrt", norm_offset=1.0, act="gelu_tanh", rms_eps=1e-6, sandwich=True,
                   window=4, window_layers="odd", attn_scale=float(24 ** -0.5), attn_softcap=50.0,
                   final_softcap=30.0),
    # granite.py: embedding/attention/residual/logits multipliers.
    "granite": arch(embed_scale=12.0, attn_scale=0.015625, residual_scale=0.22, logits_scale=0.125),
    # olmo.py: non-parametric LayerNorm (weight 1, bias 0), builder's default epsilon 1e-6.
    "olmo": arch(norm="layer", rms_eps=1e-6),
    # nemotron.py: LayerNorm with add_offset 1, up -> relu2 -> down, partial rotary 0.5.
    "nemotron": arch(norm="layer", norm_offset=1.0, act="relu2", gated=False, partial_rotary=0.5,
                     rms_eps=1e-6),
    # ernie.py: MistralModel with interleaved rotary.
    "ernie": arch(interleaved=1, rms_eps=1e-6, rope_theta=5e5),
    # chatglm.py: partial rotary 0.5, interleaved.
    "chatglm": arch(partial_rotary=0.5, interleaved=1),
    # phi.py Phi3MiniLongRoPEModel (Phi-3.5-mini): LongRoPE multi cache, sliding_window on all layers.
    "phi3": arch(window=262144, longrope=True),
}

ONNX_DTYPE_NAMES = {TensorProto.FLOAT: "FLOAT", TensorProto.FLOAT16: "FLOAT16", TensorProto.INT64: "INT64",
                    TensorProto.INT32: "INT32"}


def constant_name(dtype, value):
    """Builder constant naming: /model/constants/<DTYPE>/<value as Python prints it>."""
    return f"/model/constants/{ONNX_DTYPE_NAMES[dtype]}/{value}"


def embed_scale(cfg):
    s = cfg["embed_scale"]
    return float(np.round(np.sqrt(cfg["hidden"]), decimals=2)) if s == "sqrt" else s


def is_local(cfg, layer):
    return cfg["window"] > 0 and (cfg["window_layers"] == "all" or layer % 2 == 1)


def scale_mul(b, name, x, value, width, out=None):
    """Mul by a scalar constant of the io dtype (embedding, residual and logits multipliers)."""
    c = b.scalar(value)
    out = out or f"{name}/output_0"
    return b.node("Mul", name, [x, c], [out], vi=None if out == "logits" else [b.act(width)])


def norm_weights(b, cfg, pre, location, width):
    """The norm's weight (+ bias for LayerNorm) initializers, in the builder's order."""
    offset = cfg["norm_offset"]
    if cfg["norm"] == "layer" and cfg["arch"] == "olmo":   # OLMo: weight 1, bias 0
        weight = b.float_init(f"{pre}.{location}_layernorm.weight", [width], lambda r, f, n: np.ones(n))
        return [weight, b.float_init(f"{pre}.{location}_layernorm.bias", [width], lambda r, f, n: np.zeros(n))]
    std = 0.1 if cfg["bias_init"] == "random" else 0.0
    # stored = HF weight + offset; HF (1 + w) norms hold w ~ 0, so the stored weights are ~1 either way
    fill = (lambda r, f, n: r.standard_normal(n, dtype=np.float32) * std + (1.0 - offset) + offset)
    ws = [b.float_init(f"{pre}.{location}_layernorm.weight", [width], fill)]
    if cfg["norm"] == "layer":
        ws.append(b.float_init(f"{pre}.{location}_layernorm.bias", [width],
                               lambda r, f, n: r.standard_normal(n, dtype=np.float32) * 0.05))
    return ws


def plain_norm(b, cfg, layer, location, x, width):
    """[Simplified]LayerNormalization (builder make_layernorm with skip=False)."""
    pre, path = f"model.layers.{layer}", f"/model/layers.{layer}/{location}_layernorm"
    ws = norm_weights(b, cfg, pre, location, width)
    op = "SimplifiedLayerNormalization" if cfg["norm"] == "rms" else "LayerNormalization"
    return b.node(op, f"{path}/LayerNorm", [x] + ws, [f"{path}/output_0"], vi=[b.act(width)],
                  epsilon=cfg["eps"], axis=-1, stash_type=1)


def skip_norm(b, cfg, layer, location, residual, x, width, last=False):
    """Skip[Simplified]LayerNormalization: (output_0, output_3), output_3 absent for the final norm."""
    pre, path = f"model.layers.{layer}", f"/model/layers.{layer}/{location}_layernorm"
    ws = norm_weights(b, cfg, pre, location, width)
    op = "SkipSimplifiedLayerNormalization" if cfg["norm"] == "rms" else "SkipLayerNormalization"
    outs = [f"{path}/output_0"] if last else [f"{path}/output_0", "", "", f"{path}/output_3"]
    b.node(op, f"{path}/SkipLayerNorm", [residual, x] + ws, outs, domain="com.microsoft",
           vi=[b.act(width), None, None, b.act(width)], epsilon=cfg["eps"])
    return outs[0], (None if last else outs[3])


def activation(b, cfg, layer, x, width):
    """Builder make_activation on the gate (or up) projection's output."""
    path = f"/model/layers.{layer}/mlp"
    act = cfg["act"]
    if act == "silu":
        sig = b.node("Sigmoid", f"{path}/act_fn/Sigmoid", [x], [f"{path}/act_fn/Sigmoid/output_0"],
                     vi=[b.act(width)])
        return b.node("Mul", f"{path}/act_fn/Mul", [x, sig], [f"{path}/act_fn/Mul/output_0"], vi=[b.act(width)])
    if act in ("gelu_tanh", "gelu"):
        name = f"{path}/act_fn/{'FastGelu' if act == 'gelu_tanh' else 'Gelu'}"
        return b.node("Gelu", name, [x], [f"{name}/output_0"], vi=[b.act(width)],
                      approximate="tanh" if act == "gelu_tanh" else "none")
    if act == "relu2":
        relu = b.node("Relu", f"{path}/act_fn/Relu", [x], [f"{path}/act_fn/Relu/output_0"], vi=[b.act(width)])
        two = b.constant([2], [1], TensorProto.INT32)
        name = f"/model/layers.{layer}/mlp/square/Relu2/pow"
        return b.node("Pow", name, [relu, two], [f"{name}/output_0"], vi=[b.act(width)])
    raise AssertionError(act)


def lm_head_tail(b, cfg, x, vocab):
    """Scale and final-logit softcap after the LM head MatMul (builder make_lm_head order)."""
    steps = []
    if cfg["logits_scale"] is not None:
        steps.append("scale")
    if cfg["final_softcap"]:
        steps.append("softcap")
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        if step == "scale":
            x = scale_mul(b, "/lm_head/Mul", x, cfg["logits_scale"], vocab, "logits" if last else None)
            continue
        cap = cfg["final_softcap"]
        vi = [b.act(vocab)]
        d = b.node("Div", "/lm_head/softcap/Div", [x, b.scalar(cap)], ["/lm_head/softcap/Div/output_0"], vi=vi)
        t = b.node("Tanh", "/lm_head/softcap/Tanh", [d], ["/lm_head/softcap/Tanh/output_0"], vi=vi)
        out = "logits" if last else "/lm_head/softcap/Mul/output_0"
        x = b.node("Mul", "/lm_head/softcap/Mul", [t, b.scalar(cap)], [out], vi=None if last else vi)
    return x


def rope_tables(cfg, theta, length, factors=None, mscale=1.0):
    """Builder make_rotary_embedding_caches_from_scratch: cos/sin [length, rot/2] (float32)."""
    dim = int(cfg["partial_rotary"] * cfg["head_dim"])
    inv = 1.0 / (theta ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / dim))
    if factors is not None:
        inv = inv / factors
    freqs = np.outer(np.arange(length, dtype=np.float32), inv.astype(np.float32))
    return (np.cos(freqs) * mscale).astype(np.float32), (np.sin(freqs) * mscale).astype(np.float32)


def longrope_factors(cfg):
    """Deterministic short/long factors and mscale (Phi-3.5: long factors grow to ~1e2)."""
    half = int(cfg["partial_rotary"] * cfg["head_dim"]) // 2
    short = np.linspace(1.0, 1.2, half, dtype=np.float32)
    long = np.linspace(1.0, 8.0, half, dtype=np.float32)
    scale = cfg["max_pos"] / cfg["original_max_pos"]
    mscale = float(np.sqrt(1 + np.log(scale) / np.log(cfg["original_max_pos"])))
    return short, long, mscale
