/* eval_tensor.c - element access for the CPU evaluator: reads any IR dtype as double/int64 and
 * writes with the WebNN cast rules (float->int truncation, integer wrap-around, float16 round to
 * nearest even with saturation to inf, 4-bit types packed two per byte low nibble first); plus
 * strides / broadcasting helpers and option readers. */
#include <math.h>
#include <string.h>

#include "core.h"
#include "eval_internal.h"

int ten_from_value(const Node *n, const Value *v, Ten *t) {
    memset(t, 0, sizeof *t);
    t->dt = v->dtype;
    t->rank = v->rank;
    if (v->rank < 0 || v->rank > WN_MAX_RANK || (int)v->dtype < 0 || v->dtype >= DT_COUNT) {
        diag_node_error(n, "operand %s has an invalid type", value_display_name(v));
        return -1;
    }
    int64_t count = 1;
    for (int i = 0; i < v->rank; i++) {
        if (!dim_is_static(v->shape[i]) || v->shape[i].v <= 0 || v->shape[i].v > INT32_MAX) {
            diag_node_error(n, "operand %s needs a static positive shape", value_display_name(v));
            return -1;
        }
        t->shape[i] = v->shape[i].v;
        count *= v->shape[i].v;
        if (count > INT32_MAX) {
            diag_node_error(n, "operand %s has too many elements", value_display_name(v));
            return -1;
        }
    }
    t->count = count;
    if (!v->data || v->nbytes < dtype_storage_bytes(v->dtype, (uint64_t)count)) {
        diag_node_error(n, "constant %s has %llu bytes, expected %llu", value_display_name(v),
                        (unsigned long long)v->nbytes,
                        (unsigned long long)dtype_storage_bytes(v->dtype, (uint64_t)count));
        return -1;
    }
    t->data = (void *)v->data;
    return 0;
}

int eval_fail(const Node *n, const char *what) {
    diag_node_error(n, "cannot evaluate: %s", what);
    return -1;
}

/* ---- float16 ----------------------------------------------------------------------------- */

uint16_t ten_f64_to_f16(double v) {
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (isnan(v)) return sign | 0x7e00;
    if (a >= 65520.0) return sign | 0x7c00; /* rounds to inf (65504 is the largest finite) */
    if (a < 0x1p-14) {                       /* subnormal: units of 2^-24 */
        return sign | (uint16_t)nearbyint(a * 0x1p24); /* may round up to the smallest normal */
    }
    int e;
    double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    double m = nearbyint(f * 2048.0); /* 11 significant bits, in [1024, 2048] */
    int exp = e - 1;
    if (m >= 2048.0) {
        m = 1024.0;
        exp++;
    }
    return sign | (uint16_t)(((exp + 15) << 10) | ((int)m - 1024));
}

double ten_f16_to_f64(uint16_t h) {
    int e = (h >> 10) & 0x1f;
    int m = h & 0x3ff;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 0) return s * ldexp(m, -24);
    if (e == 31) return m ? NAN : s * INFINITY;
    return s * ldexp(m + 1024, e - 25);
}

double ten_round_to_dtype(DType dt, double v) {
    if (dt == DT_F32) return (double)(float)v;
    if (dt == DT_F16) return ten_f16_to_f64(ten_f64_to_f16(v));
    return v;
}

/* ---- integers ----------------------------------------------------------------------------- */

int64_t ten_wrap_int(DType dt, int64_t v) {
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case DT_I32: return (int32_t)(uint32_t)u;
    case DT_U32: return (uint32_t)u;
    case DT_I8: return (int8_t)(uint8_t)u;
    case DT_U8: return (uint8_t)u;
    case DT_I4: return (u & 8) ? (int64_t)(u & 15) - 16 : (int64_t)(u & 15);
    case DT_U4: return (int64_t)(u & 15);
    default: return v;
    }
}

bool ten_is_unsigned64(const Ten *t) { return t->dt == DT_U64; }

double ten_value_as_double(DType dt, int64_t bits) {
    return dt == DT_U64 ? (double)(uint64_t)bits : (double)bits;
}

/* Truncates a double toward zero into int64, saturating; NaN -> 0. */
static int64_t trunc_to_i64(double v) {
    if (isnan(v)) return 0;
    if (v >= 0x1p63) return INT64_MAX;
    if (v <= -0x1p63) return INT64_MIN;
    return (int64_t)v;
}

/* Float -> integer dtype: truncate toward zero, saturate to the type's range (the spec leaves
 * out-of-range values implementation-defined). */
static int64_t float_to_int(DType dt, double v) {
    if (isnan(v)) return 0;
    v = trunc(v);
    double lo, hi;
    switch (dt) {
    case DT_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case DT_U32: lo = 0; hi = UINT32_MAX; break;
    case DT_I8: lo = -128; hi = 127; break;
    case DT_U8: lo = 0; hi = 255; break;
    case DT_I4: lo = -8; hi = 7; break;
    case DT_U4: lo = 0; hi = 15; break;
    case DT_U64:
        if (v <= 0) return 0;
        if (v >= 0x1p64) return (int64_t)UINT64_MAX;
        return (int64_t)(uint64_t)v;
    default: return trunc_to_i64(v);
    }
    return (int64_t)(v < lo ? lo : v > hi ? hi : v);
}

/* ---- element read / write ------------------------------------------------------------------ */

static int64_t get_raw_int(const Ten *t, int64_t i) {
    const unsigned char *p = t->data;
    switch (t->dt) {
    case DT_I32: { int32_t x; memcpy(&x, p + i * 4, 4); return x; }
    case DT_U32: { uint32_t x; memcpy(&x, p + i * 4, 4); return x; }
    case DT_I64:
    case DT_U64: { int64_t x; memcpy(&x, p + i * 8, 8); return x; }
    case DT_I8: return (int8_t)p[i];
    case DT_U8: return p[i];
    case DT_I4:
    case DT_U4: return ten_wrap_int(t->dt, (p[i >> 1] >> ((i & 1) * 4)) & 15);
    default: return 0;
    }
}

double ten_getf(const Ten *t, int64_t i) {
    const unsigned char *p = t->data;
    if (t->dt == DT_F32) {
        float x;
        memcpy(&x, p + i * 4, 4);
        return x;
    }
    if (t->dt == DT_F16) {
        uint16_t h;
        memcpy(&h, p + i * 2, 2);
        return ten_f16_to_f64(h);
    }
    return ten_value_as_double(t->dt, get_raw_int(t, i));
}

int64_t ten_geti(const Ten *t, int64_t i) {
    if (dtype_is_float(t->dt)) return trunc_to_i64(ten_getf(t, i));
    return get_raw_int(t, i);
}

static void put_raw_int(Ten *t, int64_t i, int64_t v) {
    unsigned char *p = t->data;
    switch (t->dt) {
    case DT_I32:
    case DT_U32: { uint32_t x = (uint32_t)v; memcpy(p + i * 4, &x, 4); break; }
    case DT_I64:
    case DT_U64: memcpy(p + i * 8, &v, 8); break;
    case DT_I8:
    case DT_U8: p[i] = (unsigned char)v; break;
    case DT_I4:
    case DT_U4: {
        int sh = (int)(i & 1) * 4;
        p[i >> 1] = (unsigned char)((p[i >> 1] & ~(15 << sh)) | ((v & 15) << sh));
        break;
    }
    default: break;
    }
}

static void put_float(Ten *t, int64_t i, double v) {
    unsigned char *p = t->data;
    if (t->dt == DT_F32) {
        float x = (float)v;
        memcpy(p + i * 4, &x, 4);
    } else {
        uint16_t h = ten_f64_to_f16(v);
        memcpy(p + i * 2, &h, 2);
    }
}

void ten_setf(Ten *t, int64_t i, double v) {
    if (dtype_is_float(t->dt)) put_float(t, i, v);
    else put_raw_int(t, i, float_to_int(t->dt, v));
}

void ten_seti(Ten *t, int64_t i, int64_t v) {
    if (dtype_is_float(t->dt)) put_float(t, i, (double)v);
    else put_raw_int(t, i, ten_wrap_int(t->dt, v));
}

void ten_copy_elem(Ten *d, int64_t di, const Ten *s, int64_t si) {
    int bits = dtype_bits(s->dt);
    if (bits == 4) {
        put_raw_int(d, di, get_raw_int(s, si));
        return;
    }
    size_t b = (size_t)bits / 8;
    memcpy((unsigned char *)d->data + di * (int64_t)b, (const unsigned char *)s->data + si * (int64_t)b, b);
}

/* ---- index arithmetic ---------------------------------------------------------------------- */

void ten_strides(const Ten *t, int64_t *strides) {
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= t->shape[i];
    }
}

void ten_bcast_strides(const Ten *t, int rank, const int64_t *out_shape, int64_t *strides) {
    int64_t own[WN_MAX_RANK];
    ten_strides(t, own);
    int off = rank - t->rank;
    for (int i = 0; i < rank; i++) {
        int j = i - off;
        strides[i] = (j < 0 || t->shape[j] == 1 || out_shape[i] == 1) ? 0 : own[j];
    }
}

void ten_unravel(int64_t i, int rank, const int64_t *shape, int64_t *coord) {
    for (int d = rank - 1; d >= 0; d--) {
        coord[d] = i % shape[d];
        i /= shape[d];
    }
}

int64_t ten_dot_strides(int rank, const int64_t *coord, const int64_t *strides) {
    int64_t o = 0;
    for (int d = 0; d < rank; d++) o += coord[d] * strides[d];
    return o;
}

/* ---- options ------------------------------------------------------------------------------- */

int eval_attr_ints(const Node *n, const char *key, int64_t *out, int max) {
    const Attr *a = node_attr(n, key);
    if (!a) return -1;
    if (a->type == AT_INTS) {
        if (a->n > max) return -2;
        for (int i = 0; i < a->n; i++) out[i] = a->u.ints[i];
        return a->n;
    }
    if (a->type == AT_DIMS) {
        if (a->n > max) return -2;
        for (int i = 0; i < a->n; i++) {
            if (!dim_is_static(a->u.dims[i])) return -2;
            out[i] = a->u.dims[i].v;
        }
        return a->n;
    }
    if (a->type == AT_FLOATS) {
        if (a->n > max) return -2;
        for (int i = 0; i < a->n; i++) out[i] = (int64_t)a->u.floats[i];
        return a->n;
    }
    if (a->type == AT_INT || a->type == AT_UINT) {
        if (max < 1) return -2;
        out[0] = a->u.i;
        return 1;
    }
    return -2;
}

int eval_attr_axis(const Node *n, const char *key, int64_t def, int rank) {
    int64_t a = node_int(n, key, def);
    if (a < 0) a += rank;
    if (a < 0 || a >= (rank ? rank : 1)) {
        diag_node_error(n, "%s %lld is out of range for rank %d", key, (long long)node_int(n, key, def), rank);
        return -1;
    }
    return (int)a;
}

bool ten_same_shape(const Ten *a, const Ten *b) {
    if (a->rank != b->rank) return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
}
