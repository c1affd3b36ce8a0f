/* infer_norm.c - shape inference of the norm family (ops.def): softmax and the batch, instance
 * and layer normalizations; infer_norm_rules is the family's op-indexed table. */
#include "infer_internal.h"

static int infer_softmax(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    if (!infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_axis(n, "axis", node_int(n, "axis", 0), x->rank))
        return -1;
    infer_desc_of(&out[0], x);
    return 1;
}

static int infer_batch_norm(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    int64_t axis = node_int(n, "axis", 1);
    if (!infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_axis(n, "axis", axis, x->rank))
        return -1;
    for (int slot = 1; slot <= 4; slot++)
        if (!infer_check_vector(g, n, slot, x->shape[axis], 0)) return -1;
    infer_desc_of(&out[0], x);
    return 1;
}

static int infer_instance_norm(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    static const char *const layouts[] = {"nchw", "nhwc", NULL};
    const Value *x = infer_in(n, 0);
    int layout = infer_read_enum(n, "layout", layouts);
    if (layout < 0 || !infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_rank(n, 0, 4, 4)) return -1;
    Dim channels = x->shape[layout == 0 ? 1 : 3];
    for (int slot = 1; slot <= 2; slot++)
        if (!infer_check_vector(g, n, slot, channels, 0)) return -1;
    infer_desc_of(&out[0], x);
    return 1;
}

static int infer_layer_norm(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    bool mask[WN_MAX_RANK];
    int order[WN_MAX_RANK];
    if (!infer_check_dtype(n, 0, DTM_FLOAT)) return -1;
    int count = infer_read_axes(n, "axes", x->rank, false, mask, order);
    if (count < 0) return -1;
    if (!node_attr(n, "axes")) { /* default: every axis but the first */
        count = 0;
        for (int i = 1; i < x->rank; i++) order[count++] = i;
    }
    /* scale and bias have the input's dims at `axes`, in that order. */
    Dim want[WN_MAX_RANK];
    for (int i = 0; i < count; i++) want[i] = x->shape[order[i]];
    for (int slot = 1; slot <= 2; slot++)
        if (!infer_check_same_dtype(n, slot, 0) || !infer_check_shape(g, n, slot, count, want)) return -1;
    infer_desc_of(&out[0], x);
    return 1;
}

const InferRule infer_norm_rules[OP_COUNT] = {
    [OP_SOFTMAX] = {infer_softmax},
    [OP_BATCH_NORMALIZATION] = {infer_batch_norm},
    [OP_INSTANCE_NORMALIZATION] = {infer_instance_norm},
    [OP_LAYER_NORMALIZATION] = {infer_layer_norm},
};
