/* ops_nn.c - ONNX MatMul (1-D operands via reshape), Gemm (matmul + transposes + alpha/beta),
 * Softmax/LogSoftmax (opset < 13: 2-D coercion), LayerNormalization (portable form: normalization
 * without scale/bias followed by mul/add; Mean/InvStdDev outputs decomposed),
 * BatchNormalization (training mode: batch statistics and running-statistics outputs), InstanceNormalization. */
#include "import_internal.h"

/* Shape of x with dimension `axis` removed. */
static Value *drop_dim(OnnxCtx *c, Value *x, int axis) {
    if (!x) return NULL;
    Dim s[WN_MAX_RANK];
    int r = 0;
    for (int i = 0; i < x->rank; i++)
        if (i != axis) s[r++] = x->shape[i];
    return onnx_emit_reshape(c, x, r, s);
}

static Value *matmul(OnnxCtx *c, Value *a, Value *b) {
    if (!a || !b) return NULL;
    if (a->rank == 0 || b->rank == 0) {
        onnx_imp_error(c, "MatMul operands must have rank >= 1");
        return NULL;
    }
    int ra = a->rank, rb = b->rank;
    if (ra == 1) a = onnx_emit_reshape(c, a, 2, (Dim[]){dim_static(1), a->shape[0]});
    if (rb == 1) b = onnx_emit_reshape(c, b, 2, (Dim[]){b->shape[0], dim_static(1)});
    Value *y = onnx_emit_binary(c, OP_MATMUL, a, b);
    if (y && rb == 1) y = drop_dim(c, y, y->rank - 1);
    if (y && ra == 1) y = drop_dim(c, y, y->rank - (rb == 1 ? 1 : 2));
    return y;
}

int onnx_MatMul(OnnxCtx *c) { return onnx_imp_result(c, matmul(c, onnx_in_req(c, 0), onnx_in_req(c, 1))); }

static Value *transpose2d(OnnxCtx *c, Value *x) {
    if (!x) return NULL;
    if (x->rank != 2) {
        onnx_imp_error(c, "Gemm operands must be 2-D");
        return NULL;
    }
    return onnx_emit_transpose(c, x, (const int64_t[]){1, 0});
}

int onnx_Gemm(OnnxCtx *c) {
    Value *a = onnx_in_req(c, 0), *b = onnx_in_req(c, 1), *cc = onnx_in_opt(c, 2);
    if (!a || !b) return -1;
    if (a->rank != 2 || b->rank != 2) return onnx_imp_error(c, "Gemm operands must be 2-D");
    if (onnx_attr_int(c, "transA", 0)) a = transpose2d(c, a);
    if (onnx_attr_int(c, "transB", 0)) b = transpose2d(c, b);
    double alpha = onnx_attr_float(c, "alpha", 1.0), beta = onnx_attr_float(c, "beta", 1.0);
    Value *y = onnx_emit_binary(c, OP_MATMUL, a, b);
    if (y && alpha != 1.0) y = onnx_emit_binary(c, OP_MUL, y, onnx_const_scalar(c, y->dtype, alpha));
    if (y && cc && beta != 0.0) {
        if (beta != 1.0) cc = onnx_emit_binary(c, OP_MUL, cc, onnx_const_scalar(c, cc->dtype, beta));
        y = onnx_emit_binary(c, OP_ADD, y, cc);
    }
    return onnx_imp_result(c, y);
}

/* Softmax or log-softmax over `axis` (x - reduceLogSumExp(x) for the latter). */
static Value *softmax_axis(OnnxCtx *c, Value *x, int64_t axis, bool log) {
    if (!x) return NULL;
    if (!log) {
        Node *n = onnx_imp_node(c, OP_SOFTMAX);
        node_add_input(c->g, n, x);
        node_set_uint(c->g, n, "axis", axis);
        return onnx_imp_finish(c, n);
    }
    Value *lse = onnx_emit_reduce(c, OP_REDUCE_LOG_SUM_EXP, x, 1, &axis, true);
    return onnx_emit_binary(c, OP_SUB, x, lse);
}

static int softmax(OnnxCtx *c, bool log) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    if (x->rank == 0) return onnx_imp_error(c, "input must have rank >= 1");
    bool old = c->opset < 13;
    int64_t axis;
    if (onnx_imp_axis(c, onnx_attr_int(c, "axis", old ? 1 : -1), x->rank, &axis) < 0) return -1;
    if (!old || axis == x->rank - 1) return onnx_imp_result(c, softmax_axis(c, x, axis, log));
    /* Opset < 13: softmax over the flattened trailing dims [axis, rank). */
    Dim flat[2] = {onnx_dims_product(c, x, 0, (int)axis), onnx_dims_product(c, x, (int)axis, x->rank)};
    Value *y = softmax_axis(c, onnx_emit_reshape(c, x, 2, flat), 1, log);
    return onnx_imp_result(c, onnx_emit_reshape(c, y, x->rank, x->shape));
}

int onnx_Softmax(OnnxCtx *c) { return softmax(c, false); }
int onnx_LogSoftmax(OnnxCtx *c) { return softmax(c, true); }

int onnx_LayerNormalization(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0), *scale = onnx_in_req(c, 1), *bias = onnx_in_opt(c, 2);
    if (!x || !scale) return -1;
    int64_t axis;
    if (onnx_imp_axis(c, onnx_attr_int(c, "axis", -1), x->rank, &axis) < 0) return -1;
    int64_t axes[WN_MAX_RANK];
    int n = 0;
    for (int64_t i = axis; i < x->rank; i++) axes[n++] = i;
    double eps = onnx_attr_float(c, "epsilon", 1e-5);
    Node *ln = onnx_imp_node(c, OP_LAYER_NORMALIZATION);
    node_add_input(c->g, ln, x);
    node_set_ints(c->g, ln, "axes", n, axes);
    node_set_float(c->g, ln, "epsilon", eps);
    Value *y = onnx_emit_binary(c, OP_MUL, onnx_imp_finish(c, ln), scale);
    if (y && bias) y = onnx_emit_binary(c, OP_ADD, y, bias);
    if (onnx_imp_wants_out(c, 1) || onnx_imp_wants_out(c, 2)) {
        /* Mean and InvStdDev = 1 / sqrt(mean((x - mean)^2) + epsilon), in float32 (stash_type 1). */
        if (onnx_attr_int(c, "stash_type", 1) != 1) return onnx_imp_error(c, "stash_type other than float32 is not supported");
        Value *xs = onnx_emit_cast(c, x, DT_F32);
        Value *mean = onnx_emit_reduce(c, OP_REDUCE_MEAN, xs, n, axes, true);
        Value *dev = onnx_emit_binary(c, OP_SUB, xs, mean);
        Value *var = onnx_emit_reduce(c, OP_REDUCE_MEAN, onnx_emit_binary(c, OP_MUL, dev, dev), n, axes, true);
        Value *inv = onnx_emit_unary(c, OP_RECIPROCAL,
                                onnx_emit_unary(c, OP_SQRT, onnx_emit_binary(c, OP_ADD, var, onnx_const_scalar(c, DT_F32, eps))));
        if (!inv) return -1;
        onnx_imp_set_out(c, 1, mean);
        onnx_imp_set_out(c, 2, inv);
    }
    return onnx_imp_result(c, y);
}

/* Training mode (opset >= 14, training_mode = 1): Y normalizes with the batch statistics (mean and
 * population variance over every axis but 1) and the optional outputs 1 and 2 are the running
 * statistics input * momentum + batch * (1 - momentum).  Extra outputs are invalid otherwise. */
static int batch_norm_training(OnnxCtx *c, Value *x, Value **mean, Value **var) {
    int64_t axes[WN_MAX_RANK];
    int n = 0;
    for (int i = 0; i < x->rank; i++)
        if (i != 1) axes[n++] = i;
    Value *bmean = onnx_emit_reduce(c, OP_REDUCE_MEAN, x, n, axes, true);
    Value *dev = onnx_emit_binary(c, OP_SUB, x, bmean);
    Value *bvar = onnx_emit_reduce(c, OP_REDUCE_MEAN, onnx_emit_binary(c, OP_MUL, dev, dev), n, axes, true);
    bmean = onnx_emit_reshape(c, bmean, 1, &x->shape[1]);
    bvar = onnx_emit_reshape(c, bvar, 1, &x->shape[1]);
    if (!bmean || !bvar) return -1;
    double m = onnx_attr_float(c, "momentum", 0.9);
    Value *stats[2] = {*mean, *var}, *batch[2] = {bmean, bvar};
    for (int i = 0; i < 2; i++) {
        if (!onnx_imp_wants_out(c, i + 1)) continue;
        Value *run = onnx_emit_binary(c, OP_ADD, onnx_emit_binary(c, OP_MUL, stats[i], onnx_const_scalar(c, x->dtype, m)),
                                 onnx_emit_binary(c, OP_MUL, batch[i], onnx_const_scalar(c, x->dtype, 1.0 - m)));
        if (!run) return -1;
        onnx_imp_set_out(c, i + 1, run);
    }
    *mean = bmean;
    *var = bvar;
    return 0;
}

int onnx_BatchNormalization(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0), *scale = onnx_in_req(c, 1), *bias = onnx_in_req(c, 2), *mean = onnx_in_req(c, 3), *var = onnx_in_req(c, 4);
    if (!x || !scale || !bias || !mean || !var) return -1;
    if (x->rank < 2) return onnx_imp_error(c, "input must have rank >= 2");
    bool training = c->opset >= 14 && onnx_attr_int(c, "training_mode", 0) != 0;
    if (!training && (onnx_imp_wants_out(c, 1) || onnx_imp_wants_out(c, 2)))
        return onnx_imp_error(c, c->opset >= 14 ? "outputs beyond Y need training_mode = 1"
                                           : "training mode (outputs beyond Y) before opset 14 is not supported");
    if (training && batch_norm_training(c, x, &mean, &var) < 0) return -1;
    Node *n = onnx_imp_node(c, OP_BATCH_NORMALIZATION);
    Value *ops[5] = {x, mean, var, scale, bias};
    for (int i = 0; i < 5; i++) node_add_input(c->g, n, ops[i]);
    node_set_uint(c->g, n, "axis", 1);
    node_set_float(c->g, n, "epsilon", onnx_attr_float(c, "epsilon", 1e-5));
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}

int onnx_InstanceNormalization(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0), *scale = onnx_in_req(c, 1), *bias = onnx_in_req(c, 2);
    if (!x || !scale || !bias) return -1;
    if (x->rank != 4) return onnx_imp_error(c, "only 4-D inputs are supported (got rank %d)", x->rank);
    Node *n = onnx_imp_node(c, OP_INSTANCE_NORMALIZATION);
    node_add_input(c->g, n, x);
    node_add_input(c->g, n, scale);
    node_add_input(c->g, n, bias);
    node_set_float(c->g, n, "epsilon", onnx_attr_float(c, "epsilon", 1e-5));
    node_set_string(c->g, n, "layout", "nchw");
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}
