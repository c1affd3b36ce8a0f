/* dtype.c - element type queries, generated from dtype.def. */
#include <string.h>

#include "ir.h"

static const struct {
    const char *name, *text;
    int bits, onnx;
    unsigned flags;
} dtypes[DT_COUNT] = {
#define DTYPE(ID, NAME, TEXT, BITS, ONNX, FLAGS) [DT_##ID] = {NAME, TEXT, BITS, ONNX, FLAGS},
#include "dtype.def"
#undef DTYPE
};

static bool valid(DType dt) { return dt >= 0 && dt < DT_COUNT; }

const char *dtype_name(DType dt) { return valid(dt) ? dtypes[dt].name : "invalid"; }
const char *dtype_text_name(DType dt) { return valid(dt) ? dtypes[dt].text : "invalid"; }
int dtype_bits(DType dt) { return valid(dt) ? dtypes[dt].bits : 0; }
bool dtype_is_float(DType dt) { return valid(dt) && (dtypes[dt].flags & DTF_FLOAT); }
bool dtype_is_int(DType dt) { return valid(dt) && (dtypes[dt].flags & DTF_INT); }
bool dtype_is_signed(DType dt) { return valid(dt) && (dtypes[dt].flags & DTF_SIGNED); }

DType dtype_from_name(const char *name) {
    for (int i = 0; i < DT_COUNT; i++)
        if (strcmp(dtypes[i].name, name) == 0) return (DType)i;
    return DT_INVALID;
}

DType dtype_from_onnx(int code) {
    for (int i = 0; i < DT_COUNT; i++)
        if (dtypes[i].onnx == code) return (DType)i;
    return DT_INVALID;
}

uint64_t dtype_storage_bytes(DType dt, uint64_t n) {
    int bits = dtype_bits(dt);
    return (n * (uint64_t)bits + 7) / 8;
}
