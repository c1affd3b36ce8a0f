// norm_proj_io.glsl - what the matmulNBits normalized projections share (ext_norm_proj.comp: decode
// fallback, norm_proj_tile.glsl: prefill): option flags, push constants, bindings 0 x, 1 skip,
// 2 skipBias, 3 normScale, 4 weights, 5 scales, 6 zero points, 7 output (0), 9 / 10 outputs 1 / 2
// (the tile kernel's qkv splits), 11 bias, and the input value
// v = x (+ skip (+ skipBias)).  Include after common.glsl and ext_common.glsl, before ext_nbits.glsl.
#include "activation_math.glsl"
// FLAGS: 1 skip, 2 skipBias, 4 gated, 8 sum only (ext_norm_proj.comp), 16 * gatedMlp activation
layout(constant_id = 7) const uint FLAGS = 0u;
const bool HAS_SKIP = (FLAGS & 1u) != 0u, HAS_SKIP_BIAS = (FLAGS & 2u) != 0u;
const bool GATED = (FLAGS & 4u) != 0u, SUM_ONLY = (FLAGS & 8u) != 0u;
const uint GATE_ACT = (FLAGS >> 4) & 3u;

PARAMS_BLOCK PC {
    uint M, K, kBlocks, block, row_words, zp_row, rows, row0, out_cols, half_n;
    float eps;
    uint base_x, base_skip, base_b2, base_scale, base_w, base_s, base_z, base_y;
    uint base_bias, base_y1, base_y2;
    uint split1, split2; // the tile kernel: first output column of outputs 1 / 2 (none: out_cols)
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer Sk { A_T skip_in[]; };
layout(std430, binding = 2) readonly buffer B2 { A_T b2_in[]; };
layout(std430, binding = 3) readonly buffer Ns { A_T scale_in[]; };
layout(std430, binding = 4) readonly buffer W { uint w_in[]; };
layout(std430, binding = 5) readonly buffer S { A_T s_in[]; };
layout(std430, binding = 6) readonly buffer Z { uint z_in[]; };
layout(std430, binding = 6) readonly buffer Zf { A_T zf_in[]; };
layout(std430, binding = 7) writeonly buffer Y { A_T y_out[]; };
layout(std430, binding = 9) writeonly buffer Y1 { A_T y1_out[]; };
layout(std430, binding = 10) writeonly buffer Y2 { A_T y2_out[]; };
layout(std430, binding = 11) readonly buffer Bi { A_T bias_in[]; };

float value_at(uint m, uint k) {
    uint i = m * pc.K + k;
    float v = float(x_in[pc.base_x + i]);
    if (HAS_SKIP) v += float(skip_in[pc.base_skip + i]);
    if (HAS_SKIP_BIAS) v += float(b2_in[pc.base_b2 + k]);
    return v;
}
