#version 450
// where.comp - where(condition uint8, trueValue, falseValue), all three broadcast by strides.
#include "common.glsl"
#include "strided.glsl"

layout(std430, binding = 0) readonly buffer Cond { uint8_t c_in[]; };
layout(std430, binding = 1) readonly buffer InA { A_T a_in[]; };
layout(std430, binding = 2) readonly buffer InB { A_T b_in[]; };
layout(std430, binding = 3) writeonly buffer Out { A_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    int o0, o1, o2;
    strided_offsets(i, o0, o1, o2);
    y_out[pc.base3 + int(i)] = uint(c_in[o0]) != 0u ? a_in[o1] : b_in[o2];
}
