/* infer_quant.c - shape inference of the quant family (ops.def): quantizeLinear and
 * dequantizeLinear with blockwise broadcasting of scale and zeroPoint; infer_quant_rules is the
 * family's op-indexed table. */
#include "infer_internal.h"

/* Blockwise broadcasting of scale to input: scale's dims align with input's trailing dims and
 * each input dim is a multiple of the matching scale dim (a lower scale rank is accepted, as
 * Chromium does, with missing leading dims treated as 1). */
static bool blockwise(const Value *scale, const Value *x) {
    if (scale->rank > x->rank) return false;
    for (int i = 0; i < scale->rank; i++) {
        Dim s = scale->shape[i], d = x->shape[x->rank - scale->rank + i];
        if (dim_equal(s, d) || (dim_is_static(s) && s.v == 1)) continue;
        if (!dim_is_static(s) || !dim_is_static(d) || s.v <= 0 || d.v % s.v != 0) return false;
    }
    return true;
}

static int infer_quantize(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0), *scale = infer_in(n, 1), *zp = infer_in(n, 2);
    bool dq = n->op == OP_DEQUANTIZE_LINEAR;
    if (dq) {
        if (!infer_check_dtype(n, 0, DTM_QUANT) || !infer_check_dtype(n, 1, DTM_FLOAT) ||
            !infer_check_same_dtype(n, 2, 0))
            return -1;
    } else if (!infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_same_dtype(n, 1, 0) ||
               !infer_check_dtype(n, 2, DTM_QUANT)) {
        return -1;
    }
    if (!infer_check_shape(g, n, 2, scale->rank, scale->shape)) return -1;
    if (!blockwise(scale, x)) {
        infer_shapes_error(g, n, "scale shape", scale->rank, scale->shape, "is not blockwise broadcastable to input shape",
                           x->rank, x->shape);
        return -1;
    }
    infer_desc_of(&out[0], x);
    out[0].dtype = dq ? scale->dtype : zp->dtype;
    return 1;
}

const InferRule infer_quant_rules[OP_COUNT] = {
    [OP_DEQUANTIZE_LINEAR] = {infer_quantize},
    [OP_QUANTIZE_LINEAR] = {infer_quantize},
};
