#version 450
// norm_reduce.comp - layerNormalization / instanceNormalization: one workgroup per outer row.
// The tensor is described as `rank` dims (outer dims first, then the `n_red` reduced dims), each
// with an element stride in x/y (xst) and in scale/bias (sst, 0 where they do not vary).  Mean
// first, then the variance as the mean of squared deviations (two passes: stable), then
// y = (x - mean) / sqrt(var + eps) * scale + bias.  f32 arithmetic.
#include "common.glsl"

PARAMS_BLOCK PC {
    uint rank, n_red, outer, red;
    uint shape[6];
    int xst[6];
    int sst[6];
    float eps;
    uint flags; // 1: scale, 2: bias
    int base_x, base_s, base_b, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer S { A_T s_in[]; };
layout(std430, binding = 2) readonly buffer B { A_T b_in[]; };
layout(std430, binding = 3) writeonly buffer Y { A_T y_out[]; };

shared float red_buf[256];

// Offsets (x and scale) of reduced element r within the row.
void red_offsets(uint r, out int xo, out int so) {
    xo = 0; so = 0;
    for (int d = int(pc.rank) - 1; d >= int(pc.rank - pc.n_red); d--) {
        uint q = r / pc.shape[d];
        int k = int(r - q * pc.shape[d]);
        r = q;
        xo += k * pc.xst[d];
        so += k * pc.sst[d];
    }
}

float wg_sum(float v) {
    uint tid = gl_LocalInvocationID.x;
    red_buf[tid] = v;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2u; s > 0u; s >>= 1) {
        if (tid < s) red_buf[tid] += red_buf[tid + s];
        barrier();
    }
    float r = red_buf[0];
    barrier();
    return r;
}

void main() {
    uint row = flat_group();
    if (row >= pc.outer) return;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    int xrow = 0, srow = 0;
    uint o = row;
    for (int d = int(pc.rank - pc.n_red) - 1; d >= 0; d--) {
        uint q = o / pc.shape[d];
        int k = int(o - q * pc.shape[d]);
        o = q;
        xrow += k * pc.xst[d];
        srow += k * pc.sst[d];
    }
    float s = 0.0;
    for (uint r = tid; r < pc.red; r += nt) {
        int xo, so;
        red_offsets(r, xo, so);
        s += float(x_in[pc.base_x + xrow + xo]);
    }
    float mean = wg_sum(s) / float(pc.red);
    s = 0.0;
    for (uint r = tid; r < pc.red; r += nt) {
        int xo, so;
        red_offsets(r, xo, so);
        float dv = float(x_in[pc.base_x + xrow + xo]) - mean;
        s = fma(dv, dv, s);
    }
    float inv = 1.0 / sqrt(wg_sum(s) / float(pc.red) + pc.eps);
    for (uint r = tid; r < pc.red; r += nt) {
        int xo, so;
        red_offsets(r, xo, so);
        float y = (float(x_in[pc.base_x + xrow + xo]) - mean) * inv;
        if ((pc.flags & 1u) != 0u) y *= float(s_in[pc.base_s + srow + so]);
        if ((pc.flags & 2u) != 0u) y += float(b_in[pc.base_b + srow + so]);
        y_out[pc.base_y + xrow + xo] = A_T(y);
    }
}
