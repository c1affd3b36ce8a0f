#version 450
// binary.comp - element-wise binary, comparison and logical ops with numpy broadcasting done by
// strides (strided.glsl); op code = spec constant 1 (ew_codes.h).  A = operand dtype, B = output
// dtype (A, or uint8 for comparisons/logical).  Integer division truncates toward zero (x/0 = 0);
// integer pow by squaring; f32 division is refined with an fma step.
#include "common.glsl"
#include "strided.glsl"
#include "ew_codes.h"

layout(constant_id = 1) const uint OP = 0;
layout(std430, binding = 0) readonly buffer InA { A_T a_in[]; };
layout(std430, binding = 1) readonly buffer InB { A_T b_in[]; };
layout(std430, binding = 2) writeonly buffer Out { B_T y_out[]; };

#if A_FLOAT
float pow_f(float x, float y) {
    if (y == 0.0) return 1.0;
    if (isnan(x) || isnan(y)) return x + y;
    bool yint = floor(y) == y;
    if (x == 0.0) return y > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
    if (x < 0.0) {
        if (!yint) return uintBitsToFloat(0x7fc00000u);
        float r = exp2(y * log2(-x));
        return mod(y, 2.0) == 1.0 ? -r : r;
    }
    return exp2(y * log2(x));
}
float div_f(float a, float b) {
    float q = a / b;
    if (!isinf(q) && !isnan(q) && q != 0.0 && !isinf(b)) q = q + fma(-b, q, a) / b;
    return q;
}
#else
A_C pow_i(A_C x, A_C y) {
#if A_SIGNED
    if (y < A_C(0)) return x == A_C(1) ? A_C(1) : (x == A_C(-1) ? ((y & A_C(1)) != A_C(0) ? A_C(-1) : A_C(1)) : A_C(0));
#endif
    A_C r = A_C(1);
    for (int k = 0; k < A_BITS && y != A_C(0); k++) {
        if ((y & A_C(1)) != A_C(0)) r *= x;
        x *= x;
        y >>= 1;
    }
    return r;
}
#endif

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    int o0, o1, o2;
    strided_offsets(i, o0, o1, o2);
#if A_FLOAT
    float a = float(a_in[o0]), b = float(b_in[o1]);
    float y = 0.0;
#else
    A_C a = A_C(a_in[o0]), b = A_C(b_in[o1]);
    A_C y = A_C(0);
#endif
    bool c = false;
    switch (OP) {
    case EWB_ADD: y = a + b; break;
    case EWB_SUB: y = a - b; break;
    case EWB_MUL: y = a * b; break;
#if A_FLOAT
    case EWB_DIV: y = div_f(a, b); break;
    case EWB_POW: y = pow_f(a, b); break;
    case EWB_MAX: y = isnan(a) || isnan(b) ? a + b : max(a, b); break;
    case EWB_MIN: y = isnan(a) || isnan(b) ? a + b : min(a, b); break;
    case EWB_PRELU: y = a < 0.0 ? a * b : a; break;
#else
    case EWB_DIV: y = b == A_C(0) ? A_C(0) : a / b; break;
    case EWB_POW: y = pow_i(a, b); break;
    case EWB_MAX: y = a > b ? a : b; break;
    case EWB_MIN: y = a < b ? a : b; break;
    case EWB_PRELU: y = a < A_C(0) ? a * b : a; break;
#endif
    case EWB_EQUAL: c = a == b; break;
    case EWB_NOT_EQUAL: c = a != b; break;
    case EWB_GREATER: c = a > b; break;
    case EWB_GREATER_OR_EQUAL: c = a >= b; break;
    case EWB_LESSER: c = a < b; break;
    case EWB_LESSER_OR_EQUAL: c = a <= b; break;
#if !A_FLOAT
    case EWB_LOGICAL_AND: c = a != A_C(0) && b != A_C(0); break;
    case EWB_LOGICAL_OR: c = a != A_C(0) || b != A_C(0); break;
    case EWB_LOGICAL_XOR: c = (a != A_C(0)) != (b != A_C(0)); break;
#endif
    default: break;
    }
    if (OP >= EWB_EQUAL) y_out[o2] = B_T(c ? 1u : 0u);
    else y_out[o2] = B_T(y);
}
