#version 450
// ext_gate_mul.comp - the gatedMlp epilogue of the composed prefill (k_fused_prefill.c): t [M, 2 n]
// holds each row's gate columns, then its up columns (the product with the packed [gate | up]
// weights); y[m, c] = act(t[m, c]) * t[m, n + c] with act = GATE_ACT (activation_math.glsl
// gate_activation: silu, erf GELU, tanh GELU), f32 arithmetic rounded once.  One invocation per
// output element, 1-D grid folded into x/y.
#include "common.glsl"
#include "activation_math.glsl"

layout(constant_id = 1) const uint GATE_ACT = 0u;

PARAMS_BLOCK PC {
    uint M, n, base_t, base_y;
} pc;
layout(std430, binding = 0) readonly buffer T { A_T t_in[]; };
layout(std430, binding = 1) writeonly buffer Y { A_T y_out[]; };

void main() {
    uint e = flat_id();
    if (e >= pc.M * pc.n) return;
    uint m = e / pc.n, c = e % pc.n, row = pc.base_t + m * 2u * pc.n;
    y_out[pc.base_y + e] = A_T(gate_activation(GATE_ACT, float(t_in[row + c])) * float(t_in[row + pc.n + c]));
}
