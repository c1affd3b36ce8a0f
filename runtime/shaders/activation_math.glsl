// activation_math.glsl - accurate f32 activations shared by unary.comp (erf, gelu, tanh) and the
// gatedMlp epilogues (gate_activation(): silu, erf GELU, tanh GELU; docs/extension-ops.md).
// exp is range-reduced and erf goes through an erfc with ~1e-7 relative error, so gelu keeps its
// relative accuracy for negative inputs; tanh_f is clamped to +-1 beyond |x| = 10 (a driver's tanh
// may overflow there through exp(2x)).  Include after common.glsl.
#ifndef ACTIVATION_MATH_GLSL
#define ACTIVATION_MATH_GLSL
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
// gelu(x) = 0.5 x (1 + erf(x / sqrt 2))
float gelu_f(float x) {
    // z = x / sqrt(2); z^2 = x^2 / 2 split exactly from x (the rounding of z would cost ~|z|^2 * 2^-23)
    float z = x * 0.70710678118654752, xx = x * x;
    float c = erfc_pos_sq(abs(z), 0.5 * xx, 0.5 * fma(x, x, -xx));
    return z < 0.0 ? 0.5 * x * c : (z < 0.5 ? 0.5 * x * (1.0 + erf_f(z)) : 0.5 * x * (2.0 - c));
}
// gelu with the tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
float gelu_tanh_f(float x) { return 0.5 * x * (1.0 + tanh_f(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

// gatedMlp's activation of a gate value (GATE_* of lib/core/fused_ops.h: 0 silu, 1 gelu, 2 geluTanh).
float gate_activation(uint act, float g) {
    if (act == 1u) return gelu_f(g);
    if (act == 2u) return gelu_tanh_f(g);
    return g / (1.0 + exp(-g));
}
#endif
