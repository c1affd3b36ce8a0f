#version 450
// matvec.comp - batched y[N] = x[K] x B[K,N] (matmul with M == 1).  B is row-major [K,N], so
// consecutive threads take consecutive columns (coalesced reads) and KS (spec constant 1) slices
// of K per column are summed through shared memory; f32 accumulation.  Workgroup = 64 x KS.
// Grid: (ceil(N/64), 1, batch).  Same push constants as matmul.comp (accum: add to C).
#include "common.glsl"

layout(constant_id = 1) const uint KS = 4;
PARAMS_BLOCK PC {
    uint M, N, K, brank;
    uint bshape[4];
    uint a_bst[4];
    uint b_bst[4];
    int base_a, base_b, base_c;
    uint lda;   // row stride of A (elements): K, or more when K is split
    uint accum; // 1: add to C (later slices of a K split, k_matmul.c)
} pc;
layout(std430, binding = 0) readonly buffer InA { A_T a_in[]; };
layout(std430, binding = 1) readonly buffer InB { A_T b_in[]; };
layout(std430, binding = 2) buffer Out { A_T c_out[]; };

shared float part[256];

void main() {
    uint tid = gl_LocalInvocationID.x;
    uint col = tid % 64u, slice = tid / 64u;
    uint n = gl_WorkGroupID.x * 64u + col;
    uint bidx = gl_WorkGroupID.z;
    uint aoff = uint(pc.base_a), boff = uint(pc.base_b);
    uint rest = bidx;
    for (int d = int(pc.brank) - 1; d >= 0; d--) {
        uint q = rest / pc.bshape[d];
        uint c = rest - q * pc.bshape[d];
        rest = q;
        aoff += c * pc.a_bst[d];
        boff += c * pc.b_bst[d];
    }
    float acc = 0.0;
    if (n < pc.N)
        for (uint k = slice; k < pc.K; k += KS) acc = fma(float(a_in[aoff + k]), float(b_in[boff + k * pc.N + n]), acc);
    part[tid] = acc;
    barrier();
    if (slice == 0u && n < pc.N) {
        float s = acc;
        for (uint j = 1u; j < KS; j++) s += part[j * 64u + col];
        uint at = uint(pc.base_c) + bidx * pc.N + n;
        c_out[at] = A_T(pc.accum != 0u ? s + float(c_out[at]) : s);
    }
}
