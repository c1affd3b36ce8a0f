/* k_eltwise.c - element-wise kernel families: unary ops and activations (incl. clamp, logicalNot,
 * isNaN/isInfinite), binary arithmetic/comparison/logical ops and prelu (numpy broadcasting by
 * strides), where, and cast.  All go through the strided launcher (k_strided.c). */
#include "clamp_bounds.h"
#include "k_strided.h"
#include "shaders/ew_codes.h"

#define WG 256

static int unary_code(OpId op) {
    switch (op) {
    case OP_ABS: return EWU_ABS;
    case OP_CEIL: return EWU_CEIL;
    case OP_COS: return EWU_COS;
    case OP_ERF: return EWU_ERF;
    case OP_EXP: return EWU_EXP;
    case OP_FLOOR: return EWU_FLOOR;
    case OP_IDENTITY: return EWU_IDENTITY;
    case OP_LOG: return EWU_LOG;
    case OP_NEG: return EWU_NEG;
    case OP_RECIPROCAL: return EWU_RECIPROCAL;
    case OP_ROUND_EVEN: return EWU_ROUND_EVEN;
    case OP_SIGN: return EWU_SIGN;
    case OP_SIN: return EWU_SIN;
    case OP_SQRT: return EWU_SQRT;
    case OP_TAN: return EWU_TAN;
    case OP_IS_NAN: return EWU_IS_NAN;
    case OP_IS_INFINITE: return EWU_IS_INFINITE;
    case OP_ELU: return EWU_ELU;
    case OP_GELU: return EWU_GELU;
    case OP_HARD_SIGMOID: return EWU_HARD_SIGMOID;
    case OP_HARD_SWISH: return EWU_HARD_SWISH;
    case OP_LEAKY_RELU: return EWU_LEAKY_RELU;
    case OP_LINEAR: return EWU_LINEAR;
    case OP_RELU: return EWU_RELU;
    case OP_SIGMOID: return EWU_SIGMOID;
    case OP_SOFTPLUS: return EWU_SOFTPLUS;
    case OP_SOFTSIGN: return EWU_SOFTSIGN;
    case OP_TANH: return EWU_TANH;
    case OP_CLAMP: return EWU_CLAMP;
    case OP_LOGICAL_NOT: return EWU_LOGICAL_NOT;
    default: return 0;
    }
}

static int binary_code(OpId op) {
    switch (op) {
    case OP_ADD: return EWB_ADD;
    case OP_SUB: return EWB_SUB;
    case OP_MUL: return EWB_MUL;
    case OP_DIV: return EWB_DIV;
    case OP_MAX: return EWB_MAX;
    case OP_MIN: return EWB_MIN;
    case OP_POW: return EWB_POW;
    case OP_PRELU: return EWB_PRELU;
    case OP_EQUAL: return EWB_EQUAL;
    case OP_NOT_EQUAL: return EWB_NOT_EQUAL;
    case OP_GREATER: return EWB_GREATER;
    case OP_GREATER_OR_EQUAL: return EWB_GREATER_OR_EQUAL;
    case OP_LESSER: return EWB_LESSER;
    case OP_LESSER_OR_EQUAL: return EWB_LESSER_OR_EQUAL;
    case OP_LOGICAL_AND: return EWB_LOGICAL_AND;
    case OP_LOGICAL_OR: return EWB_LOGICAL_OR;
    case OP_LOGICAL_XOR: return EWB_LOGICAL_XOR;
    default: return 0;
    }
}

static bool float_only_unary(int code) {
    return code != EWU_ABS && code != EWU_NEG && code != EWU_SIGN && code != EWU_RELU && code != EWU_CLAMP &&
           code != EWU_IDENTITY && code != EWU_LOGICAL_NOT;
}

static int operands_ok(const Node *n, int count) {
    if (n->n_inputs < count || n->n_outputs != 1) {
        diag_node_error(n, "expects %d operands and one output", count);
        return -1;
    }
    for (int i = 0; i < count; i++)
        if (!n->inputs[i]) {
            diag_node_error(n, "operand %d is missing", i);
            return -1;
        }
    return 0;
}

/* ---- unary ------------------------------------------------------------------------------ */

/* Clamp bounds (clamp_bounds.h: a NaN bound is no bound, since GLSL's min/max with NaN are
 * undefined).  Floats in alpha/beta; integers exact and saturated to the type, as 64-bit two's
 * complement in extra[0..1] / extra[2..3] (low word first). */
static void clamp_push_bounds(const Node *n, DType dt, StridedOp *op) {
    double lo, hi;
    clamp_float_bounds(n, &lo, &hi);
    op->alpha = (float)lo;
    op->beta = (float)hi;
    if (dtype_is_float(dt)) return;
    uint64_t bits[2];
    clamp_int_bounds(n, dt, &bits[0], &bits[1]);
    for (int k = 0; k < 2; k++) {
        op->extra[2 * k] = (int32_t)(uint32_t)bits[k];
        op->extra[2 * k + 1] = (int32_t)(uint32_t)(bits[k] >> 32);
    }
    op->use_extra = true;
}

static int unary_check(KernelCtx *kc, const Node *n) {
    int code = unary_code(n->op);
    if (operands_ok(n, 1) < 0) return -1;
    DType a = n->inputs[0]->dtype, b = n->outputs[0]->dtype;
    if (!code || (float_only_unary(code) && !dtype_is_float(a))) {
        diag_error("no kernel for op %s (dtype %s) at node %s", op_name(n->op), dtype_name(a), node_display_name(n));
        return -1;
    }
    return kcheck_shader(kc, n, "unary", a, b);
}

static int unary_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int code = unary_code(n->op);
    int sh = kc_find_shader(kc, n, "unary", in[0].dtype, out[0].dtype);
    if (sh < 0) return -1;
    StridedOp op = {.rank = out[0].rank, .n_ops = 2};
    for (int d = 0; d < op.rank; d++) op.shape[d] = out[0].shape[d];
    kstrided_operand(&op, 0, &in[0]);
    kstrided_operand_dense(&op, 1, &out[0]);
    switch (n->op) {
    case OP_ELU: op.alpha = (float)node_float(n, "alpha", 1.0); break;
    case OP_HARD_SIGMOID:
        op.alpha = (float)node_float(n, "alpha", 0.2);
        op.beta = (float)node_float(n, "beta", 0.5);
        break;
    case OP_LEAKY_RELU: op.alpha = (float)node_float(n, "alpha", 0.01); break;
    case OP_LINEAR:
        op.alpha = (float)node_float(n, "alpha", 1.0);
        op.beta = (float)node_float(n, "beta", 0.0);
        break;
    case OP_CLAMP: clamp_push_bounds(n, in[0].dtype, &op); break;
    default: break;
    }
    uint32_t spec[2] = {WG, (uint32_t)code};
    return kstrided_run(kc, n, sh, spec, 2, &op);
}

const KernelFamily kfam_unary = {unary_check, unary_record, 0};

/* ---- binary ----------------------------------------------------------------------------- */

static int binary_check(KernelCtx *kc, const Node *n) {
    if (operands_ok(n, 2) < 0) return -1;
    DType a = n->inputs[0]->dtype, b = n->outputs[0]->dtype;
    int code = binary_code(n->op);
    if (!code || n->inputs[1]->dtype != a || (code >= EWB_LOGICAL_AND && a != DT_U8)) {
        diag_error("no kernel for op %s (dtype %s) at node %s", op_name(n->op), dtype_name(a), node_display_name(n));
        return -1;
    }
    return kcheck_shader(kc, n, "binary", a, b);
}

static int binary_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "binary", in[0].dtype, out[0].dtype);
    if (sh < 0) return -1;
    StridedOp op = {.rank = out[0].rank, .n_ops = 3};
    for (int d = 0; d < op.rank; d++) op.shape[d] = out[0].shape[d];
    kstrided_operand(&op, 0, &in[0]);
    kstrided_operand(&op, 1, &in[1]);
    kstrided_operand_dense(&op, 2, &out[0]);
    uint32_t spec[2] = {WG, (uint32_t)binary_code(n->op)};
    return kstrided_run(kc, n, sh, spec, 2, &op);
}

const KernelFamily kfam_binary = {binary_check, binary_record, 0};

/* ---- where ------------------------------------------------------------------------------ */

static int where_check(KernelCtx *kc, const Node *n) {
    if (operands_ok(n, 3) < 0) return -1;
    if (n->inputs[0]->dtype != DT_U8) {
        diag_node_error(n, "condition must be uint8");
        return -1;
    }
    return kcheck_shader(kc, n, "where", n->outputs[0]->dtype, n->outputs[0]->dtype);
}

static int where_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "where", out[0].dtype, out[0].dtype);
    if (sh < 0) return -1;
    StridedOp op = {.rank = out[0].rank, .n_ops = 4};
    for (int d = 0; d < op.rank; d++) op.shape[d] = out[0].shape[d];
    for (int k = 0; k < 3; k++) kstrided_operand(&op, k, &in[k]);
    kstrided_operand_dense(&op, 3, &out[0]);
    uint32_t spec[1] = {WG};
    return kstrided_run(kc, n, sh, spec, 1, &op);
}

const KernelFamily kfam_where = {where_check, where_record, 0};

/* ---- cast ------------------------------------------------------------------------------- */

static int cast_check(KernelCtx *kc, const Node *n) {
    if (operands_ok(n, 1) < 0) return -1;
    return kcheck_shader(kc, n, "cast", n->inputs[0]->dtype, n->outputs[0]->dtype);
}

static int cast_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "cast", in[0].dtype, out[0].dtype);
    if (sh < 0) return -1;
    StridedOp op = {.rank = out[0].rank, .n_ops = 2};
    for (int d = 0; d < op.rank; d++) op.shape[d] = out[0].shape[d];
    kstrided_operand(&op, 0, &in[0]);
    kstrided_operand_dense(&op, 1, &out[0]);
    uint32_t spec[1] = {WG};
    return kstrided_run(kc, n, sh, spec, 1, &op);
}

const KernelFamily kfam_cast = {cast_check, cast_record, 0};
