#!/usr/bin/env python3
"""bench/torch_prefill.py - PyTorch (CUDA) fp16 equivalents of `webnnc bench gemm-int4` and
`webnnc bench attention-prefill`: the float16 GEMM a [T, S] @ W [S, S] (the dequantized weight:
torch has no general int4 GEMM), and causal scaled-dot-product attention over a T-token prompt with
Qwen2-0.5B's layer shape (14 query heads, 2 KV heads of 64, the KV heads repeated as GQA needs),
timed with CUDA events (median of --iters runs after warm-up).  Prints one JSON object.  Needs
python3 with torch and a CUDA GPU."""
import argparse
import json

import torch
import torch.nn.functional as F

from torch_matvec import timed  # CUDA-event median after warm-up (same directory)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=int, default=512)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--iters", type=int, default=50)
    a = ap.parse_args()
    dev = torch.device("cuda")
    T, S = a.tokens, a.size
    x = torch.randn(T, S, device=dev, dtype=torch.float16)
    w = torch.randn(S, S, device=dev, dtype=torch.float16) * 0.02
    gemm_us = timed(lambda: x @ w, a.iters)
    N, KV, H = 14, 2, 64
    q = torch.randn(1, N, T, H, device=dev, dtype=torch.float16)
    k = torch.randn(1, KV, T, H, device=dev, dtype=torch.float16)
    v = torch.randn(1, KV, T, H, device=dev, dtype=torch.float16)

    def attn():
        kk = k.repeat_interleave(N // KV, dim=1)
        vv = v.repeat_interleave(N // KV, dim=1)
        return F.scaled_dot_product_attention(q, kk, vv, is_causal=True)

    attn_us = timed(attn, a.iters)
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "tokens": T, "size": S,
           "gemm_fp16_us": gemm_us, "gemm_tflops": 2.0 * T * S * S / gemm_us / 1e6,
           "attention_sdpa_us": attn_us, "attention_tflops": 4.0 * N * H * T * (T + 1) / 2 / attn_us / 1e6}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
