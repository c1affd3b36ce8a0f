/* onnx_ops_list.c - the names of the ONNX op types the importer handles, straight from
 * onnx_ops.def (for `webnnc ops --onnx` and test classification).  Ops outside the default
 * domain are qualified: "com.microsoft.MatMulNBits". */
#include "onnx_import.h"

/* DOMAIN "." OP: a leading '.' marks the default domain and is skipped below. */
static const char *const raw_names[] = {
#define ONNX_OP(OP, DOMAIN, MIN_OPSET, HANDLER) DOMAIN "." #OP,
#include "onnx_ops.def"
#undef ONNX_OP
};

#define N_OPS ((int)(sizeof raw_names / sizeof raw_names[0]))

static const char *names[N_OPS];

const char *const *onnx_supported_ops(int *count) {
    if (!names[0])
        for (int i = 0; i < N_OPS; i++) names[i] = raw_names[i][0] == '.' ? raw_names[i] + 1 : raw_names[i];
    if (count) *count = N_OPS;
    return names;
}
