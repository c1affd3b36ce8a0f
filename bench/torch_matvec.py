#!/usr/bin/env python3
"""bench/torch_matvec.py - PyTorch (CUDA) baseline for `webnnc bench`: a buffer copy of the same
size (read + write bytes) and the float16 S x S mat-vec y = x @ W over R weight sets (so that the
weights cannot stay in L2, as `webnnc bench matvec` does), timed with CUDA events (median of
--iters runs after warm-up).  Prints one JSON object.  Needs python3 with torch and a CUDA GPU."""
import argparse
import json
import statistics

import torch


def timed(fn, iters):
    start = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    for i in range(iters):
        start[i].record()
        fn()
        end[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in zip(start, end))  # us


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--copy-mib", type=int, default=256)
    ap.add_argument("--iters", type=int, default=50)
    a = ap.parse_args()
    dev = torch.device("cuda")
    n = a.copy_mib * 1024 * 1024 // 8
    src = torch.zeros(n, dtype=torch.int64, device=dev)
    dst = torch.empty_like(src)
    copy_us = timed(lambda: dst.copy_(src), a.iters)
    copy_bytes = 2 * n * 8
    S = a.size
    wbytes = S * S * 2
    R = max(1, -(-(256 << 20) // wbytes))
    x = torch.randn(1, S, dtype=torch.float16, device=dev)
    ws = [torch.randn(S, S, dtype=torch.float16, device=dev) * 0.01 for _ in range(R)]

    def matvecs():
        for w in ws:
            torch.matmul(x, w)

    mv_us = timed(matvecs, a.iters)
    mv_bytes = R * (wbytes + 4 * S)
    res = {
        "device": torch.cuda.get_device_name(dev),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "timing": "cuda-events",
        "copy": {"run_us": copy_us, "bytes": copy_bytes, "gbps": copy_bytes / copy_us / 1e3},
        "matvec_f16": {"size": S, "repeat": R, "run_us": mv_us, "per_item_us": mv_us / R, "bytes": mv_bytes,
                       "gbps": mv_bytes / mv_us / 1e3, "pct_of_copy": 100.0 * (mv_bytes / mv_us) / (copy_bytes / copy_us)},
    }
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
