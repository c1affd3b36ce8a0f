#version 450
// norm_batch.comp - batchNormalization: y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c]
// where c is the coordinate on `axis` (x viewed as [outer, C, inner]); one thread per element.
#include "common.glsl"

PARAMS_BLOCK PC {
    uint total, C, inner, flags; // flags 1: scale, 2: bias
    float eps;
    int base_x, base_m, base_v, base_s, base_b, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer M { A_T m_in[]; };
layout(std430, binding = 2) readonly buffer V { A_T v_in[]; };
layout(std430, binding = 3) readonly buffer S { A_T s_in[]; };
layout(std430, binding = 4) readonly buffer B { A_T b_in[]; };
layout(std430, binding = 5) writeonly buffer Y { A_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.total) return;
    uint c = (i / pc.inner) % pc.C;
    float y = (float(x_in[pc.base_x + int(i)]) - float(m_in[pc.base_m + int(c)])) /
              sqrt(float(v_in[pc.base_v + int(c)]) + pc.eps);
    if ((pc.flags & 1u) != 0u) y *= float(s_in[pc.base_s + int(c)]);
    if ((pc.flags & 2u) != 0u) y += float(b_in[pc.base_b + int(c)]);
    y_out[pc.base_y + int(i)] = A_T(y);
}
