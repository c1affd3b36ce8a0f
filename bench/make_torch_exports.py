#!/usr/bin/env python3
"""make_torch_exports.py - small torch.onnx (dynamo) exports of the attention, rotary, norm and SiLU
forms that PyTorch code writes, with ONNX Runtime references, for webnnc's fusion tests (issue 11).

Each variant is a 2-layer random-weight decoder (hidden 64, 4 heads over 2 KV heads, head_dim 16,
vocab 256) written with one combination of forms:
  attention  manual   q @ k^T * scale + causal mask (built in the graph), softmax, @ v
             sdpa     F.scaled_dot_product_attention with an explicit float causal mask
             causal   F.scaled_dot_product_attention(is_causal=True), no mask
             gqa      F.scaled_dot_product_attention(is_causal=True, enable_gqa=True) on the KV heads
  repeat     expand   GQA by expand + reshape (transformers' repeat_kv)
             interleave  GQA by torch.repeat_interleave
  qk_norm    RMSNorm over head_dim on q and k before the rotation (Qwen3)
  positions  input    rotary cos/sin computed in the graph from a position_ids input
             arange   ... from torch.arange(sequence length) (no position_ids input)
  silu       fn       F.silu       mul   x * torch.sigmoid(x)
plus `hf-qwen3`, transformers' own Qwen3ForCausalLM (eager attention, no cache, positions from its
own arange) at the same size.

Every folder gets model.onnx (weights inline), test_data_set_0 (input_ids [1, 8] = PROMPT, positions
0..7), test_data_set_1 (input_ids [[123]], position 8 where the model takes positions) with outputs
from ONNX Runtime (CPU, graph optimizations off), and export.json (forms, versions, op histogram).
A variant whose export or reference fails is reported and left out (exit 1 if any failed).
Runs where torch, onnx and onnxruntime are installed (the GPU machine):
  make_torch_exports.py OUTDIR [--only NAME,NAME]
"""
import argparse
import collections
import json
import math
import os
import shutil
import sys
import traceback

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn.functional as F
from onnx import numpy_helper
from torch import nn

PROMPT = [1, 17, 42, 99, 7, 200, 255, 8]
DECODE_ID, DECODE_POS = 123, 8
SIZE = dict(layers=2, hidden=64, heads=4, kv_heads=2, head_dim=16, intermediate=128, vocab=256,
            theta=10000.0, eps=1e-6)

VARIANTS = {
    "qk-norm-manual": dict(attention="manual", repeat="expand", qk_norm=True, positions="input", silu="fn"),
    "interleave-sdpa-mask": dict(attention="sdpa", repeat="interleave", qk_norm=False, positions="input", silu="mul"),
    "sdpa-causal-arange": dict(attention="causal", repeat="expand", qk_norm=False, positions="arange", silu="fn"),
    "sdpa-enable-gqa": dict(attention="gqa", repeat=None, qk_norm=True, positions="input", silu="mul"),
    "manual-interleave-mul": dict(attention="manual", repeat="interleave", qk_norm=False, positions="arange", silu="mul"),
}


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(dim))
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Attention(nn.Module):
    def __init__(self, forms):
        super().__init__()
        s = SIZE
        self.forms, self.h, self.kv, self.d = forms, s["heads"], s["kv_heads"], s["head_dim"]
        self.q = nn.Linear(s["hidden"], self.h * self.d, bias=True)
        self.k = nn.Linear(s["hidden"], self.kv * self.d, bias=True)
        self.v = nn.Linear(s["hidden"], self.kv * self.d, bias=True)
        self.o = nn.Linear(self.h * self.d, s["hidden"], bias=False)
        if forms["qk_norm"]:
            self.q_norm, self.k_norm = RMSNorm(self.d, s["eps"]), RMSNorm(self.d, s["eps"])

    def repeat(self, x):
        groups = self.h // self.kv
        if self.forms["repeat"] == "interleave":
            return torch.repeat_interleave(x, groups, dim=1)
        b, kv, s, d = x.shape
        return x[:, :, None, :, :].expand(b, kv, groups, s, d).reshape(b, kv * groups, s, d)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.h, self.d)
        k = self.k(x).view(b, s, self.kv, self.d)
        v = self.v(x).view(b, s, self.kv, self.d).transpose(1, 2)
        if self.forms["qk_norm"]:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        att = self.forms["attention"]
        if att == "gqa":
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        else:
            k, v = self.repeat(k), self.repeat(v)
            if att == "causal":
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                mask = torch.full((s, s), float("-inf"), device=x.device).triu(1)[None, None]
                if att == "sdpa":
                    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
                else:
                    scores = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(self.d)) + mask
                    out = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.o(out.transpose(1, 2).reshape(b, s, self.h * self.d))


class Mlp(nn.Module):
    def __init__(self, forms):
        super().__init__()
        s = SIZE
        self.silu = forms["silu"]
        self.gate = nn.Linear(s["hidden"], s["intermediate"], bias=False)
        self.up = nn.Linear(s["hidden"], s["intermediate"], bias=False)
        self.down = nn.Linear(s["intermediate"], s["hidden"], bias=False)

    def forward(self, x):
        g = self.gate(x)
        g = F.silu(g) if self.silu == "fn" else g * torch.sigmoid(g)
        return self.down(g * self.up(x))


class Decoder(nn.Module):
    def __init__(self, forms):
        super().__init__()
        s = SIZE
        self.forms = forms
        self.embed = nn.Embedding(s["vocab"], s["hidden"])
        self.layers = nn.ModuleList()
        for _ in range(s["layers"]):
            layer = nn.Module()
            layer.norm1, layer.attn = RMSNorm(s["hidden"], s["eps"]), Attention(forms)
            layer.norm2, layer.mlp = RMSNorm(s["hidden"], s["eps"]), Mlp(forms)
            self.layers.append(layer)
        self.norm = RMSNorm(s["hidden"], s["eps"])
        self.head = nn.Linear(s["hidden"], s["vocab"], bias=False)
        d = s["head_dim"]
        self.register_buffer("inv_freq", 1.0 / (s["theta"] ** (torch.arange(0, d, 2).float() / d)), persistent=False)

    def forward(self, input_ids, position_ids=None):
        if position_ids is None:
            position_ids = torch.arange(input_ids.shape[1], device=input_ids.device)[None]
        inv = self.inv_freq[None, :, None].expand(position_ids.shape[0], -1, 1)
        freqs = (inv @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        x = self.embed(input_ids)
        for layer in self.layers:
            x = x + layer.attn(layer.norm1(x), cos, sin)
            x = x + layer.mlp(layer.norm2(x))
        return self.head(self.norm(x))


def hf_qwen3():
    from transformers import Qwen3Config, Qwen3ForCausalLM
    s = SIZE
    cfg = Qwen3Config(vocab_size=s["vocab"], hidden_size=s["hidden"], intermediate_size=s["intermediate"],
                      num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
                      num_key_value_heads=s["kv_heads"], head_dim=s["head_dim"], rope_theta=s["theta"],
                      rms_norm_eps=s["eps"], max_position_embeddings=512, tie_word_embeddings=False,
                      use_cache=False, attn_implementation="eager")
    model = Qwen3ForCausalLM(cfg)
    with torch.no_grad():  # norms and biases random, so that their handling matters
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.1 * torch.randn_like(p))

    class Wrap(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = model

        def forward(self, input_ids):
            return self.m(input_ids=input_ids, use_cache=False).logits
    # positions from transformers' own arange: given a position_ids input, transformers 5 builds a
    # packed-sequence mask from the position values (cumsum over their steps; docs/torch-exports.md)
    return Wrap(), dict(attention="transformers eager", repeat="expand", qk_norm=True, positions="arange",
                        silu="transformers ACT2FN silu")


def tensor_pb(path, name, array):
    t = numpy_helper.from_array(array, name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def export(name, model, forms, out):
    takes_pos = forms["positions"] == "input"
    ids = torch.tensor([PROMPT])
    args = (ids, torch.arange(len(PROMPT))[None]) if takes_pos else (ids,)
    seq = torch.export.Dim("sequence_length", min=1, max=512)
    shapes = {"input_ids": {1: seq}}
    names = ["input_ids"]
    if takes_pos:
        shapes["position_ids"] = {1: seq}
        names.append("position_ids")
    path = os.path.join(out, "model.onnx")
    torch.onnx.export(model, args, path, dynamo=True, input_names=names, output_names=["logits"],
                      dynamic_shapes=shapes, external_data=False)
    m = onnx.load(path)
    onnx.save(m, path)  # one file, weights inline
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    sets = [(np.array([PROMPT], np.int64), np.arange(len(PROMPT), dtype=np.int64)[None]),
            (np.array([[DECODE_ID]], np.int64), np.array([[DECODE_POS]], np.int64))]
    worst = 0.0
    for i, (ids_np, pos_np) in enumerate(sets):
        d = os.path.join(out, f"test_data_set_{i}")
        os.makedirs(d)
        feeds = {"input_ids": ids_np}
        if takes_pos:
            feeds["position_ids"] = pos_np
        for j, (k, v) in enumerate(feeds.items()):
            tensor_pb(os.path.join(d, f"input_{j}.pb"), k, v)
        (logits,) = sess.run(["logits"], feeds)
        tensor_pb(os.path.join(d, "output_0.pb"), "logits", logits)
        with torch.no_grad():
            want = model(*[torch.from_numpy(v) for v in feeds.values()]).numpy()
        worst = max(worst, float(np.abs(want - logits).max()))
    ops = collections.Counter(n.op_type for n in m.graph.node)
    info = dict(variant=name, forms=forms, size=SIZE, nodes=len(m.graph.node), ops=dict(sorted(ops.items())),
                opset=[{"domain": o.domain, "version": o.version} for o in m.opset_import],
                torch=torch.__version__, onnx=onnx.__version__, onnxruntime=ort.__version__,
                max_abs_ort_vs_torch=worst)
    with open(os.path.join(out, "export.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    return info


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir")
    p.add_argument("--only", help="comma-separated variant names (default: all and hf-qwen3)")
    a = p.parse_args()
    names = a.only.split(",") if a.only else list(VARIANTS) + ["hf-qwen3"]
    failed = []
    for i, name in enumerate(names):
        torch.manual_seed(1000 + i)
        out = os.path.join(a.outdir, name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        try:
            if name == "hf-qwen3":
                model, forms = hf_qwen3()
            else:
                forms = VARIANTS[name]
                model = Decoder(forms)
                with torch.no_grad():  # biases random, as in the corpus
                    for pn, prm in model.named_parameters():
                        if pn.endswith("bias"):
                            prm.normal_(0, 0.1)
            model.eval()
            info = export(name, model, forms, out)
            print(f"{name}: {info['nodes']} nodes, ORT vs torch {info['max_abs_ort_vs_torch']:.2e}", flush=True)
        except Exception:
            traceback.print_exc()
            print(f"{name}: FAILED", flush=True)
            shutil.rmtree(out, ignore_errors=True)
            failed.append(name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
