#version 450
// quant_linear.comp - quantizeLinear (A float -> B integer) and dequantizeLinear (A integer -> B
// float) with blockwise broadcasting: scale/zeroPoint element = element coordinate / block per dim
// (pc.block, scale strides pc.sst).  quantize: clamp(roundEven(x / scale) + zeroPoint) to B's
// range (NaN -> 0); dequantize: (x - zeroPoint) * scale.  4-bit types (A_BITS/B_BITS == 4) are
// packed two per byte, low nibble first, and bound as 32-bit words; a 4-bit output is written one
// word (8 elements) per thread so no two threads share a word.
#include "common.glsl"

PARAMS_BLOCK PC {
    uint n, rank, threads, pad0;
    uint shape[6];
    uint block[6];
    int sst[6];
    int base_x, base_s, base_z, base_y;
} pc;

#if A_FLOAT // quantize: x, scale float (A); zeroPoint, y integer (B)
#define S_T A_T
#define Z_T B_T
#define Z_BITS B_BITS
#define Z_SIGNED B_SIGNED
#else       // dequantize: x, zeroPoint integer (A); scale, y float (B)
#define S_T B_T
#define Z_T A_T
#define Z_BITS A_BITS
#define Z_SIGNED A_SIGNED
#endif
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer S { S_T s_in[]; };
layout(std430, binding = 2) readonly buffer Z { Z_T z_in[]; };
layout(std430, binding = 3) writeonly buffer Y { B_T y_out[]; };

// Nibble e of a packed 4-bit array (as a sign- or zero-extended value).
#define NIBBLE(arr, e) ((arr[(e) >> 3] >> (((e) & 7u) * 4u)) & 15u)
float nib_value(uint v, bool signed_) { return signed_ ? float(int(v << 28) >> 28) : float(v); }

// Offset of the scale/zeroPoint element for input element e.
int param_offset(uint e) {
    int o = 0;
    for (int d = int(pc.rank) - 1; d >= 0; d--) {
        uint q = e / pc.shape[d];
        uint c = e - q * pc.shape[d];
        e = q;
        o += int(c / pc.block[d]) * pc.sst[d];
    }
    return o;
}

float zero_point(int po) {
#if Z_BITS == 4
    return nib_value(NIBBLE(z_in, uint(pc.base_z + po)), Z_SIGNED != 0);
#else
    return float(z_in[pc.base_z + po]);
#endif
}

#if A_FLOAT
float quantize(uint e) {
    int po = param_offset(e);
    float q = roundEven(float(x_in[pc.base_x + int(e)]) / float(s_in[pc.base_s + po])) + zero_point(po);
#if B_BITS == 4 && B_SIGNED
    const float lo = -8.0, hi = 7.0;
#elif B_BITS == 4
    const float lo = 0.0, hi = 15.0;
#elif B_BITS == 8 && B_SIGNED
    const float lo = -128.0, hi = 127.0;
#elif B_BITS == 8
    const float lo = 0.0, hi = 255.0;
#elif B_SIGNED
    const float lo = -2147483648.0, hi = 2147483520.0; // largest float below 2^31
#else
    const float lo = 0.0, hi = 4294967040.0;          // largest float below 2^32
#endif
    return isnan(q) ? 0.0 : clamp(q, lo, hi);
}
#endif

void main() {
    uint t = flat_id();
    if (t >= pc.threads) return;
#if A_FLOAT && B_BITS == 4
    uint word = 0u;
    for (uint j = 0u; j < 8u; j++) {
        uint e = t * 8u + j;
        if (e >= pc.n) break;
        word |= (uint(int(quantize(e))) & 15u) << (j * 4u);
    }
    y_out[t] = word;
#elif A_FLOAT
    float q = quantize(t);
#if B_SIGNED
    y_out[pc.base_y + int(t)] = B_T(int(q));
#else
    y_out[pc.base_y + int(t)] = B_T(uint(q));
#endif
#else
    int po = param_offset(t);
#if A_BITS == 4
    float x = nib_value(NIBBLE(x_in, t), A_SIGNED != 0);
#else
    float x = float(x_in[pc.base_x + int(t)]);
#endif
    y_out[pc.base_y + int(t)] = B_T((x - zero_point(po)) * float(s_in[pc.base_s + po]));
#endif
}
