/* infer_reduce.c - shape inference for ops that work along axes: reductions, argMin/argMax,
 * cumulativeSum and the normalizations (batch, instance, layer). */
#include "infer_internal.h"

static DTypeMask reduce_dtypes(OpId op) {
    switch (op) {
    case OP_REDUCE_L1:
    case OP_REDUCE_SUM:
    case OP_REDUCE_SUM_SQUARE:
    case OP_REDUCE_PRODUCT: return DTM_WIDE_NUM;
    case OP_REDUCE_MAX:
    case OP_REDUCE_MIN: return DTM_WEBNN;
    default: return DTM_FLOAT;
    }
}

/* Removes (or sets to 1 with keep) the dims in mask. */
static void reduce_shape(const Value *x, const bool *mask, bool keep, TensorDesc *d) {
    d->dtype = x->dtype;
    d->rank = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!mask[i]) d->shape[d->rank++] = x->shape[i];
        else if (keep) d->shape[d->rank++] = dim_static(1);
    }
}

int infer_reduce(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    bool mask[WN_MAX_RANK];
    if (!infer_check_dtype(n, 0, reduce_dtypes(n->op)) || infer_read_axes(n, "axes", x->rank, true, mask, NULL) < 0)
        return -1;
    reduce_shape(x, mask, node_bool(n, "keepDimensions", false), &out[0]);
    return 1;
}

int infer_arg_minmax(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    int64_t axis = node_int(n, "axis", 0);
    if (!infer_check_dtype(n, 0, DTM_WEBNN) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_axis(n, "axis", axis, x->rank))
        return -1;
    DType odt = node_dtype(n, "outputDataType", DT_I32);
    if (odt != DT_I32 && odt != DT_I64) {
        diag_node_error(n, "outputDataType is %s, expected int32 or int64", dtype_name(odt));
        return -1;
    }
    bool mask[WN_MAX_RANK] = {false};
    mask[axis] = true;
    reduce_shape(x, mask, node_bool(n, "keepDimensions", false), &out[0]);
    out[0].dtype = odt;
    return 1;
}

int infer_cumulative_sum(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    if (!infer_check_dtype(n, 0, DTM_WIDE_NUM) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_axis(n, "axis", node_int(n, "axis", 0), x->rank))
        return -1;
    infer_desc_of(&out[0], x);
    return 1;
}

int infer_batch_norm(Graph *g, const Node *n, TensorDesc *out, int max_out) {
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

int infer_instance_norm(Graph *g, const Node *n, TensorDesc *out, int max_out) {
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

int infer_layer_norm(Graph *g, const Node *n, TensorDesc *out, int max_out) {
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
