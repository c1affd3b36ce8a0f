/* infer_reduce.c - shape inference of the reduce family (ops.def): reductions, argMin/argMax and
 * cumulativeSum, which work along axes; infer_reduce_rules is the family's op-indexed table. */
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

static int infer_reduce(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    bool mask[WN_MAX_RANK];
    if (!infer_check_dtype(n, 0, reduce_dtypes(n->op)) || infer_read_axes(n, "axes", x->rank, true, mask, NULL) < 0)
        return -1;
    reduce_shape(x, mask, node_bool(n, "keepDimensions", false), &out[0]);
    return 1;
}

static int infer_arg_minmax(Graph *g, const Node *n, TensorDesc *out, int max_out) {
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

static int infer_cumulative_sum(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    if (!infer_check_dtype(n, 0, DTM_WIDE_NUM) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_axis(n, "axis", node_int(n, "axis", 0), x->rank))
        return -1;
    infer_desc_of(&out[0], x);
    return 1;
}

#define R(ID) [OP_##ID] = {infer_reduce}
const InferRule infer_reduce_rules[OP_COUNT] = {
    R(REDUCE_L1), R(REDUCE_L2), R(REDUCE_LOG_SUM), R(REDUCE_LOG_SUM_EXP), R(REDUCE_MAX),
    R(REDUCE_MEAN), R(REDUCE_MIN), R(REDUCE_PRODUCT), R(REDUCE_SUM), R(REDUCE_SUM_SQUARE),
    [OP_ARG_MAX] = {infer_arg_minmax},
    [OP_ARG_MIN] = {infer_arg_minmax},
    [OP_CUMULATIVE_SUM] = {infer_cumulative_sum},
};
#undef R
