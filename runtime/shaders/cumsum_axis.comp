#version 450
// cumsum_axis.comp - cumulativeSum along one axis: x viewed as [outer, len, inner], one thread per
// (outer, inner) line summing sequentially (flags 1: exclusive, 2: reversed).  Floats accumulate
// in f32, integers in their compute type (wrapping).
#include "common.glsl"

PARAMS_BLOCK PC {
    uint lines, len, inner, flags;
    int base_x, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Y { A_T y_out[]; };

void main() {
    uint l = flat_id();
    if (l >= pc.lines) return;
    uint o = l / pc.inner, in_ = l - o * pc.inner;
    uint start = o * pc.len * pc.inner + in_;
    bool excl = (pc.flags & 1u) != 0u, rev = (pc.flags & 2u) != 0u;
    A_C acc = A_C(0);
    for (uint t = 0u; t < pc.len; t++) {
        uint k = rev ? pc.len - 1u - t : t;
        uint e = start + k * pc.inner;
        A_C v = A_C(x_in[pc.base_x + int(e)]);
        if (excl) {
            y_out[pc.base_y + int(e)] = A_T(acc);
            acc += v;
        } else {
            acc += v;
            y_out[pc.base_y + int(e)] = A_T(acc);
        }
    }
}
