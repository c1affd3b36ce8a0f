/* run_tolerance.c - default comparison tolerances of `webnnc run --expect` (see run_tolerance.h).
 * The numbers are those of ../shared/models/README.md for logits against ONNX Runtime: fp32
 * models 1e-4, int4 models with fp32 I/O 1e-3 (absolute), fp16 I/O 3e-2 (absolute). */
#include "run_tolerance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lower rank = lower precision. */
static int precision_rank(DType dt) {
    switch (dt) {
    case DT_I4: case DT_U4: return 0;
    case DT_I8: case DT_U8: return 1;
    case DT_F16: return 2;
    default: return 3;
    }
}

/* An 8-bit constant is a weight only where it is dequantized (a uint8 mask is not). */
static bool feeds_dequantization(const Graph *g, const Value *v) {
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        if (n->dead) continue;
        bool deq = n->op == OP_DEQUANTIZE_LINEAR || !(op_info(n->op)->flags & OPF_SPEC);
        for (int j = 0; deq && j < n->n_inputs; j++)
            if (n->inputs[j] == v) return true;
    }
    return false;
}

const char *weights_precision(const Graph *g) {
    DType lowest = DT_F32;
    for (int i = 0; i < g->n_values; i++) {
        const Value *v = g->values[i];
        if (!(v->flags & VF_CONST) || precision_rank(v->dtype) >= precision_rank(lowest)) continue;
        int64_t elements = 1;
        for (int d = 0; d < v->rank; d++) elements *= dim_is_static(v->shape[d]) ? v->shape[d].v : 1;
        if (v->dtype == DT_F16 && elements <= 8) continue; /* a scalar or an inline constant */
        if ((v->dtype == DT_I8 || v->dtype == DT_U8) && !feeds_dequantization(g, v)) continue;
        lowest = v->dtype;
    }
    return dtype_name(lowest);
}

Tolerance tolerance_for(DType out, const char *precision, const char *user_atol, const char *user_rtol) {
    Tolerance t = {.atol = 1e-4, .rtol = 1e-4};
    bool quantized = strstr(precision, "int") != NULL;
    if (!dtype_is_float(out)) {
        t.atol = t.rtol = 0;
        snprintf(t.reason, sizeof t.reason, "%s output: exact", dtype_name(out));
    } else {
        if (out == DT_F16 || !strcmp(precision, "float16")) {
            t.atol = 3e-2;
            t.rtol = 0;
        } else if (quantized) {
            t.atol = 1e-3;
            t.rtol = 0;
        }
        snprintf(t.reason, sizeof t.reason, "%s output, %s weights", dtype_name(out), precision);
    }
    if (user_atol) t.atol = strtod(user_atol, NULL); /* validated by the caller */
    if (user_rtol) t.rtol = strtod(user_rtol, NULL);
    t.user = user_atol || user_rtol;
    return t;
}
