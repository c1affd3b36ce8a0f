#version 450
// cast.comp - cast A -> B with WebNN rules: float->float nearest (overflow -> +-Inf); float->int
// truncates toward zero, saturating out of range (NaN -> 0); int->float nearest; int->int keeps
// the low bits (two's complement wrap).
#include "common.glsl"
#include "strided.glsl"

layout(std430, binding = 0) readonly buffer In { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Out { B_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    int o0, o1, o2;
    strided_offsets(i, o0, o1, o2);
#if A_FLOAT && B_FLOAT
    y_out[o1] = B_T(float(x_in[o0]));
#elif A_FLOAT
    float x = float(x_in[o0]);
    x = isnan(x) ? 0.0 : trunc(x);
#if B_BITS == 64 && B_SIGNED
    y_out[o1] = x >= 9.2233720368547758e18 ? int64_t(9223372036854775807l) : (x <= -9.2233720368547758e18 ? int64_t(-9223372036854775807l) - int64_t(1) : int64_t(x));
#elif B_BITS == 64
    y_out[o1] = x >= 1.8446744073709552e19 ? uint64_t(18446744073709551615ul) : (x <= 0.0 ? uint64_t(0) : uint64_t(x));
#elif B_SIGNED
    const float lo = B_BITS == 8 ? -128.0 : -2147483648.0;
    const float hi = B_BITS == 8 ? 127.0 : 2147483648.0;
    y_out[o1] = x >= hi ? B_T(B_BITS == 8 ? 127 : 2147483647) : B_T(x <= lo ? int(lo) : int(x));
#else
    const float hi = B_BITS == 8 ? 255.0 : 4294967296.0;
    y_out[o1] = x >= hi ? B_T(B_BITS == 8 ? 255u : 4294967295u) : B_T(x <= 0.0 ? 0u : uint(x));
#endif
#elif B_FLOAT
    y_out[o1] = B_T(float(A_C(x_in[o0])));
#elif A_BITS == 64 || B_BITS == 64
    // through 64 bits: sign- or zero-extend, then keep the low bits
#if A_SIGNED
    y_out[o1] = B_T(B_C(int64_t(x_in[o0])));
#else
    y_out[o1] = B_T(B_C(uint64_t(x_in[o0])));
#endif
#else
#if A_SIGNED
    int v = int(x_in[o0]);
#else
    uint v = uint(x_in[o0]);
#endif
#if B_BITS == 8 && B_SIGNED
    y_out[o1] = int8_t(int(uint(v) << 24) >> 24);
#elif B_BITS == 8
    y_out[o1] = uint8_t(uint(v) & 255u);
#elif B_SIGNED
    y_out[o1] = int(v);
#else
    y_out[o1] = uint(v);
#endif
#endif
}
