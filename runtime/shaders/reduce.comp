#version 450
// reduce.comp - reduce* ops over any set of axes.  Output element o -> kept coordinates (kshape,
// kst); reduced elements r -> reduced coordinates (rshape, rst).  One workgroup per output
// (tree reduction in shared memory) or, with PER_THREAD (spec constant 2), one thread per output
// for short reductions.  Floats accumulate in f32; logSumExp subtracts the max first.
#include "common.glsl"

#define R_L1 1
#define R_L2 2
#define R_LOG_SUM 3
#define R_LOG_SUM_EXP 4
#define R_MAX 5
#define R_MEAN 6
#define R_MIN 7
#define R_PRODUCT 8
#define R_SUM 9
#define R_SUM_SQUARE 10

layout(constant_id = 1) const uint OP = R_SUM;
layout(constant_id = 2) const uint PER_THREAD = 0;
PARAMS_BLOCK PC {
    uint n_out, R, krank, rrank;
    uint kshape[6];
    uint kst[6];
    uint rshape[6];
    uint rst[6];
    int base_in, base_out;
} pc;
layout(std430, binding = 0) readonly buffer In { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Out { A_T y_out[]; };

#if A_FLOAT
#define ACC float
#else
#define ACC A_C
#endif
shared ACC red[256];

uint out_base(uint o) {
    uint off = uint(pc.base_in);
    for (int d = int(pc.krank) - 1; d >= 0; d--) {
        uint q = o / pc.kshape[d];
        off += (o - q * pc.kshape[d]) * pc.kst[d];
        o = q;
    }
    return off;
}
uint red_off(uint r) {
    uint off = 0u;
    for (int d = int(pc.rrank) - 1; d >= 0; d--) {
        uint q = r / pc.rshape[d];
        off += (r - q * pc.rshape[d]) * pc.rst[d];
        r = q;
    }
    return off;
}

ACC identity(uint op) {
    if (op == R_MAX) return ACC(A_LOWEST);
    if (op == R_MIN) return ACC(A_HIGHEST);
    if (op == R_PRODUCT) return ACC(1);
    return ACC(0);
}
ACC combine(uint op, ACC a, ACC b) {
    if (op == R_MAX) return a > b ? a : b;
    if (op == R_MIN) return a < b ? a : b;
    if (op == R_PRODUCT) return a * b;
    return a + b;
}
ACC mapv(uint op, ACC x, ACC m) {
#if A_FLOAT
    if (op == R_L1) return abs(x);
    if (op == R_L2 || op == R_SUM_SQUARE) return x * x;
    if (op == R_LOG_SUM_EXP) return exp(x - m);
#else
#if A_SIGNED
    if (op == R_L1) return x < ACC(0) ? -x : x;
#endif
    if (op == R_SUM_SQUARE) return x * x;
#endif
    return x;
}
// Reduces over the elements this invocation owns (all of them when PER_THREAD).
ACC partial(uint op, uint base, uint first, uint step, ACC m) {
    ACC acc = identity(op);
    for (uint r = first; r < pc.R; r += step) {
        ACC x = ACC(x_in[base + red_off(r)]);
        acc = combine(op, acc, mapv(op, x, m));
    }
    return acc;
}
ACC wg_reduce(uint op, ACC v) {
    uint tid = gl_LocalInvocationID.x;
    red[tid] = v;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2u; s > 0u; s >>= 1) {
        if (tid < s) red[tid] = combine(op, red[tid], red[tid + s]);
        barrier();
    }
    ACC r = red[0];
    barrier();
    return r;
}
ACC finish(ACC s, ACC m) {
#if A_FLOAT
    if (OP == R_L2) return sqrt(s);
    if (OP == R_LOG_SUM) return log(s);
    if (OP == R_LOG_SUM_EXP) return isinf(m) ? m : m + log(s);
    if (OP == R_MEAN) return s / float(pc.R);
#else
    if (OP == R_MEAN) return s / ACC(pc.R);
#endif
    return s;
}

void main() {
    ACC lowest = ACC(A_LOWEST);
    if (PER_THREAD != 0u) {
        uint o = flat_id();
        if (o >= pc.n_out) return;
        uint base = out_base(o);
        ACC m = lowest;
        if (OP == R_LOG_SUM_EXP) m = partial(R_MAX, base, 0u, 1u, lowest);
        ACC s = partial(OP, base, 0u, 1u, isinf(float(m)) ? ACC(0) : m);
        y_out[pc.base_out + int(o)] = A_T(finish(s, m));
        return;
    }
    uint o = flat_group();
    if (o >= pc.n_out) return;
    uint base = out_base(o);
    uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    ACC m = lowest;
    if (OP == R_LOG_SUM_EXP) m = wg_reduce(R_MAX, partial(R_MAX, base, tid, wg, lowest));
    ACC s = wg_reduce(OP, partial(OP, base, tid, wg, isinf(float(m)) ? ACC(0) : m));
    if (tid == 0u) y_out[pc.base_out + int(o)] = A_T(finish(s, m));
}
