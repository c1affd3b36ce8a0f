/* ops_elementwise.c - ONNX element-wise ops: arithmetic, comparisons, logical ops, unary math and
 * activations (direct WebNN ops or short decompositions: Selu, Mish, tanh-Gelu, Sum/Mean). */
#include <math.h>
#include <string.h>

#include "import_internal.h"

/* One ONNX op = one WebNN op, operands in order. */
static int unary(OnnxCtx *c, OpId op) { return onnx_imp_result(c, onnx_emit_unary(c, op, onnx_in_req(c, 0))); }

static int binary(OnnxCtx *c, OpId op) { return onnx_imp_result(c, onnx_emit_binary(c, op, onnx_in_req(c, 0), onnx_in_req(c, 1))); }

#define UNARY(TYPE, OP) \
    int onnx_##TYPE(OnnxCtx *c) { return unary(c, OP_##OP); }
#define BINARY(TYPE, OP) \
    int onnx_##TYPE(OnnxCtx *c) { return binary(c, OP_##OP); }

BINARY(Add, ADD)
BINARY(Sub, SUB)
BINARY(Mul, MUL)
BINARY(Div, DIV)
BINARY(PRelu, PRELU)
BINARY(Equal, EQUAL)
BINARY(Less, LESSER)
BINARY(LessOrEqual, LESSER_OR_EQUAL)
BINARY(Greater, GREATER)
BINARY(GreaterOrEqual, GREATER_OR_EQUAL)
BINARY(And, LOGICAL_AND)
BINARY(Or, LOGICAL_OR)
BINARY(Xor, LOGICAL_XOR)
UNARY(Not, LOGICAL_NOT)
UNARY(Sqrt, SQRT)
UNARY(Reciprocal, RECIPROCAL)
UNARY(Neg, NEG)
UNARY(Abs, ABS)
UNARY(Exp, EXP)
UNARY(Log, LOG)
UNARY(Erf, ERF)
UNARY(Tanh, TANH)
UNARY(Sigmoid, SIGMOID)
UNARY(Relu, RELU)
UNARY(Cos, COS)
UNARY(Sin, SIN)
UNARY(Tan, TAN)
UNARY(Floor, FLOOR)
UNARY(Ceil, CEIL)
UNARY(Round, ROUND_EVEN)
UNARY(Sign, SIGN)
UNARY(IsNaN, IS_NAN)
UNARY(Softplus, SOFTPLUS)
UNARY(Softsign, SOFTSIGN)
UNARY(HardSwish, HARD_SWISH)

/* Pow: ONNX allows an exponent of another type; WebNN needs both operands alike. */
int onnx_Pow(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0), *y = onnx_in_req(c, 1);
    if (!x || !y) return -1;
    Value *v = onnx_emit_binary(c, OP_POW, x, onnx_emit_cast(c, y, x->dtype));
    return onnx_imp_result(c, v);
}

/* Variadic ops folded left: op(op(x0, x1), x2)... */
static Value *fold_variadic(OnnxCtx *c, OpId op) {
    Value *acc = onnx_in_req(c, 0);
    for (int i = 1; acc && i < c->n_in; i++) {
        Value *x = onnx_in_req(c, i);
        if (!x) return NULL;
        acc = onnx_emit_binary(c, op, acc, x);
    }
    return acc;
}

static int variadic(OnnxCtx *c, OpId op) {
    Value *v = fold_variadic(c, op);
    if (v && c->n_in == 1) v = onnx_emit_unary(c, OP_IDENTITY, v); /* a single operand: a copy */
    return onnx_imp_result(c, v);
}

int onnx_Max(OnnxCtx *c) { return variadic(c, OP_MAX); }
int onnx_Min(OnnxCtx *c) { return variadic(c, OP_MIN); }
int onnx_Sum(OnnxCtx *c) { return variadic(c, OP_ADD); }

int onnx_Mean(OnnxCtx *c) {
    Value *v = fold_variadic(c, OP_ADD);
    if (!v) return -1;
    v = onnx_emit_binary(c, OP_DIV, v, onnx_const_scalar(c, v->dtype, c->n_in));
    return onnx_imp_result(c, v);
}

/* Activations with float options. */
static Value *with_alpha(OnnxCtx *c, OpId op, double alpha_def, const char *beta, double beta_def) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return NULL;
    Node *n = onnx_imp_node(c, op);
    node_add_input(c->g, n, x);
    node_set_float(c->g, n, "alpha", onnx_attr_float(c, "alpha", alpha_def));
    if (beta) node_set_float(c->g, n, "beta", onnx_attr_float(c, beta, beta_def));
    return onnx_imp_finish(c, n);
}

int onnx_LeakyRelu(OnnxCtx *c) { return onnx_imp_result(c, with_alpha(c, OP_LEAKY_RELU, 0.01, NULL, 0)); }
int onnx_Elu(OnnxCtx *c) { return onnx_imp_result(c, with_alpha(c, OP_ELU, 1.0, NULL, 0)); }
int onnx_HardSigmoid(OnnxCtx *c) { return onnx_imp_result(c, with_alpha(c, OP_HARD_SIGMOID, 0.2, "beta", 0.5)); }

/* Selu(x) = gamma * elu(x, alpha). */
int onnx_Selu(OnnxCtx *c) {
    Value *e = with_alpha(c, OP_ELU, 1.67326319217681884765625, NULL, 0);
    if (!e) return -1;
    Value *v = onnx_emit_binary(c, OP_MUL, e, onnx_const_scalar(c, e->dtype, onnx_attr_float(c, "gamma", 1.05070102214813232421875)));
    return onnx_imp_result(c, v);
}

/* Mish(x) = x * tanh(softplus(x)). */
int onnx_Mish(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    Value *v = onnx_emit_binary(c, OP_MUL, x, onnx_emit_unary(c, OP_TANH, onnx_emit_unary(c, OP_SOFTPLUS, x)));
    return onnx_imp_result(c, v);
}

/* Swish(x) = x * sigmoid(alpha * x) (opset 24; alpha 1: SiLU), spec ops that fuse_silu recovers
 * as silu (alpha 1) or quickGelu. */
int onnx_Swish(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    double alpha = onnx_attr_float(c, "alpha", 1.0);
    Value *ax = alpha == 1.0 ? x : onnx_emit_binary(c, OP_MUL, x, onnx_const_scalar(c, x->dtype, alpha));
    return onnx_imp_result(c, onnx_emit_binary(c, OP_MUL, x, onnx_emit_unary(c, OP_SIGMOID, ax)));
}

/* Gelu: exact -> gelu; "tanh" -> 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))). */
int onnx_Gelu(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    const char *approx = onnx_attr_string(c, "approximate", "none");
    if (strcmp(approx, "none") == 0) return unary(c, OP_GELU);
    if (strcmp(approx, "tanh") != 0) return onnx_imp_error(c, "unknown approximate='%s'", approx);
    DType dt = x->dtype;
    Value *x3 = onnx_emit_binary(c, OP_POW, x, onnx_const_scalar(c, dt, 3.0));
    Value *inner = onnx_emit_binary(c, OP_ADD, x, onnx_emit_binary(c, OP_MUL, x3, onnx_const_scalar(c, dt, 0.044715)));
    Value *t = onnx_emit_unary(c, OP_TANH, onnx_emit_binary(c, OP_MUL, inner, onnx_const_scalar(c, dt, sqrt(2.0 / M_PI))));
    Value *one_plus = onnx_emit_binary(c, OP_ADD, t, onnx_const_scalar(c, dt, 1.0));
    Value *half_x = onnx_emit_binary(c, OP_MUL, x, onnx_const_scalar(c, dt, 0.5));
    Value *v = onnx_emit_binary(c, OP_MUL, half_x, one_plus);
    return onnx_imp_result(c, v);
}

/* IsInf; one-sided detection ands isInfinite(x) with the sign test. */
int onnx_IsInf(OnnxCtx *c) {
    bool pos = onnx_attr_int(c, "detect_positive", 1) != 0, neg = onnx_attr_int(c, "detect_negative", 1) != 0;
    if (pos && neg) return unary(c, OP_IS_INFINITE);
    if (!pos && !neg) return onnx_imp_error(c, "IsInf with detect_positive=0 and detect_negative=0 is not supported");
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    Value *side = onnx_emit_binary(c, pos ? OP_GREATER : OP_LESSER, x, onnx_const_scalar(c, x->dtype, 0));
    return onnx_imp_result(c, onnx_emit_binary(c, OP_LOGICAL_AND, onnx_emit_unary(c, OP_IS_INFINITE, x), side));
}
