#version 450
// matmul.comp - batched C[M,N] = A[M,K] x B[K,N], tiled through shared memory: 64x64 output tile
// per workgroup of 256 threads, 4x4 outputs per thread, K tiles of 16, f32 accumulation.
// Batch dims (up to 4) broadcast by strides.  Grid: (ceil(N/64), ceil(M/64), batch).
// A's row stride is lda; accum adds to C (later slices of a K split, k_matmul.c).
#include "common.glsl"

#define BM 64
#define BN 64
#define BK 16
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

shared float As[BK][BM + 1];
shared float Bs[BK][BN];

void main() {
    uint tid = gl_LocalInvocationID.x;
    uint tx = tid % 16u, ty = tid / 16u;
    uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
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
    float acc[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) acc[i][j] = 0.0;
    for (uint k0 = 0u; k0 < pc.K; k0 += BK) {
        // load A tile (BM x BK) and B tile (BK x BN): 1024 elements each, 4 per thread
        for (uint e = tid; e < BM * BK; e += 256u) {
            uint r = e / BK, k = e % BK;
            uint gr = row0 + r, gk = k0 + k;
            As[k][r] = (gr < pc.M && gk < pc.K) ? float(a_in[aoff + gr * pc.lda + gk]) : 0.0;
        }
        for (uint e = tid; e < BK * BN; e += 256u) {
            uint k = e / BN, c = e % BN;
            uint gk = k0 + k, gc = col0 + c;
            Bs[k][c] = (gk < pc.K && gc < pc.N) ? float(b_in[boff + gk * pc.N + gc]) : 0.0;
        }
        barrier();
        for (uint k = 0u; k < BK; k++) {
            float av[4], bv[4];
            for (int i = 0; i < 4; i++) av[i] = As[k][ty * 4u + uint(i)];
            for (int j = 0; j < 4; j++) bv[j] = Bs[k][tx + 16u * uint(j)];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
        }
        barrier();
    }
    uint coff = uint(pc.base_c) + bidx * pc.M * pc.N;
    for (int i = 0; i < 4; i++) {
        uint r = row0 + ty * 4u + uint(i);
        if (r >= pc.M) continue;
        for (int j = 0; j < 4; j++) {
            uint c = col0 + tx + 16u * uint(j);
            if (c >= pc.N) continue;
            uint at = coff + r * pc.N + c;
            c_out[at] = A_T(pc.accum != 0u ? acc[i][j] + float(c_out[at]) : acc[i][j]);
        }
    }
}
