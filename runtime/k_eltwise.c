/* k_eltwise.c - element-wise kernel families: unary ops and activations (incl. clamp, logicalNot,
 * isNaN/isInfinite), binary arithmetic/comparison/logical ops and prelu (numpy broadcasting by
 * strides), where, and cast.  All go through the strided launcher (k_strided.c).  The shader op
 * codes (shaders/ew_codes.h) are op-indexed tables; kernel_eltwise_code_support() checks that every op
 * kernels.def gives to the unary/binary families has its code (op coverage test). */
#include "core.h"
#include "k_strided.h"
#include "rt_model.h"
#include "shaders/ew_codes.h"

#define WG 256

/* The shader op codes (ew_codes.h) by OpId; 0 = not run by that shader. */
#define EWU(ID) [OP_##ID] = EWU_##ID
static const uint8_t unary_codes[OP_COUNT] = {
    EWU(ABS), EWU(CEIL), EWU(COS), EWU(ERF), EWU(EXP), EWU(FLOOR), EWU(IDENTITY), EWU(LOG), EWU(NEG),
    EWU(RECIPROCAL), EWU(ROUND_EVEN), EWU(SIGN), EWU(SIN), EWU(SQRT), EWU(TAN), EWU(IS_NAN),
    EWU(IS_INFINITE), EWU(ELU), EWU(GELU), EWU(HARD_SIGMOID), EWU(HARD_SWISH), EWU(LEAKY_RELU),
    EWU(LINEAR), EWU(RELU), EWU(SIGMOID), EWU(SOFTPLUS), EWU(SOFTSIGN), EWU(TANH), EWU(CLAMP),
    EWU(LOGICAL_NOT),
};
#undef EWU
#define EWB(ID) [OP_##ID] = EWB_##ID
static const uint8_t binary_codes[OP_COUNT] = {
    EWB(ADD), EWB(SUB), EWB(MUL), EWB(DIV), EWB(MAX), EWB(MIN), EWB(POW), EWB(PRELU),
    EWB(EQUAL), EWB(NOT_EQUAL), EWB(GREATER), EWB(GREATER_OR_EQUAL), EWB(LESSER), EWB(LESSER_OR_EQUAL),
    EWB(LOGICAL_AND), EWB(LOGICAL_OR), EWB(LOGICAL_XOR),
};
#undef EWB

static int unary_code(OpId op) { return (unsigned)op < OP_COUNT ? unary_codes[op] : 0; }
int kernel_binary_code(OpId op) { return (unsigned)op < OP_COUNT ? binary_codes[op] : 0; }

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
    int code = kernel_binary_code(n->op);
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
    uint32_t spec[2] = {WG, (uint32_t)kernel_binary_code(n->op)};
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

OpSupport kernel_eltwise_code_support(OpId op, const char **reason) {
    const KernelFamily *f = kernel_family(op);
    if (f != &kfam_unary && f != &kfam_binary) {
        if (reason) *reason = "not run by the element-wise shaders";
        return OPSUP_NOT_APPLICABLE;
    }
    return (f == &kfam_unary ? unary_code(op) : kernel_binary_code(op)) ? OPSUP_HANDLED : OPSUP_MISSING;
}
