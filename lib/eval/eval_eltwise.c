/* eval_eltwise.c - element-wise ops for the CPU evaluator: unary math and activations, clamp,
 * binary arithmetic, comparisons and logical ops (numpy broadcasting), prelu, where and cast.
 * Floats are computed in double and rounded to the output dtype; integers are computed in int64
 * with wrap-around (uint64 compared and divided as unsigned); integer div truncates toward zero.
 * Family eltwise of ops.def: its op-indexed table is eval_eltwise_ops. */
#include <math.h>

#include "core.h"
#include "eval_internal.h"

/* ---- unary ---------------------------------------------------------------------------------- */

double eval_unary_value(const Node *n, OpId op, double x) {
    switch (op) {
    case OP_ABS: return fabs(x);
    case OP_CEIL: return ceil(x);
    case OP_COS: return cos(x);
    case OP_ERF: return erf(x);
    case OP_EXP: return exp(x);
    case OP_FLOOR: return floor(x);
    case OP_IDENTITY: return x;
    case OP_LOG: return log(x);
    case OP_NEG: return -x;
    case OP_RECIPROCAL: return 1.0 / x;
    case OP_ROUND_EVEN: return nearbyint(x);
    case OP_SIGN: return isnan(x) ? x : (x > 0) - (x < 0);
    case OP_SIN: return sin(x);
    case OP_SQRT: return sqrt(x);
    case OP_TAN: return tan(x);
    case OP_IS_NAN: return isnan(x) ? 1 : 0;
    case OP_IS_INFINITE: return isinf(x) ? 1 : 0;
    case OP_ELU: return x < 0 ? node_float(n, "alpha", 1.0) * expm1(x) : x;
    case OP_GELU: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case OP_HARD_SIGMOID: {
        double y = node_float(n, "alpha", 0.2) * x + node_float(n, "beta", 0.5);
        return y < 0 ? 0 : y > 1 ? 1 : y;
    }
    case OP_HARD_SWISH: {
        double y = x + 3;
        return x * (y < 0 ? 0 : y > 6 ? 6 : y) / 6.0;
    }
    case OP_LEAKY_RELU: return x < 0 ? node_float(n, "alpha", 0.01) * x : x;
    case OP_LINEAR: return node_float(n, "alpha", 1.0) * x + node_float(n, "beta", 0.0);
    case OP_RELU: return x < 0 ? 0 : x;
    case OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case OP_SOFTPLUS: return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
    case OP_SOFTSIGN: return x / (1.0 + fabs(x));
    case OP_TANH: return tanh(x);
    case OP_CLAMP: {
        double lo, hi;
        clamp_float_bounds(n, &lo, &hi);
        return x < lo ? lo : x > hi ? hi : x;
    }
    default: return NAN;
    }
}

/* Integer unary ops; returns 1 for ops without an integer form. */
static int unary_int(const Node *n, const Ten *a, Ten *o) {
    bool u64 = ten_is_unsigned64(a);
    if (n->op == OP_IS_NAN || n->op == OP_IS_INFINITE) {
        for (int64_t i = 0; i < o->count; i++) ten_seti(o, i, 0);
        return 0;
    }
    /* clamp: min rounded up, max rounded down, saturated to the type (clamp_bounds.h) */
    uint64_t lo_bits = 0, hi_bits = 0;
    if (n->op == OP_CLAMP) clamp_int_bounds(n, a->dt, &lo_bits, &hi_bits);
    if (n->op == OP_CLAMP && u64) {
        for (int64_t i = 0; i < o->count; i++) {
            uint64_t x = (uint64_t)ten_geti(a, i);
            ten_seti(o, i, (int64_t)(x < lo_bits ? lo_bits : x > hi_bits ? hi_bits : x));
        }
        return 0;
    }
    int64_t lo = (int64_t)lo_bits, hi = (int64_t)hi_bits;
    for (int64_t i = 0; i < o->count; i++) {
        int64_t x = ten_geti(a, i), y;
        switch (n->op) {
        case OP_ABS: y = (u64 || x >= 0) ? x : (int64_t)(0 - (uint64_t)x); break;
        case OP_NEG: y = (int64_t)(0 - (uint64_t)x); break;
        case OP_SIGN: y = u64 ? (x != 0) : (x > 0) - (x < 0); break;
        case OP_RELU: y = (u64 || x > 0) ? x : 0; break;
        case OP_IDENTITY:
        case OP_CEIL:
        case OP_FLOOR:
        case OP_ROUND_EVEN: y = x; break;
        case OP_CLAMP: y = x < lo ? lo : x > hi ? hi : x; break;
        default: return 1;
        }
        ten_seti(o, i, y);
    }
    return 0;
}

static int eval_unary(const Node *n, const Ten *a, Ten *o) {
    if (!dtype_is_float(a->dt)) return unary_int(n, a, o);
    for (int64_t i = 0; i < o->count; i++) ten_setf(o, i, eval_unary_value(n, n->op, ten_getf(a, i)));
    return 0;
}

/* ---- binary --------------------------------------------------------------------------------- */

static double binary_float(OpId op, double a, double b) {
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_MAX: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case OP_MIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    case OP_POW: return pow(a, b);
    case OP_EQUAL: return a == b;
    case OP_NOT_EQUAL: return a != b;
    case OP_GREATER: return a > b;
    case OP_GREATER_OR_EQUAL: return a >= b;
    case OP_LESSER: return a < b;
    case OP_LESSER_OR_EQUAL: return a <= b;
    case OP_LOGICAL_AND: return a != 0 && b != 0;
    case OP_LOGICAL_OR: return a != 0 || b != 0;
    case OP_LOGICAL_XOR: return (a != 0) != (b != 0);
    default: return NAN;
    }
}

/* Integer power with wrap-around; negative exponents truncate 1/a^-b toward zero. */
static int64_t int_pow(int64_t a, int64_t b) {
    if (b < 0) return a == 1 ? 1 : a == -1 ? ((-b) & 1 ? -1 : 1) : 0;
    uint64_t r = 1, base = (uint64_t)a;
    for (uint64_t e = (uint64_t)b; e; e >>= 1) {
        if (e & 1) r *= base;
        base *= base;
    }
    return (int64_t)r;
}

/* Integer comparison of two values; unsigned when the operand dtype is uint64. */
static int cmp_int(bool u64, int64_t a, int64_t b) {
    if (u64) return (uint64_t)a < (uint64_t)b ? -1 : (uint64_t)a > (uint64_t)b;
    return a < b ? -1 : a > b;
}

static int64_t binary_int(OpId op, bool u64, int64_t a, int64_t b) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    int c = cmp_int(u64, a, b);
    switch (op) {
    case OP_ADD: return (int64_t)(ua + ub);
    case OP_SUB: return (int64_t)(ua - ub);
    case OP_MUL: return (int64_t)(ua * ub);
    case OP_DIV:
        if (b == 0) return 0; /* undefined; keep it deterministic */
        if (u64) return (int64_t)(ua / ub);
        if (a == INT64_MIN && b == -1) return INT64_MIN;
        return a / b; /* C truncates toward zero, as WebNN requires */
    case OP_MAX: return c >= 0 ? a : b;
    case OP_MIN: return c <= 0 ? a : b;
    case OP_POW: return int_pow(a, b);
    case OP_EQUAL: return c == 0;
    case OP_NOT_EQUAL: return c != 0;
    case OP_GREATER: return c > 0;
    case OP_GREATER_OR_EQUAL: return c >= 0;
    case OP_LESSER: return c < 0;
    case OP_LESSER_OR_EQUAL: return c <= 0;
    case OP_LOGICAL_AND: return a != 0 && b != 0;
    case OP_LOGICAL_OR: return a != 0 || b != 0;
    case OP_LOGICAL_XOR: return (a != 0) != (b != 0);
    default: return 0;
    }
}

/* Binary ops with numpy broadcasting; narrow integer results wrap when stored (int32 MIN / -1). */
static int eval_binary(const Node *n, const Ten *a, const Ten *b, Ten *o) {
    int64_t sa[WN_MAX_RANK], sb[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_bcast_strides(a, o->rank, o->shape, sa);
    ten_bcast_strides(b, o->rank, o->shape, sb);
    bool is_float = dtype_is_float(a->dt);
    bool u64 = ten_is_unsigned64(a);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        int64_t ia = ten_dot_strides(o->rank, c, sa), ib = ten_dot_strides(o->rank, c, sb);
        if (is_float) ten_setf(o, i, binary_float(n->op, ten_getf(a, ia), ten_getf(b, ib)));
        else ten_seti(o, i, binary_int(n->op, u64, ten_geti(a, ia), ten_geti(b, ib)));
    }
    return 0;
}

/* ---- prelu and where ------------------------------------------------------------------------ */

static int eval_prelu(const Ten *x, const Ten *slope, Ten *o) {
    int64_t ss[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_bcast_strides(slope, o->rank, o->shape, ss);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        int64_t is = ten_dot_strides(o->rank, c, ss);
        if (dtype_is_float(x->dt)) {
            double v = ten_getf(x, i);
            ten_setf(o, i, v < 0 ? v * ten_getf(slope, is) : v);
        } else {
            int64_t v = ten_geti(x, i);
            ten_seti(o, i, v < 0 ? (int64_t)((uint64_t)v * (uint64_t)ten_geti(slope, is)) : v);
        }
    }
    return 0;
}

static int eval_where(const Ten *cond, const Ten *t, const Ten *f, Ten *o) {
    if (t->dt != o->dt || f->dt != o->dt) return 1;
    int64_t sc[WN_MAX_RANK], st[WN_MAX_RANK], sf[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_bcast_strides(cond, o->rank, o->shape, sc);
    ten_bcast_strides(t, o->rank, o->shape, st);
    ten_bcast_strides(f, o->rank, o->shape, sf);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        if (ten_geti(cond, ten_dot_strides(o->rank, c, sc)) != 0) ten_copy_elem(o, i, t, ten_dot_strides(o->rank, c, st));
        else ten_copy_elem(o, i, f, ten_dot_strides(o->rank, c, sf));
    }
    return 0;
}

/* Checks that operand `t` broadcasts to the output shape. */
static bool broadcasts_to(const Ten *t, const Ten *o) {
    if (t->rank > o->rank) return false;
    for (int i = 0; i < t->rank; i++) {
        int64_t d = t->shape[i], od = o->shape[o->rank - t->rank + i];
        if (d != 1 && d != od) return false;
    }
    return true;
}

/* Unary, binary, comparison and logical ops, activations, prelu and where. */
static int eval_eltwise(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    const OpInfo *info = op_info(n->op);
    int want = n->op == OP_WHERE ? 3 : (info->flags & OPF_ELTWISE_UNARY) || n->op == OP_LOGICAL_NOT ? 1 : 2;
    if (n->n_inputs != want || n->n_outputs != 1) return 1;
    for (int i = 0; i < want; i++) {
        if (!in[i].data || !broadcasts_to(&in[i], &out[0])) {
            diag_node_error(n, "operand %d does not broadcast to the output shape", i);
            return -1;
        }
    }
    if (want == 1) {
        if (in[0].count != out[0].count) return 1;
        if (n->op == OP_LOGICAL_NOT) {
            for (int64_t i = 0; i < out[0].count; i++) ten_seti(&out[0], i, ten_geti(&in[0], i) == 0);
            return 0;
        }
        return eval_unary(n, &in[0], &out[0]);
    }
    if (n->op == OP_WHERE) return eval_where(&in[0], &in[1], &in[2], &out[0]);
    if (n->op == OP_PRELU) return eval_prelu(&in[0], &in[1], &out[0]);
    if (in[0].dt != in[1].dt) return 1;
    return eval_binary(n, &in[0], &in[1], &out[0]);
}

static int eval_cast(const Ten *x, Ten *o) {
    for (int64_t i = 0; i < o->count; i++) {
        if (dtype_is_float(x->dt)) ten_setf(o, i, ten_getf(x, i));
        else if (ten_is_unsigned64(x) && dtype_is_float(o->dt)) ten_setf(o, i, ten_getf(x, i));
        else ten_seti(o, i, ten_geti(x, i));
    }
    return 0;
}

static int eval_cast_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    return n->n_inputs >= 1 && in[0].data ? eval_cast(&in[0], &out[0]) : 1;
}

#define E(ID) [OP_##ID] = {eval_eltwise}
const EvalOp eval_eltwise_ops[OP_COUNT] = {
    E(ADD), E(SUB), E(MUL), E(DIV), E(MAX), E(MIN), E(POW),
    E(EQUAL), E(NOT_EQUAL), E(GREATER), E(GREATER_OR_EQUAL), E(LESSER), E(LESSER_OR_EQUAL),
    E(LOGICAL_NOT), E(LOGICAL_AND), E(LOGICAL_OR), E(LOGICAL_XOR),
    E(ABS), E(CEIL), E(COS), E(ERF), E(EXP), E(FLOOR), E(IDENTITY), E(LOG), E(NEG), E(RECIPROCAL),
    E(ROUND_EVEN), E(SIGN), E(SIN), E(SQRT), E(TAN), E(IS_NAN), E(IS_INFINITE),
    E(ELU), E(GELU), E(HARD_SIGMOID), E(HARD_SWISH), E(LEAKY_RELU), E(LINEAR), E(RELU), E(SIGMOID),
    E(SOFTPLUS), E(SOFTSIGN), E(TANH), E(CLAMP), E(PRELU), E(WHERE),
    [OP_CAST] = {eval_cast_op},
};
#undef E
