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
// exp(x) with the argument reduced first (x = n ln2 + r, ln2 in two parts, |r| <= ln2 / 2): GPU
// exp computes 2^(x log2 e), whose rounded product costs ~|x| * 2^-24 of relative accuracy (NVIDIA:
// gelu(-5.75) 20 ulp off; WPT allows 18).
float exp_reduced(float x) {
    if (x < -104.0) return 0.0;
    if (x > 89.0) return uintBitsToFloat(0x7f800000u);
    float n = round(x * 1.4426950408889634);
    float r = fma(n, -1.4286068203094173e-6, fma(n, -0.693145751953125, x));
    return ldexp(exp(r), int(n));
}
// erfc(z) for z >= 0 (Chebyshev fit, fractional error < 1.2e-7), given z^2 = zz + zz_lo exactly:
// the large part of the exponent goes through exp_reduced unrounded.
float erfc_pos_sq(float z, float zz, float zz_lo) {
    float t = 1.0 / (1.0 + 0.5 * z);
    float p = -zz_lo - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
              t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
              t * (-0.82215223 + t * 0.17087277))))))));
    return t * exp_reduced(-zz) * exp(p);
}
float erfc_pos(float z) { return erfc_pos_sq(z, z * z, fma(z, z, -(z * z))); }
float erf_f(float x) {
    if (abs(x) < 0.5) { // series: better relative accuracy near 0
        float x2 = x * x;
        return x * (1.1283791671 + x2 * (-0.3761263890 + x2 * (0.1128379167 + x2 * (-0.0268661706 + x2 * 0.0052239776))));
    }
    float c = erfc_pos(abs(x));
    return x < 0.0 ? c - 1.0 : 1.0 - c;
}
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
float tanh_f(float x) {
    float ax = abs(x);
    if (ax < 0.3) {
        float x2 = x * x;
        return x * (1.0 + x2 * (-0.333333333 + x2 * (0.133333333 + x2 * (-0.0539682540 + x2 * (0.0218694885 + x2 * -0.00886323552)))));
    }
    if (ax > 10.0) return sign(x);
    float r = 1.0 - 2.0 / (exp(2.0 * ax) + 1.0);
    return x < 0.0 ? -r : r;
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
    case EWU_GELU: {
        // z = x / sqrt(2); z^2 = x^2 / 2 split exactly from x (the rounding of z would cost ~|z|^2 * 2^-23)
        float z = x * 0.70710678118654752, xx = x * x;
        float c = erfc_pos_sq(abs(z), 0.5 * xx, 0.5 * fma(x, x, -xx));
        y = z < 0.0 ? 0.5 * x * c : (z < 0.5 ? 0.5 * x * (1.0 + erf_f(z)) : 0.5 * x * (2.0 - c));
        break;
    }
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
