#version 450
// argminmax.comp - argMax / argMin (IS_MIN = spec constant 1) along one axis of [outer, A, inner];
// one workgroup per output; ties pick the smallest index.  B = output index dtype (int32/int64).
#include "common.glsl"

layout(constant_id = 1) const uint IS_MIN = 0;
PARAMS_BLOCK PC {
    uint rows, A, inner;
    int base_in, base_out;
} pc;
layout(std430, binding = 0) readonly buffer In { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Out { B_T y_out[]; };
#if A_FLOAT
#define ACC float
#else
#define ACC A_C
#endif
shared ACC bv[256];
shared uint bi[256];

bool better(ACC a, uint ia, ACC b, uint ib) {
    if (ia == 0xffffffffu) return false;
    if (ib == 0xffffffffu) return true;
    if (a == b) return ia < ib;
    return IS_MIN != 0u ? a < b : a > b;
}

void main() {
    uint row = flat_group();
    if (row >= pc.rows) return;
    uint outer = row / pc.inner, in_i = row - outer * pc.inner;
    uint base = outer * pc.A * pc.inner + in_i;
    uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    ACC best = ACC(0);
    uint idx = 0xffffffffu;
    for (uint a = tid; a < pc.A; a += wg) {
        ACC x = ACC(x_in[pc.base_in + int(base + a * pc.inner)]);
        if (better(x, a, best, idx)) { best = x; idx = a; }
    }
    bv[tid] = best;
    bi[tid] = idx;
    barrier();
    for (uint s = wg / 2u; s > 0u; s >>= 1) {
        if (tid < s && better(bv[tid + s], bi[tid + s], bv[tid], bi[tid])) {
            bv[tid] = bv[tid + s];
            bi[tid] = bi[tid + s];
        }
        barrier();
    }
    if (tid == 0u) y_out[pc.base_out + int(row)] = B_T(bi[0]);
}
