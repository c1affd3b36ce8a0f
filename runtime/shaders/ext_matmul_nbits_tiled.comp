#version 450
// ext_matmul_nbits_tiled.comp - matmulNBits for many activation rows (prefill): tiled GEMM,
// 256 invocations (16 x 16) per 32 x 32 output tile, each computing 2 x 2 outputs.  Per step of
// 32 k, the activation tile is staged in shared memory and the weight tile is dequantized
// ((q - z) * s) into shared memory straight from the packed layout, so weights are read once per
// tile and never expanded in device memory.  f32 accumulation; bias added at the end.
// Grid: x = column tiles (N / 32), y = row tiles (M / 32).
#include "common.glsl"
#include "ext_common.glsl"

PARAMS_BLOCK PC {
    uint M, N, K, kBlocks, block, row_words, zp_row, rows, row0;
    uint base_a, base_w, base_s, base_z, base_bias, base_y;
} pc;
layout(std430, binding = 0) readonly buffer A { A_T a_in[]; };
layout(std430, binding = 1) readonly buffer W { uint w_in[]; };
layout(std430, binding = 2) readonly buffer S { A_T s_in[]; };
layout(std430, binding = 3) readonly buffer Z { uint z_in[]; };
layout(std430, binding = 3) readonly buffer Zf { A_T zf_in[]; };
layout(std430, binding = 4) readonly buffer Bi { A_T bias_in[]; };
layout(std430, binding = 5) writeonly buffer Y { A_T y_out[]; };

#include "ext_nbits.glsl"

shared float As[32][33];
shared float Bs[32][33];

void main() {
    uint tid = gl_LocalInvocationID.x, tx = tid % 16u, ty = tid / 16u;
    uint n0 = gl_WorkGroupID.x * 32u, m0 = gl_WorkGroupID.y * 32u; // n0: row of this dispatch
    float acc[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
    for (uint k0 = 0u; k0 < pc.K; k0 += 32u) {
        for (uint e = 0u; e < 4u; e++) {
            uint idx = tid + 256u * e, r = idx / 32u, kk = idx % 32u, k = k0 + kk;
            uint m = m0 + r;
            As[kk][r] = m < pc.M && k < pc.K ? float(a_in[pc.base_a + m * pc.K + k]) : 0.0;
            uint nl = n0 + r; // dispatch-local weight row
            float w = 0.0;
            if (nl < pc.rows && k < pc.K) {
                uint word = w_in[pc.base_w + nl * pc.row_words + k / VPW];
                float s, z;
                block_params(pc.row0 + nl, k / pc.block, s, z);
                w = (float(bitfieldExtract(word, int((k % VPW) * BITS), int(BITS))) - z) * s;
            }
            Bs[kk][r] = w;
        }
        barrier();
        for (uint kk = 0u; kk < 32u; kk++) {
            float a0 = As[kk][ty], a1 = As[kk][ty + 16u], b0 = Bs[kk][tx], b1 = Bs[kk][tx + 16u];
            acc[0][0] = fma(a0, b0, acc[0][0]);
            acc[0][1] = fma(a0, b1, acc[0][1]);
            acc[1][0] = fma(a1, b0, acc[1][0]);
            acc[1][1] = fma(a1, b1, acc[1][1]);
        }
        barrier();
    }
    for (uint i = 0u; i < 2u; i++)
        for (uint j = 0u; j < 2u; j++) {
            uint m = m0 + ty + 16u * i, nl = n0 + tx + 16u * j;
            if (m >= pc.M || nl >= pc.rows) continue;
            uint n = pc.row0 + nl;
            float v = acc[i][j];
            if (HAS_BIAS) v += float(bias_in[pc.base_bias + n]);
            y_out[pc.base_y + m * pc.N + n] = A_T(v);
        }
}
