/* onnx_tensor.c - TensorProto -> IR dtype, shape and bytes in IR layout.
 *
 * Sources: raw_data (referenced in place), typed fields (float_data, int32_data, int64_data,
 * uint64_data; converted into the graph arena following ONNX's packing rules), and external data
 * (a range of a memory-mapped file, see onnx_model_external_bytes).  Element types without a
 * WebNN counterpart are converted: bool -> uint8 (0/1), bfloat16 -> float32.  Tensor bytes are
 * little-endian, as ONNX stores them (webnnc targets little-endian hosts). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "onnx_model.h"

/* How the ONNX element type is stored and what it becomes in the IR. */
typedef enum { CONV_NONE, CONV_BOOL, CONV_BF16 } Conversion;

typedef struct {
    const char *name; /* tensor name for messages */
    const char *file; /* model file for messages */
} Ctx;

#define TERR(c, fmt, ...) diag_error("tensor %s: " fmt " (%s)", (c)->name, __VA_ARGS__, (c)->file)

/* ONNX's name for a TensorProto.DataType code, from the generated enum descriptor. */
static const char *onnx_type_name(int code, char *buf, size_t len) {
    const ProtobufCEnumValue *v =
        protobuf_c_enum_descriptor_get_value(&onnx__tensor_proto__data_type__descriptor, code);
    if (v) return v->name;
    snprintf(buf, len, "%d", code);
    return buf;
}

static int map_dtype(const Ctx *c, int code, DType *dt, Conversion *conv) {
    *conv = CONV_NONE;
    *dt = dtype_from_onnx(code);
    if (code == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) {
        *dt = DT_U8;
        *conv = CONV_BOOL;
    } else if (code == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16) {
        *dt = DT_F32;
        *conv = CONV_BF16;
    }
    if (*dt == DT_INVALID) {
        char buf[24];
        TERR(c, "unsupported data type %s", onnx_type_name(code, buf, sizeof buf));
        return -1;
    }
    return 0;
}

/* Bytes the ONNX storage of `count` elements takes (bfloat16: 2 bytes per element). */
static uint64_t onnx_storage_bytes(DType dt, Conversion conv, uint64_t count) {
    return conv == CONV_BF16 ? count * 2 : dtype_storage_bytes(dt, count);
}

/* Strict unsigned decimal; false on empty, sign, junk or overflow. */
static bool parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s) return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static const void *external_source(const Ctx *c, OnnxModel *m, const Onnx__TensorProto *t,
                                   uint64_t want) {
    const char *location = NULL;
    uint64_t offset = 0, length = want;
    bool has_length = false;
    for (size_t i = 0; i < t->n_external_data; i++) {
        const char *k = t->external_data[i]->key ? t->external_data[i]->key : "";
        const char *v = t->external_data[i]->value ? t->external_data[i]->value : "";
        if (strcmp(k, "location") == 0) {
            location = v;
        } else if (strcmp(k, "offset") == 0) {
            if (!parse_u64(v, &offset)) {
                TERR(c, "bad external data offset \"%s\"", v);
                return NULL;
            }
        } else if (strcmp(k, "length") == 0) {
            if (!parse_u64(v, &length)) {
                TERR(c, "bad external data length \"%s\"", v);
                return NULL;
            }
            has_length = true;
        }
    }
    if (!location) {
        TERR(c, "%s", "external data without a location");
        return NULL;
    }
    if (has_length && length != want) {
        TERR(c, "external data length %" PRIu64 " does not match its type and shape (%" PRIu64
             " bytes)", length, want);
        return NULL;
    }
    return onnx_model_external_bytes(m, c->name, location, offset, want);
}

/* Typed-field storage: which repeated field holds the values and how many it must have. */
static int typed_source(const Ctx *c, const Onnx__TensorProto *t, DType dt, Conversion conv,
                        uint64_t count, const void **vals, size_t *n, const char **field) {
    *vals = NULL;
    *n = 0;
    uint64_t want = count;
    if (dt == DT_F32 && conv == CONV_NONE) {
        *vals = t->float_data, *n = t->n_float_data, *field = "float_data";
    } else if (dt == DT_I64) {
        *vals = t->int64_data, *n = t->n_int64_data, *field = "int64_data";
    } else if (dt == DT_U32 || dt == DT_U64) {
        *vals = t->uint64_data, *n = t->n_uint64_data, *field = "uint64_data";
    } else {
        /* int32, int8, uint8, bool, float16, bfloat16; int4/uint4 as one packed byte each */
        *vals = t->int32_data, *n = t->n_int32_data, *field = "int32_data";
        if (dt == DT_I4 || dt == DT_U4) want = (count + 1) / 2;
    }
    if (*n != want) {
        if (*n == 0 && want > 0)
            TERR(c, "has no data (expected %" PRIu64 " values)", want);
        else
            TERR(c, "has %zu values in %s, expected %" PRIu64, *n, *field, want);
        return -1;
    }
    return 0;
}

/* Converts typed-field values into IR-layout bytes at dst. */
static void convert_typed(DType dt, Conversion conv, const void *vals, size_t n, uint8_t *dst) {
    const int32_t *i32 = vals;
    const uint64_t *u64 = vals;
    for (size_t i = 0; i < n; i++) {
        if (conv == CONV_BF16) {
            uint32_t bits = (uint32_t)(uint16_t)i32[i] << 16;
            memcpy(dst + 4 * i, &bits, 4);
        } else if (conv == CONV_BOOL) {
            dst[i] = i32[i] != 0;
        } else if (dt == DT_F16) {
            uint16_t h = (uint16_t)i32[i];
            memcpy(dst + 2 * i, &h, 2);
        } else if (dt == DT_I8 || dt == DT_U8 || dt == DT_I4 || dt == DT_U4) {
            dst[i] = (uint8_t)i32[i];
        } else if (dt == DT_U32) {
            uint32_t u = (uint32_t)u64[i];
            memcpy(dst + 4 * i, &u, 4);
        }
    }
    /* float32, int32, int64, uint64: same layout as the repeated field */
    if (n && conv == CONV_NONE && (dt == DT_F32 || dt == DT_I32 || dt == DT_I64 || dt == DT_U64))
        memcpy(dst, vals, n * (size_t)(dtype_bits(dt) / 8));
}

static void *arena_bytes(const Ctx *c, Graph *g, uint64_t nbytes) {
    if (!g) {
        TERR(c, "%s", "needs a graph to hold converted data");
        return NULL;
    }
    if (nbytes > SIZE_MAX / 2) {
        TERR(c, "%s", "too large to convert");
        return NULL;
    }
    return graph_alloc(g, nbytes ? (size_t)nbytes : 1);
}

/* Raw or external bytes in ONNX layout -> IR layout (in place when no conversion is needed and
 * the bytes are suitably aligned for their element type). */
static const void *finish_raw(const Ctx *c, Graph *g, DType dt, Conversion conv, const void *src,
                              uint64_t count, uint64_t nbytes) {
    if (conv == CONV_BF16) {
        uint8_t *dst = arena_bytes(c, g, nbytes);
        if (!dst) return NULL;
        const uint8_t *s = src;
        for (uint64_t i = 0; i < count; i++) {
            uint32_t bits = (uint32_t)(s[2 * i] | (s[2 * i + 1] << 8)) << 16;
            memcpy(dst + 4 * i, &bits, 4);
        }
        return dst;
    }
    if (conv == CONV_BOOL) {
        const uint8_t *s = src;
        uint64_t i = 0;
        while (i < count && s[i] <= 1) i++;
        if (i == count) return src;
        uint8_t *dst = arena_bytes(c, g, nbytes);
        if (!dst) return NULL;
        for (i = 0; i < count; i++) dst[i] = s[i] != 0;
        return dst;
    }
    unsigned align = (unsigned)(dtype_bits(dt) / 8);
    if (align > 1 && ((uintptr_t)src % align) != 0) {
        void *dst = arena_bytes(c, g, nbytes);
        if (!dst) return NULL;
        memcpy(dst, src, (size_t)nbytes);
        return dst;
    }
    return src;
}

int onnx_tensor_read(OnnxModel *m, Graph *g, const Onnx__TensorProto *t, OnnxTensorData *out) {
    Ctx ctx = {t && t->name && t->name[0] ? t->name : "<unnamed>",
               m && m->path ? m->path : "<memory>"};
    const Ctx *c = &ctx;
    memset(out, 0, sizeof *out);
    out->dtype = DT_INVALID;
    if (!t) {
        diag_error("missing tensor (%s)", c->file);
        return -1;
    }
    DType dt;
    Conversion conv;
    if (map_dtype(c, t->has_data_type ? t->data_type : 0, &dt, &conv) != 0) return -1;
    if (t->n_dims > WN_MAX_RANK) {
        TERR(c, "rank %zu exceeds the maximum of %d", t->n_dims, WN_MAX_RANK);
        return -1;
    }
    /* Element count, kept below 2^56 so byte sizes (up to 8 per element) cannot overflow. */
    uint64_t count = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0) {
            TERR(c, "negative dimension %" PRId64 " at axis %zu", t->dims[i], i);
            return -1;
        }
        if (__builtin_mul_overflow(count, (uint64_t)t->dims[i], &count) || count >= (1ull << 56)) {
            TERR(c, "%s", "element count overflows");
            return -1;
        }
        out->shape[i] = t->dims[i];
    }
    if (count > input_limit(LIMIT_TENSOR_ELEMENTS)) {
        TERR(c, "element count %llu is above the limit %s (%llu)", (unsigned long long)count,
             input_limit_name(LIMIT_TENSOR_ELEMENTS), (unsigned long long)input_limit(LIMIT_TENSOR_ELEMENTS));
        return -1;
    }
    out->rank = (int)t->n_dims;
    out->dtype = dt;
    if (t->segment) {
        TERR(c, "%s", "segmented tensors are not supported");
        return -1;
    }
    uint64_t src_bytes = onnx_storage_bytes(dt, conv, count);
    uint64_t ir_bytes = dtype_storage_bytes(dt, count);
    bool external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    if (t->has_data_location && !external &&
        t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT) {
        TERR(c, "unknown data_location %d", (int)t->data_location);
        return -1;
    }
    bool typed = t->n_float_data || t->n_int32_data || t->n_int64_data || t->n_uint64_data ||
                 t->n_double_data || t->n_string_data;
    const void *src;
    if (external || t->has_raw_data) {
        if (typed || (external && t->has_raw_data)) {
            TERR(c, "%s", "has data in more than one place");
            return -1;
        }
        if (external) {
            src = external_source(c, m, t, src_bytes);
            if (!src) return -1;
        } else {
            if (t->raw_data.len != src_bytes) {
                TERR(c, "raw_data has %zu bytes, expected %" PRIu64 " for its type and shape",
                     t->raw_data.len, src_bytes);
                return -1;
            }
            src = t->raw_data.data ? (const void *)t->raw_data.data : (const void *)"";
        }
        src = finish_raw(c, g, dt, conv, src, count, ir_bytes);
        if (!src) return -1;
    } else {
        const void *vals;
        size_t n;
        const char *field;
        if (typed_source(c, t, dt, conv, count, &vals, &n, &field) != 0) return -1;
        uint8_t *dst = arena_bytes(c, g, ir_bytes);
        if (!dst) return -1;
        convert_typed(dt, conv, vals, n, dst);
        src = dst;
    }
    out->data = src;
    out->nbytes = ir_bytes;
    return 0;
}
