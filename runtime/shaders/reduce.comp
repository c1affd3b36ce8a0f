#version 450
// reduce.comp - reduce* ops over any set of axes.  Output element o -> kept coordinates (kshape,
// kst); reduced elements r -> reduced coordinates (rshape, rst).  One workgroup per output
// (tree reduction in shared memory) or, with PER_THREAD (spec constant 2), one thread per output
// for short reductions.  Floats accumulate in f32; logSumExp subtracts the max first.
// Epilogue (k_reduce.h, plan_reduce.c): the result, stored as A, then r OP c (EPI_OP, an
// ew_codes.h add / sub / mul; EPI_CONST_FIRST: c OP r) with the one-element constant c, in A as
// binary.comp computes it, then stored as B (A == B, or a cast integer -> integer (low bits of
// the sign-extended value, as cast.comp) or float -> float).
#include "common.glsl"
#include "ew_codes.h"

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
layout(constant_id = 3) const uint EPI_OP = 0;          // 0: no epilogue
layout(constant_id = 4) const bool EPI_CONST_FIRST = false;
PARAMS_BLOCK PC {
    uint n_out, R, krank, rrank;
    uint kshape[6];
    uint kst[6];
    uint rshape[6];
    uint rst[6];
    int base_in, base_out, base_c;
} pc;
layout(std430, binding = 0) readonly buffer In { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Out { B_T y_out[]; };
layout(std430, binding = 2) readonly buffer C { A_T c_in[]; };

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

// The reduction's result s as stored (A), through the epilogue, as stored in the output (B).
#if A_FLOAT
#define EPI_T float
#else
#define EPI_T A_C
#endif
B_T epilogue(ACC s) {
    EPI_T r = EPI_T(A_T(s));
    if (EPI_OP != 0u) {
        EPI_T c = EPI_T(c_in[pc.base_c]), a = EPI_CONST_FIRST ? c : r, b = EPI_CONST_FIRST ? r : c;
        r = EPI_T(A_T(EPI_OP == EWB_ADD ? a + b : EPI_OP == EWB_SUB ? a - b : a * b));
    }
#if A_FLOAT
    return B_T(r);
#elif A_BITS == 64 || B_BITS == 64
    return B_T(B_C(int64_t(r)));
#else
    return B_T(B_C(r));
#endif
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
        y_out[pc.base_out + int(o)] = epilogue(finish(s, m));
        return;
    }
    uint o = flat_group();
    if (o >= pc.n_out) return;
    uint base = out_base(o);
    uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    ACC m = lowest;
    if (OP == R_LOG_SUM_EXP) m = wg_reduce(R_MAX, partial(R_MAX, base, tid, wg, lowest));
    ACC s = wg_reduce(OP, partial(OP, base, tid, wg, isinf(float(m)) ? ACC(0) : m));
    if (tid == 0u) y_out[pc.base_out + int(o)] = epilogue(finish(s, m));
}
