#version 450
// ext_matmul_nbits.comp - matmulNBits for few activation rows (decode, M small): y[m, n] =
// sum_k a[m, k] * (q[n, k] - z) * s + bias[n].  A workgroup computes ROWS weight rows n for MT
// activation rows m at once (each weight word is loaded once for the MT rows); invocations stride
// over the 32-bit words of the packed rows (coalesced), dequantize in registers with
// s * (sum q x - z * sum x) per word (a word never spans two blocks: blocks are >= 32 bits), f32
// accumulation, subgroupAdd + shared-memory reduction.  k beyond K (the padding of the last block)
// is skipped.  Grid: x/y fold the row groups of this dispatch, z the groups of MT activation rows.
#include "common.glsl"
#include "ext_common.glsl"

layout(constant_id = 4) const uint ROWS = 4u;      // weight rows per workgroup (<= 8)
layout(constant_id = 5) const uint MT = 1u;        // activation rows per workgroup (<= 4)
layout(constant_id = 6) const bool SG_REDUCE = true;
layout(constant_id = 7) const uint SLOTS = 256u;   // shared slots per accumulator

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

shared float red[4 * 8 * SLOTS];

void main() {
    uint tid = gl_LocalInvocationID.x;
    uint first = flat_group() * ROWS, m0 = gl_WorkGroupID.z * MT;
    if (first >= pc.rows) return; // whole workgroup
    uint nrows = min(ROWS, pc.rows - first), nm = min(MT, pc.M - m0);
    float acc[4][8];
    for (uint m = 0u; m < MT; m++)
        for (uint r = 0u; r < ROWS; r++) acc[m][r] = 0.0;
    for (uint u = tid; u < pc.row_words; u += gl_WorkGroupSize.x) {
        uint k0 = u * VPW;
        if (k0 >= pc.K) continue;
        uint kn = min(VPW, pc.K - k0), kb = k0 / pc.block;
        float xv[4][16], xs[4];
        for (uint m = 0u; m < MT; m++) {
            xs[m] = 0.0;
            uint ab = pc.base_a + (m0 + min(m, nm - 1u)) * pc.K + k0;
            for (uint j = 0u; j < VPW; j++) {
                xv[m][j] = j < kn ? float(a_in[ab + j]) : 0.0;
                xs[m] += xv[m][j];
            }
        }
        for (uint r = 0u; r < ROWS; r++) {
            if (r >= nrows) break;
            uint n = pc.row0 + first + r;
            uint word = w_in[pc.base_w + (first + r) * pc.row_words + u];
            float s, z;
            block_params(n, kb, s, z);
            for (uint m = 0u; m < MT; m++) {
                float d = 0.0;
                for (uint j = 0u; j < VPW; j++) d = fma(float(bitfieldExtract(word, int(j * BITS), int(BITS))), xv[m][j], d);
                acc[m][r] += s * (d - z * xs[m]);
            }
        }
    }
    uint used = SG_REDUCE ? gl_NumSubgroups : gl_WorkGroupSize.x;
    for (uint m = 0u; m < MT; m++)
        for (uint r = 0u; r < ROWS; r++) {
            float v = SG_REDUCE ? subgroupAdd(acc[m][r]) : acc[m][r];
            if (!SG_REDUCE || subgroupElect()) red[(m * ROWS + r) * SLOTS + (SG_REDUCE ? gl_SubgroupID : tid)] = v;
        }
    barrier();
    for (uint o = tid; o < MT * ROWS; o += gl_WorkGroupSize.x) {
        uint m = o / ROWS, r = o % ROWS;
        if (m >= nm || r >= nrows) continue;
        float s = 0.0;
        for (uint i = 0u; i < used; i++) s += red[o * SLOTS + i];
        uint n = pc.row0 + first + r;
        if (HAS_BIAS) s += float(bias_in[pc.base_bias + n]);
        y_out[pc.base_y + (m0 + m) * pc.N + n] = A_T(s);
    }
}
