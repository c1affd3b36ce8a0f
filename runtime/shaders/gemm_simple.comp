#version 450
// gemm_simple.comp - gemm: y[M,N] = alpha * op(a) x op(b) + beta * c, op = optional transpose
// (flags 1: aTranspose, 2: bTranspose, 4: c present; c broadcast through strides c_rs/c_cs).
// One thread per output element, f32 accumulation.
#include "common.glsl"

PARAMS_BLOCK PC {
    uint M, N, K, flags;
    float alpha, beta;
    int c_rs, c_cs;
    int base_a, base_b, base_c, base_y;
} pc;
layout(std430, binding = 0) readonly buffer A { A_T a_in[]; };
layout(std430, binding = 1) readonly buffer B { A_T b_in[]; };
layout(std430, binding = 2) readonly buffer C { A_T c_in[]; };
layout(std430, binding = 3) writeonly buffer Y { A_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.M * pc.N) return;
    uint r = i / pc.N, col = i - r * pc.N;
    bool at = (pc.flags & 1u) != 0u, bt = (pc.flags & 2u) != 0u;
    uint a_rs = at ? 1u : pc.K, a_ks = at ? pc.M : 1u;
    uint b_ks = bt ? 1u : pc.N, b_cs = bt ? pc.K : 1u;
    float acc = 0.0;
    for (uint k = 0u; k < pc.K; k++)
        acc = fma(float(a_in[pc.base_a + int(r * a_rs + k * a_ks)]), float(b_in[pc.base_b + int(k * b_ks + col * b_cs)]), acc);
    float y = pc.alpha * acc;
    if ((pc.flags & 4u) != 0u) y += pc.beta * float(c_in[pc.base_c + int(r) * pc.c_rs + int(col) * pc.c_cs]);
    y_out[pc.base_y + int(i)] = A_T(y);
}
