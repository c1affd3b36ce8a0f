#version 450
// softmax.comp - stable softmax along one axis: input viewed as [outer, A, inner]; one workgroup
// per (outer, inner) row: max, sum of exp(x - max), then exp(x - max) / sum.  f32 math.
#include "common.glsl"

PARAMS_BLOCK PC {
    uint rows, A, inner;
    int base_in, base_out;
} pc;
layout(std430, binding = 0) readonly buffer In { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Out { A_T y_out[]; };
shared float red[256];

float wg_sum(float v, bool is_max) {
    uint tid = gl_LocalInvocationID.x;
    red[tid] = v;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2u; s > 0u; s >>= 1) {
        if (tid < s) red[tid] = is_max ? max(red[tid], red[tid + s]) : red[tid] + red[tid + s];
        barrier();
    }
    float r = red[0];
    barrier();
    return r;
}

void main() {
    uint row = flat_group();
    if (row >= pc.rows) return;
    uint outer = row / pc.inner, in_i = row - outer * pc.inner;
    uint base = outer * pc.A * pc.inner + in_i;
    uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    float m = uintBitsToFloat(0xff800000u);
    for (uint a = tid; a < pc.A; a += wg) m = max(m, float(x_in[pc.base_in + int(base + a * pc.inner)]));
    m = wg_sum(m, true);
    float s = 0.0;
    for (uint a = tid; a < pc.A; a += wg) s += exp(float(x_in[pc.base_in + int(base + a * pc.inner)]) - m);
    s = wg_sum(s, false);
    float inv = 1.0 / s;
    for (uint a = tid; a < pc.A; a += wg) {
        uint off = base + a * pc.inner;
        y_out[pc.base_out + int(off)] = A_T(exp(float(x_in[pc.base_in + int(off)]) - m) * inv);
    }
}
