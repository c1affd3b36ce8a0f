#version 450
// resample_2d.comp - resample2d over two axes of a 4-D tensor with half-pixel centers:
// src = (dst + 0.5) / scale - 0.5; nearest-neighbor (spec constant 1 = 0) picks floor(src + 0.5)
// clamped to the input; linear (1) interpolates the two neighbours per axis (clamped at the
// edges).  One thread per output element; integer outputs are rounded to nearest even.
#include "common.glsl"

layout(constant_id = 1) const uint LINEAR = 0;
PARAMS_BLOCK PC {
    uint n, ax0, ax1, pad0;
    uint oshape[4];
    int xst[4];
    uint len0, len1;
    float scale0, scale1;
    int base_x, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Y { A_T y_out[]; };

void axis_src(uint o, uint len, float scale, out int lo, out int hi, out float t) {
    float src = (float(o) + 0.5) / scale - 0.5;
    if (LINEAR == 0u) {
        lo = hi = clamp(int(floor(src + 0.5)), 0, int(len) - 1);
        t = 0.0;
        return;
    }
    src = clamp(src, 0.0, float(len - 1u));
    lo = int(floor(src));
    hi = min(lo + 1, int(len) - 1);
    t = src - float(lo);
}

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    uint c[4];
    uint r = i;
    for (int d = 3; d >= 0; d--) {
        c[d] = r % pc.oshape[d];
        r /= pc.oshape[d];
    }
    int base = pc.base_x;
    for (uint d = 0u; d < 4u; d++)
        if (d != pc.ax0 && d != pc.ax1) base += int(c[d]) * pc.xst[d];
    int lo0, hi0, lo1, hi1;
    float t0, t1;
    axis_src(c[pc.ax0], pc.len0, pc.scale0, lo0, hi0, t0);
    axis_src(c[pc.ax1], pc.len1, pc.scale1, lo1, hi1, t1);
    int s0 = pc.xst[pc.ax0], s1 = pc.xst[pc.ax1];
    float v00 = float(A_C(x_in[base + lo0 * s0 + lo1 * s1]));
    float y = v00;
    if (LINEAR != 0u) {
        float v01 = float(A_C(x_in[base + lo0 * s0 + hi1 * s1]));
        float v10 = float(A_C(x_in[base + hi0 * s0 + lo1 * s1]));
        float v11 = float(A_C(x_in[base + hi0 * s0 + hi1 * s1]));
        y = (1.0 - t0) * ((1.0 - t1) * v00 + t1 * v01) + t0 * ((1.0 - t1) * v10 + t1 * v11);
    }
#if A_FLOAT
    y_out[pc.base_y + int(i)] = A_T(y);
#else
    y_out[pc.base_y + int(i)] = A_T(A_C(roundEven(y)));
#endif
}
