#version 450
// ext_fused_tiled.comp - qkvProjection / gatedMlp with float weights W [K, N] (bits 0) for many
// activation rows (prefill), fully fused (ext_fused.glsl): a tiled GEMM of 64 x 64 outputs per
// workgroup of 256 invocations (4 x 4 each, K tiles of 16, f32 accumulation).  The workgroup first
// computes the reciprocal RMS of its 64 rows (4 invocations per row), then normalizes the
// activation tile as it stages it in shared memory (h = v * inv_rms * normScale), so the normalized
// input never goes to device memory.  gatedMlp stages the gate and the up column tiles and writes
// act(gate) * up (activation_math.glsl).  Grid: x = 64-column tiles of the split, y = 64-row tiles.  Workgroup size 256.
#include "common.glsl"
#include "ext_fused.glsl"

#define BM 64u
#define BN 64u
#define BK 16u

shared float As[BK][BM + 1u];
shared float Bs[BK][BN];
shared float Bu[BK][BN];
shared float part[256];
shared float inv_s[BM];

void main() {
    uint tid = gl_LocalInvocationID.x, tx = tid % 16u, ty = tid / 16u;
    uint row0 = gl_WorkGroupID.y * BM, c0 = gl_WorkGroupID.x * BN;
    {
        uint r = tid / 4u, m = row0 + r;
        float ss = 0.0;
        if (m < pc.M)
            for (uint k = tid % 4u; k < pc.K; k += 4u) {
                float v = fused_value(m, k, gl_WorkGroupID.x == 0u);
                ss = fma(v, v, ss);
            }
        part[tid] = ss;
    }
    barrier();
    if (tid < BM) inv_s[tid] = fused_inv_rms(part[4u * tid] + part[4u * tid + 1u] + part[4u * tid + 2u] + part[4u * tid + 3u]);
    barrier();
    float acc[4][4], accu[4][4];
    for (uint i = 0u; i < 4u; i++)
        for (uint j = 0u; j < 4u; j++) acc[i][j] = accu[i][j] = 0.0;
    for (uint k0 = 0u; k0 < pc.K; k0 += BK) {
        for (uint e = tid; e < BM * BK; e += 256u) {
            uint r = e / BK, k = e % BK, gr = row0 + r, gk = k0 + k;
            As[k][r] = gr < pc.M && gk < pc.K ? fused_value(gr, gk, false) * inv_s[r] * float(scale_in[pc.base_scale + gk]) : 0.0;
        }
        for (uint e = tid; e < BK * BN; e += 256u) {
            uint k = e / BN, c = e % BN, gk = k0 + k, gc = c0 + c;
            bool ok = gk < pc.K && gc < pc.cols;
            uint wi = pc.base_w + gk * pc.N + gc;
            Bs[k][c] = ok ? float(w_in[wi + pc.col0]) : 0.0;
            if (GATED) Bu[k][c] = ok ? float(w_in[wi + pc.half_n]) : 0.0;
        }
        barrier();
        for (uint k = 0u; k < BK; k++) {
            float av[4], bv[4], uv[4];
            for (uint i = 0u; i < 4u; i++) av[i] = As[k][ty * 4u + i];
            for (uint j = 0u; j < 4u; j++) {
                bv[j] = Bs[k][tx + 16u * j];
                uv[j] = GATED ? Bu[k][tx + 16u * j] : 0.0;
            }
            for (uint i = 0u; i < 4u; i++)
                for (uint j = 0u; j < 4u; j++) {
                    acc[i][j] = fma(av[i], bv[j], acc[i][j]);
                    if (GATED) accu[i][j] = fma(av[i], uv[j], accu[i][j]);
                }
        }
        barrier();
    }
    for (uint i = 0u; i < 4u; i++) {
        uint r = row0 + ty * 4u + i;
        if (r >= pc.M) continue;
        for (uint j = 0u; j < 4u; j++) {
            uint c = c0 + tx + 16u * j;
            if (c < pc.cols) fused_store(r, c, acc[i][j], accu[i][j]);
        }
    }
}
