#!/usr/bin/env python3
"""bench/torch_matvec.py - PyTorch (CUDA) baseline for `webnnc bench`: a buffer copy of the same
size (read + write bytes), the float16 S x S mat-vec y = x @ W over R weight sets (so that the
weights cannot stay in L2, as `webnnc bench matvec` does) and, where this torch has it, its int4
mat-vec (torch._weight_int4pack_mm: bfloat16 activations, groups of 32 along K with scales and
zero points, R weight sets as `webnnc bench matvec-int4`), timed with CUDA events (median of
--iters runs after warm-up).  The R products of a run are replayed as one CUDA graph (as webnnc
replays one command buffer), so Python's launch cost does not count; "graph": false in the output
when capture failed and the loop ran eagerly.  Prints one JSON object.  Needs python3 with torch and a CUDA GPU."""
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


def graphed(fn):
    """(callable replaying fn as a CUDA graph, True), or (fn, False) when capture fails."""
    try:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        return g.replay, True
    except Exception:  # noqa: BLE001 - fall back to eager launches
        torch.cuda.synchronize()
        return fn, False


def int4_matvec(S, iters, copy_bpus):
    """tinygemm int4 mat-vec (group 32, scales + zero points) over enough weight sets to defeat L2;
    None when this torch build lacks the packed-int4 ops."""
    try:
        dev = torch.device("cuda")
        group = 32
        wbytes = S * S // 2 + (S // group) * S * 2 * 2  # packed weights + bf16 (scale, zero) pairs
        R = max(1, -(-(256 << 20) // (S * S // 2)))
        x = torch.randn(1, S, dtype=torch.bfloat16, device=dev)
        packs = []
        for _ in range(R):
            q = torch.randint(0, 256, (S, S // 2), dtype=torch.uint8, device=dev)
            w = torch._convert_weight_to_int4pack(q, 8)
            sz = torch.rand(S // group, S, 2, dtype=torch.bfloat16, device=dev) * 0.01
            packs.append((w, sz))

        def run():
            for w, sz in packs:
                torch._weight_int4pack_mm(x, w, group, sz)

        run, graph = graphed(run)
        us = timed(run, iters)
        b = R * (wbytes + 4 * S)
        return {"size": S, "repeat": R, "graph": graph, "run_us": us, "per_item_us": us / R, "bytes": b, "gbps": b / us / 1e3,
                "pct_of_copy": 100.0 * (b / us) / copy_bpus, "op": "torch._weight_int4pack_mm (tinygemm, bf16)"}
    except Exception as e:  # noqa: BLE001 - any failure means "no baseline on this torch"
        return {"error": f"{type(e).__name__}: {e}"[:300]}


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

    matvecs, mv_graph = graphed(matvecs)
    mv_us = timed(matvecs, a.iters)
    mv_bytes = R * (wbytes + 4 * S)
    int4 = int4_matvec(S, a.iters, copy_bytes / copy_us)
    res = {
        "device": torch.cuda.get_device_name(dev),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "timing": "cuda-events",
        "copy": {"run_us": copy_us, "bytes": copy_bytes, "gbps": copy_bytes / copy_us / 1e3},
        "matvec_f16": {"size": S, "repeat": R, "graph": mv_graph, "run_us": mv_us, "per_item_us": mv_us / R, "bytes": mv_bytes,
                       "gbps": mv_bytes / mv_us / 1e3, "pct_of_copy": 100.0 * (mv_bytes / mv_us) / (copy_bytes / copy_us)},
        "matvec_int4": int4,
    }
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
