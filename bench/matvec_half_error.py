#!/usr/bin/python3
"""matvec_half_error.py - error of the float16-pair int4 mat-vec (runtime/shaders/matvec_rows.glsl,
HALF_DOT) against float64, emulated in numpy: (q - zp) / 16 exact in float16, a unit's 32 products
(four words of eight) summed as two lanes of sixteen float16 fmas (one rounding per fma), the two
lanes summed in float32, scaled per block of 32.  Prints relative L2 and max errors next to the exact f32 kernel and
to the rounding of the float64 result to the float16 output.  Usage: bench/matvec_half_error.py [N K]
"""
import sys

import numpy as np

N, K = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) == 3 else (512, 4096)
B = 32
rng = np.random.default_rng(1)
x = rng.standard_normal(K).astype(np.float16)
q = rng.integers(0, 16, (N, K))
z = rng.integers(0, 16, (N, K // B))
s = (rng.random((N, K // B)) * 0.02 + 0.001).astype(np.float16)
zk = np.repeat(z, B, axis=1)
xs = x.astype(np.float64)
ref = ((q - zk) * np.repeat(s.astype(np.float64), B, axis=1) * xs).sum(1)

d = ((q - zk) / 16.0).reshape(N, K // B, B // 8, 8)  # exact in float16
xw = xs.reshape(K // B, B // 8, 8)
lanes = np.zeros((N, K // B, 2))
for w in range(B // 8):  # the unit's words in order
    for j in range(4):  # lane 0 holds k = j, lane 1 k = j + 4 of each word (the kernel's pairs)
        for lane in range(2):
            k = j + 4 * lane
            total = d[:, :, w, k] * xw[None, :, w, k] + lanes[:, :, lane]  # exact, then one rounding
            lanes[:, :, lane] = total.astype(np.float16).astype(np.float64)
unit = (lanes[:, :, 0].astype(np.float32) + lanes[:, :, 1].astype(np.float32)) * np.float32(16)
half = (unit * s.astype(np.float32)).sum(1, dtype=np.float32)

exact = ((q - zk).astype(np.float32) * x.astype(np.float32)).reshape(N, K // B, B).sum(2, dtype=np.float32)
exact = (exact * s.astype(np.float32)).sum(1, dtype=np.float32)

for name, v in (("float16-pair kernel", half), ("exact f32 kernel", exact), ("float16 output rounding", ref.astype(np.float16))):
    e = v.astype(np.float64) - ref
    print(f"{name:24s} relative L2 {np.linalg.norm(e) / np.linalg.norm(ref):.2e}   max|err| / max|ref| {np.abs(e).max() / np.abs(ref).max():.2e}")
