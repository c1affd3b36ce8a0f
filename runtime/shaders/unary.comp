#version 450
// unary.comp - element-wise unary ops and activations (op code = spec constant 1, ew_codes.h),
// generic strided indexing (strided.glsl).  Floats compute in f32 (f16 storage is rounded at the
// store); alpha/beta carry the op's options.  Accuracy notes: erf/gelu go through an erfc with
// ~1e-7 relative error, an exactly split z^2 and a range-reduced exp, so gelu keeps its relative
// accuracy for negative inputs on GPUs too; sqrt, reciprocal
// are refined with an fma Newton step; softplus/elu use log1p/expm1 forms.
#include "common.glsl"
#include "strided.glsl"
#include "ew_codes.h"

layout(constant_id = 1) const uint OP = 0;
layout(std430, binding = 0) readonly buffer In { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Out { B_T y_out[]; };

#if A_FLOAT
#include "activation_math.glsl"
// log(1 + u) for u >= 0 via 2 atanh(u / (2 + u)); GPU log only promises an absolute error near 1.
float log1p_f(float u) {
    if (u > 1.0) return log(1.0 + u);
    float s = u / (2.0 + u), s2 = s * s;
    return 2.0 * s * (1.0 + s2 * (1.0 / 3.0 + s2 * (0.2 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0 + s2 * (1.0 / 11.0 +
           s2 * (1.0 / 13.0 + s2 * (1.0 / 15.0))))))));
}
// exp(x) - 1 without cancellation for small |x| (Taylor series below 0.5).
float expm1_f(float x) {
    if (abs(x) >= 0.5) return exp(x) - 1.0;
    return x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0 + x * (1.0 / 720.0 +
           x * (1.0 / 5040.0 + x * (1.0 / 40320.0 + x * (1.0 / 362880.0)))))))));
}
float sqrt_f(float x) {
    float s = sqrt(x);
    if (x > 0.0 && !isinf(x)) s = s + fma(-s, s, x) * (0.5 / s);
    return s;
}
float recip_f(float x) {
    float r = 1.0 / x;
    if (!isinf(r) && r != 0.0 && !isnan(r)) r = fma(r, fma(-x, r, 1.0), r);
    return r;
}
#endif

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    int o0, o1, o2;
    strided_offsets(i, o0, o1, o2);
#if A_FLOAT
    float x = float(x_in[o0]);
    float y = x;
    float a = pc.alpha, b = pc.beta;
    switch (OP) {
    case EWU_ABS: y = abs(x); break;
    case EWU_CEIL: y = ceil(x); break;
    case EWU_COS: y = cos(x); break;
    case EWU_ERF: y = erf_f(x); break;
    case EWU_EXP: y = exp(x); break;
    case EWU_FLOOR: y = floor(x); break;
    case EWU_LOG: y = log(x); break;
    case EWU_NEG: y = -x; break;
    case EWU_RECIPROCAL: y = recip_f(x); break;
    case EWU_ROUND_EVEN: y = roundEven(x); break;
    case EWU_SIGN: y = isnan(x) ? x : sign(x); break;
    case EWU_SIN: y = sin(x); break;
    case EWU_SQRT: y = sqrt_f(x); break;
    case EWU_TAN: y = tan(x); break;
    case EWU_IS_NAN: y = isnan(x) ? 1.0 : 0.0; break;
    case EWU_IS_INFINITE: y = isinf(x) ? 1.0 : 0.0; break;
    case EWU_ELU: y = x < 0.0 ? a * expm1_f(x) : x; break;
    case EWU_GELU: y = gelu_f(x); break;
    case EWU_HARD_SIGMOID: y = max(0.0, min(1.0, a * x + b)); break;
    case EWU_HARD_SWISH: y = x * max(0.0, min(6.0, x + 3.0)) / 6.0; break;
    case EWU_LEAKY_RELU: y = x < 0.0 ? a * x : x; break;
    case EWU_LINEAR: y = a * x + b; break;
    case EWU_RELU: y = max(x, 0.0); break;
    case EWU_SIGMOID: y = 1.0 / (1.0 + exp(-x)); break;
    case EWU_SOFTPLUS: y = max(x, 0.0) + log1p_f(exp(-abs(x))); break;
    case EWU_SOFTSIGN: y = x / (1.0 + abs(x)); break;
    case EWU_TANH: y = tanh_f(x); break;
    case EWU_CLAMP: y = isnan(x) ? x : min(max(x, a), b); break;
    default: break;
    }
    y_out[o1] = B_T(y);
#else
    A_C x = A_C(x_in[o0]);
    A_C y = x;
    switch (OP) {
#if A_SIGNED
    case EWU_ABS: y = x < A_C(0) ? -x : x; break;
    case EWU_NEG: y = -x; break;
    case EWU_SIGN: y = x > A_C(0) ? A_C(1) : (x < A_C(0) ? A_C(-1) : A_C(0)); break;
    case EWU_RELU: y = x < A_C(0) ? A_C(0) : x; break;
#else
    case EWU_NEG: y = A_C(0) - x; break;
    case EWU_SIGN: y = x > A_C(0) ? A_C(1) : A_C(0); break;
#endif
    case EWU_CLAMP: {
        // exact integer bounds saturated to the type by k_eltwise.c, in st2 (low word first)
#if A_BITS == 64
        A_C lo = A_C((uint64_t(uint(pc.st2[1])) << 32) | uint64_t(uint(pc.st2[0])));
        A_C hi = A_C((uint64_t(uint(pc.st2[3])) << 32) | uint64_t(uint(pc.st2[2])));
#else
        A_C lo = A_C(pc.st2[0]), hi = A_C(pc.st2[2]);
#endif
        y = x < lo ? lo : (x > hi ? hi : x);
        break;
    }
    case EWU_LOGICAL_NOT: y = x == A_C(0) ? A_C(1) : A_C(0); break;
    default: break;
    }
    y_out[o1] = B_T(y);
#endif
}
