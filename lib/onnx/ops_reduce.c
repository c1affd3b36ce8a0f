/* ops_reduce.c - ONNX Reduce* (axes as attribute in old opsets, as a constant input from opset 13
 * for ReduceSum and 18 for the others; keepdims; noop_with_empty_axes) and ArgMax/ArgMin
 * (select_last_index via reverse). */
#include "import_internal.h"

static int reduce(OnnxCtx *c, OpId op, int64_t axes_input_opset) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    int64_t axes[IMP_MAX_INTS];
    int n;
    if (c->opset >= axes_input_opset) {
        Value *a = onnx_in_opt(c, 1);
        n = a ? onnx_imp_const_ints(c, a, "axes", axes, WN_MAX_RANK) : 0;
        if (n < 0) return -1;
    } else {
        n = onnx_attr_ints(c, "axes", axes, WN_MAX_RANK);
        if (n < 0) n = 0;
    }
    if (n == 0) {
        if (onnx_attr_int(c, "noop_with_empty_axes", 0)) return onnx_imp_result(c, x);
        for (int i = 0; i < x->rank; i++) axes[i] = i;
        n = x->rank;
    } else if (onnx_imp_axes(c, axes, n, x->rank) < 0) {
        return -1;
    }
    return onnx_imp_result(c, onnx_emit_reduce(c, op, x, n, axes, onnx_attr_int(c, "keepdims", 1) != 0));
}

#define REDUCE(TYPE, OP, OPSET) \
    int onnx_##TYPE(OnnxCtx *c) { return reduce(c, OP_##OP, OPSET); }

REDUCE(ReduceSum, REDUCE_SUM, 13)
REDUCE(ReduceMean, REDUCE_MEAN, 18)
REDUCE(ReduceMax, REDUCE_MAX, 18)
REDUCE(ReduceMin, REDUCE_MIN, 18)
REDUCE(ReduceProd, REDUCE_PRODUCT, 18)
REDUCE(ReduceL1, REDUCE_L1, 18)
REDUCE(ReduceL2, REDUCE_L2, 18)
REDUCE(ReduceLogSum, REDUCE_LOG_SUM, 18)
REDUCE(ReduceLogSumExp, REDUCE_LOG_SUM_EXP, 18)
REDUCE(ReduceSumSquare, REDUCE_SUM_SQUARE, 18)

static int arg(OnnxCtx *c, OpId op) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    int64_t axis;
    if (onnx_imp_axis(c, onnx_attr_int(c, "axis", 0), x->rank, &axis) < 0) return -1;
    bool last = onnx_attr_int(c, "select_last_index", 0) != 0;
    Dim d = x->shape[axis];
    if (last && !dim_is_static(d)) return onnx_imp_error(c, "select_last_index=1 needs a static dimension %lld", (long long)axis);
    Value *in = x;
    if (last) { /* last index of the extreme = (d - 1) - first index in the reversed tensor */
        Node *r = onnx_imp_node(c, OP_REVERSE);
        node_add_input(c->g, r, x);
        node_set_ints(c->g, r, "axes", 1, &axis);
        if (!(in = onnx_imp_finish(c, r))) return -1;
    }
    Node *n = onnx_imp_node(c, op);
    node_add_input(c->g, n, in);
    node_set_uint(c->g, n, "axis", axis);
    node_set_bool(c->g, n, "keepDimensions", onnx_attr_int(c, "keepdims", 1) != 0);
    node_set_dtype(c->g, n, "outputDataType", DT_I64);
    Value *idx = onnx_imp_finish(c, n);
    if (last) idx = onnx_emit_binary(c, OP_SUB, onnx_const_scalar(c, DT_I64, (double)(d.v - 1)), idx);
    return onnx_imp_result(c, idx);
}

int onnx_ArgMax(OnnxCtx *c) { return arg(c, OP_ARG_MAX); }
int onnx_ArgMin(OnnxCtx *c) { return arg(c, OP_ARG_MIN); }
