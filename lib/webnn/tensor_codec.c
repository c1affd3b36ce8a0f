/* tensor_codec.c - 4-bit unpacking/packing, half floats and scalar constants (see tensor_codec.h). */
#include "tensor_codec.h"

#include <math.h>
#include <string.h>

void wn_nibbles_unpack(const uint8_t *packed, uint64_t first, uint64_t count, uint8_t *out) {
    for (uint64_t i = 0; i < count; i++) {
        uint64_t e = first + i;
        uint8_t byte = packed[e / 2];
        out[i] = (e & 1) ? (uint8_t)(byte >> 4) : (uint8_t)(byte & 0xF);
    }
}

void wn_nibbles_pack(const uint8_t *bytes, uint64_t count, uint8_t *packed) {
    for (uint64_t i = 0; i + 1 < count; i += 2)
        packed[i / 2] = (uint8_t)((bytes[i] & 0xF) | (bytes[i + 1] & 0xF) << 4);
    if (count & 1) packed[count / 2] = bytes[count - 1] & 0xF;
}

bool wn_nibbles_valid(DType dt, const uint8_t *bytes, uint64_t count) {
    for (uint64_t i = 0; i < count; i++) {
        uint8_t b = bytes[i];
        if (b <= 15) continue;
        if (dt == DT_I4 && b >= 0xF8) continue; /* -8..-1 stored sign-extended */
        return false;
    }
    return true;
}

bool wn_tensor_bytes_equal(DType dt, uint64_t n, const void *a, const void *b) {
    if (!dtype_is_4bit(dt)) return memcmp(a, b, (size_t)dtype_storage_bytes(dt, n)) == 0;
    if (memcmp(a, b, (size_t)(n / 2)) != 0) return false;
    if (!(n & 1)) return true;
    return ((((const uint8_t *)a)[n / 2] ^ ((const uint8_t *)b)[n / 2]) & 0xF) == 0;
}

float wn_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | man << 13;
    } else if (exp) {
        bits = sign | (exp + 112) << 23 | man << 13;
    } else if (man) { /* subnormal: normalize */
        int e = -1;
        do {
            man <<= 1;
            e++;
        } while (!(man & 0x400));
        bits = sign | (uint32_t)(112 - e) << 23 | (man & 0x3FF) << 13;
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t wn_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t exp = (x >> 23) & 0xFF, man = x & 0x7FFFFF;
    if (exp == 0xFF) return (uint16_t)(sign | 0x7C00 | (man ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1F) return (uint16_t)(sign | 0x7C00);
    if (e <= 0) {
        if (e < -10) return sign;
        man |= 0x800000;
        int shift = 14 - e;
        uint32_t half = man >> shift, rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = (uint32_t)e << 10 | man >> 13, rest = man & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half++; /* may carry into inf: correct */
    return (uint16_t)(sign | half);
}

/* Element i of a non-4-bit IR tensor as a double (exact for everything but 64-bit integers). */
static double element(DType dt, const uint8_t *p) {
    switch (dt) {
    case DT_F32: { float v; memcpy(&v, p, 4); return v; }
    case DT_F16: { uint16_t v; memcpy(&v, p, 2); return wn_f16_to_f32(v); }
    case DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case DT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case DT_I8: return (int8_t)p[0];
    case DT_U8: return p[0];
    default: return NAN;
    }
}

bool wn_scalar_fits(DType dt, double value) {
    if (!isfinite(value)) return false;
    float f = (float)value;
    if (!isfinite(f)) return false;
    double d = f;
    switch (dt) {
    case DT_F32: case DT_F16: return true;
    case DT_I32: return d == floor(d) && d >= -2147483648.0 && d <= 2147483647.0;
    case DT_U32: return d == floor(d) && d >= 0 && d <= 4294967295.0;
    case DT_I8: return d == floor(d) && d >= -128 && d <= 127;
    case DT_U8: return d == floor(d) && d >= 0 && d <= 255;
    default: return false;
    }
}

bool wn_tensor_scalar_value(DType dt, uint64_t n, const void *data, double *value) {
    if (n == 0 || dtype_is_4bit(dt) || dt == DT_I64 || dt == DT_U64) return false;
    size_t es = (size_t)dtype_bits(dt) / 8;
    const uint8_t *p = data;
    for (uint64_t i = 1; i < n; i++)
        if (memcmp(p, p + i * es, es) != 0) return false;
    double v = element(dt, p);
    if (!wn_scalar_fits(dt, v)) return false;
    if (dt == DT_F32 || dt == DT_F16) {
        /* The float32 round trip must give the same bits (it does unless nan). */
        if ((double)(float)v != v) return false;
    }
    *value = v;
    return true;
}

void wn_tensor_fill_scalar(DType dt, uint64_t n, double value, void *data) {
    uint8_t e[8];
    size_t es = (size_t)dtype_bits(dt) / 8;
    float f = (float)value;
    switch (dt) {
    case DT_F32: memcpy(e, &f, 4); break;
    case DT_F16: { uint16_t h = wn_f32_to_f16(f); memcpy(e, &h, 2); break; }
    case DT_I32: { int32_t v = (int32_t)f; memcpy(e, &v, 4); break; }
    case DT_U32: { uint32_t v = (uint32_t)f; memcpy(e, &v, 4); break; }
    case DT_I8: e[0] = (uint8_t)(int8_t)f; break;
    case DT_U8: e[0] = (uint8_t)f; break;
    default: return;
    }
    uint8_t *p = data;
    for (uint64_t i = 0; i < n; i++) memcpy(p + i * es, e, es);
}
