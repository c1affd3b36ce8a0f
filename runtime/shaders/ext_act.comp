#version 450
// ext_act.comp - the sigmoid-gated activations of the extension ops: y = x * sigmoid(alpha * x)
// (quickGelu with its alpha; silu is alpha = 1), computed as x / (1 + exp(-alpha x)) in f32.
// One element per invocation over a 1-D grid (flat_id).
#include "common.glsl"

PARAMS_BLOCK PC {
    uint n;
    float alpha;
    uint base_x, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Y { A_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    float x = float(x_in[pc.base_x + i]);
    y_out[pc.base_y + i] = A_T(x / (1.0 + exp(-pc.alpha * x)));
}
