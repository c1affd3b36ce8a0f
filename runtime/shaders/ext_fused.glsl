// ext_fused.glsl - what the float-weight normalized projections (ext_fused_matvec.comp: decode,
// ext_fused_tiled.comp: prefill; kernel family ext_fused, k_ext_fused.c) share: bindings, push
// constants, option flags and the normalized-input reads.
// Operation (docs/extension-ops.md qkvProjection / gatedMlp with bits 0):
//   v = x (+ skip (+ skipBias)), h = v / sqrt(mean(v^2) + eps) * normScale (row-wise, f32),
//   y = h . W[:, col0 + c] (+ bias[col0 + c]) for the split's columns c < cols, W [K, N] row-major;
//   gated: y = act(gate) * up with gate column c and up column half_n + c (act: FLAGS bits 5-6).
// SUM (the dispatch of split 0 when outputSum): the workgroups of column group 0 also write v,
// rounded to the activation dtype, to the sum output (no other workgroup reads it).
// Bindings: 0 x, 1 skip, 2 skipBias, 3 normScale, 4 weight, 5 bias, 6 y, 7 sum (absent operands are
// bound to x and never read).  Include after common.glsl.
#include "activation_math.glsl"
layout(constant_id = 1) const uint FLAGS = 0u; // 1 skip, 2 skipBias, 4 gated, 8 bias, 16 sum, 32 * activation
const bool HAS_SKIP = (FLAGS & 1u) != 0u, HAS_SKIP_BIAS = (FLAGS & 2u) != 0u, GATED = (FLAGS & 4u) != 0u;
const bool HAS_BIAS = (FLAGS & 8u) != 0u, WRITE_SUM = (FLAGS & 16u) != 0u;
const uint GATE_ACT = (FLAGS >> 5) & 3u;

PARAMS_BLOCK PC {
    uint M, K, N;      // activation rows, reduction size, weight columns (row stride of W)
    uint col0, cols;   // first weight column of this split, output columns (row stride of y)
    uint half_n;       // gated: column offset of the up half
    float eps;
    uint base_x, base_skip, base_sb, base_scale, base_w, base_bias, base_y, base_sum;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer Sk { A_T skip_in[]; };
layout(std430, binding = 2) readonly buffer Sb { A_T sb_in[]; };
layout(std430, binding = 3) readonly buffer Ns { A_T scale_in[]; };
layout(std430, binding = 4) readonly buffer W { A_T w_in[]; };
layout(std430, binding = 5) readonly buffer Bi { A_T bias_in[]; };
layout(std430, binding = 6) writeonly buffer Y { A_T y_out[]; };
layout(std430, binding = 7) writeonly buffer Sum { A_T sum_out[]; };

// v = x (+ skip (+ skipBias)) at row m, column k; written to the sum output when `sum`.
float fused_value(uint m, uint k, bool sum) {
    uint i = m * pc.K + k;
    float v = float(x_in[pc.base_x + i]);
    if (HAS_SKIP) v += float(skip_in[pc.base_skip + i]);
    if (HAS_SKIP_BIAS) v += float(sb_in[pc.base_sb + k]);
    if (WRITE_SUM && sum) sum_out[pc.base_sum + i] = A_T(v);
    return v;
}

// The reciprocal RMS from a row's sum of squares.
float fused_inv_rms(float ss) { return 1.0 / sqrt(ss / float(pc.K) + pc.eps); }

// Output column c (< cols) of row m from the accumulated gate (or only) and up products.
void fused_store(uint m, uint c, float y, float up) {
    if (HAS_BIAS) y += float(bias_in[pc.base_bias + pc.col0 + c]);
    if (GATED) {
        if (HAS_BIAS) up += float(bias_in[pc.base_bias + pc.half_n + c]);
        y = gate_activation(GATE_ACT, y) * up;
    }
    y_out[pc.base_y + m * pc.cols + c] = A_T(y);
}
