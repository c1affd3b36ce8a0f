#version 450
// gather.comp - gather along one axis: input viewed as [outer, axis, inner], indices flattened
// to [n_idx]; output [outer, n_idx, inner].  Negative indices count from the end; out-of-range
// indices are clamped (WebNN/WPT).  A = data element size class, B = index dtype.
// Big tensors are split (k_movement.c): a dispatch writes output elements [out0, out0 + n) whose
// gathered slice s = outer * axis_dim + index lies in the bound data window [s0, s1) of slices.
#include "common.glsl"

#if A_BITS == 8
#define E_T uint8_t
#elif A_BITS == 16
#define E_T uint16_t
#elif A_BITS == 64
#define E_T uint64_t
#else
#define E_T uint
#endif
PARAMS_BLOCK PC {
    uint n, inner, axis_dim, n_idx;
    uint out0, s0, s1;
    int base_in, base_idx, base_out;
} pc;
layout(std430, binding = 0) readonly buffer In { E_T x_in[]; };
layout(std430, binding = 1) readonly buffer Idx { B_T idx_in[]; };
layout(std430, binding = 2) writeonly buffer Out { E_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    uint g = i + pc.out0;
    uint in_i = g % pc.inner;
    uint t = g / pc.inner;
    uint j = t % pc.n_idx;
    uint o = t / pc.n_idx;
#if B_BITS == 64 && B_SIGNED
    int64_t v = idx_in[pc.base_idx + int(j)];
    int64_t nd = int64_t(pc.axis_dim);
    if (v < 0) v += nd;
    int k = int(clamp(v, int64_t(0), nd - 1));
#elif B_SIGNED
    int v = idx_in[pc.base_idx + int(j)];
    if (v < 0) v += int(pc.axis_dim);
    int k = clamp(v, 0, int(pc.axis_dim) - 1);
#else
    uint v = idx_in[pc.base_idx + int(j)];
    int k = int(min(v, pc.axis_dim - 1u));
#endif
    uint s = o * pc.axis_dim + uint(k);
    if (s < pc.s0 || s >= pc.s1) return;
    y_out[pc.base_out + int(i)] = x_in[pc.base_in + int((s - pc.s0) * pc.inner + in_i)];
}
