#version 450
// ext_nbits_splitk_sum.comp - the second step of a split-K matmulNBits GEMM (nbits_gemm.glsl):
// y[m, n] = sum over slices z of ws[z][m][n] (+ bias[n]), in slice order, rounded once to the
// output type.  One invocation per output element, 1-D grid folded into x/y.
#include "common.glsl"

layout(constant_id = 1) const bool HAS_BIAS = false;

PARAMS_BLOCK PC {
    uint M, N, slices, base_ws, base_bias, base_y;
} pc;
layout(std430, binding = 0) readonly buffer Ws { float ws[]; };
layout(std430, binding = 1) readonly buffer Bi { A_T bias_in[]; };
layout(std430, binding = 2) writeonly buffer Y { A_T y_out[]; };

void main() {
    uint e = flat_id(), mn = pc.M * pc.N;
    if (e >= mn) return;
    float y = 0.0;
    for (uint z = 0u; z < pc.slices; z++) y += ws[pc.base_ws + z * mn + e];
    if (HAS_BIAS) y += float(bias_in[pc.base_bias + e % pc.N]);
    y_out[pc.base_y + e] = A_T(y);
}
