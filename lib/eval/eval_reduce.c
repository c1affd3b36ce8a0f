/* eval_reduce.c - reductions (reduceL1 ... reduceSumSquare), argMin/argMax and cumulativeSum
 * for the CPU evaluator.  Floats accumulate in double; integer sums/products/min/max in int64
 * with wrap-around.  argMin/argMax return the first index of the extreme value.
 * Family reduce of ops.def: its op-indexed table is eval_reduce_ops. */
#include <math.h>

#include "core.h"
#include "eval_internal.h"

/* Marks the reduced axes from the "axes" option (default: all); -1 with a diagnostic when bad. */
static int reduced_axes(const Node *n, int rank, bool *red) {
    int64_t axes[WN_MAX_RANK * 2];
    int count = eval_attr_ints(n, "axes", axes, WN_MAX_RANK * 2);
    for (int d = 0; d < rank; d++) red[d] = count == -1;
    if (count == -2) {
        diag_node_error(n, "invalid axes");
        return -1;
    }
    for (int i = 0; i < count; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
        if (a < 0 || a >= rank || red[a]) {
            diag_node_error(n, "axis %lld is out of range or repeated", (long long)axes[i]);
            return -1;
        }
        red[a] = true;
    }
    return 0;
}

/* Index into the output (the input with reduced axes removed) of input element coordinates. */
static int64_t kept_index(int rank, const int64_t *shape, const int64_t *coord, const bool *red) {
    int64_t o = 0;
    for (int d = 0; d < rank; d++)
        if (!red[d]) o = o * shape[d] + coord[d];
    return o;
}

static double finish_float(OpId op, double acc, double count) {
    switch (op) {
    case OP_REDUCE_L2: return sqrt(acc);
    case OP_REDUCE_LOG_SUM: return log(acc);
    case OP_REDUCE_MEAN: return acc / count;
    default: return acc;
    }
}

static double step_float(OpId op, double acc, double x, double shift) {
    switch (op) {
    case OP_REDUCE_L1: return acc + fabs(x);
    case OP_REDUCE_L2:
    case OP_REDUCE_SUM_SQUARE: return acc + x * x;
    case OP_REDUCE_LOG_SUM_EXP: return acc + exp(x - shift);
    case OP_REDUCE_MAX: return x > acc || isnan(x) ? x : acc;
    case OP_REDUCE_MIN: return x < acc || isnan(x) ? x : acc;
    case OP_REDUCE_PRODUCT: return acc * x;
    default: return acc + x; /* sum, mean, logSum */
    }
}

static int64_t step_int(OpId op, bool u64, int64_t acc, int64_t x) {
    uint64_t ua = (uint64_t)acc, ux = (uint64_t)x;
    switch (op) {
    case OP_REDUCE_L1: return (int64_t)(ua + ((u64 || x >= 0) ? ux : 0 - ux));
    case OP_REDUCE_SUM_SQUARE: return (int64_t)(ua + ux * ux);
    case OP_REDUCE_MAX: return u64 ? (int64_t)(ux > ua ? ux : ua) : (x > acc ? x : acc);
    case OP_REDUCE_MIN: return u64 ? (int64_t)(ux < ua ? ux : ua) : (x < acc ? x : acc);
    case OP_REDUCE_PRODUCT: return (int64_t)(ua * ux);
    case OP_REDUCE_SUM: return (int64_t)(ua + ux);
    default: return acc;
    }
}

static int reduce(Graph *g, const Node *n, const Ten *x, Ten *o) {
    bool red[WN_MAX_RANK];
    if (reduced_axes(n, x->rank, red) < 0) return -1;
    int64_t kept = 1;
    for (int d = 0; d < x->rank; d++)
        if (!red[d]) kept *= x->shape[d];
    if (kept != o->count) {
        diag_node_error(n, "output has %lld elements, expected %lld", (long long)o->count, (long long)kept);
        return -1;
    }
    double per = (double)(x->count / (kept ? kept : 1));
    OpId op = n->op;
    int64_t c[WN_MAX_RANK];
    if (!dtype_is_float(x->dt)) {
        if (op != OP_REDUCE_L1 && op != OP_REDUCE_SUM_SQUARE && op != OP_REDUCE_MAX && op != OP_REDUCE_MIN &&
            op != OP_REDUCE_PRODUCT && op != OP_REDUCE_SUM)
            return 1;
        int64_t *acc = graph_alloc(g, sizeof *acc * (size_t)kept);
        bool *seen = graph_alloc(g, (size_t)kept);
        bool u64 = ten_is_unsigned64(x);
        for (int64_t i = 0; i < kept; i++) acc[i] = op == OP_REDUCE_PRODUCT;
        for (int64_t i = 0; i < x->count; i++) {
            ten_unravel(i, x->rank, x->shape, c);
            int64_t k = kept_index(x->rank, x->shape, c, red), v = ten_geti(x, i);
            acc[k] = (!seen[k] && (op == OP_REDUCE_MAX || op == OP_REDUCE_MIN)) ? v : step_int(op, u64, acc[k], v);
            seen[k] = true;
        }
        for (int64_t i = 0; i < kept; i++) ten_seti(o, i, acc[i]);
        return 0;
    }
    double *acc = eval_scratch(g, kept), *shift = eval_scratch(g, kept);
    double init = op == OP_REDUCE_PRODUCT ? 1 : op == OP_REDUCE_MAX ? -INFINITY : op == OP_REDUCE_MIN ? INFINITY : 0;
    for (int64_t i = 0; i < kept; i++) {
        acc[i] = init;
        shift[i] = -INFINITY;
    }
    if (op == OP_REDUCE_LOG_SUM_EXP) { /* subtract the maximum for stability */
        for (int64_t i = 0; i < x->count; i++) {
            ten_unravel(i, x->rank, x->shape, c);
            int64_t k = kept_index(x->rank, x->shape, c, red);
            double v = ten_getf(x, i);
            if (v > shift[k]) shift[k] = v;
        }
        for (int64_t i = 0; i < kept; i++)
            if (isinf(shift[i])) shift[i] = 0;
    }
    for (int64_t i = 0; i < x->count; i++) {
        ten_unravel(i, x->rank, x->shape, c);
        int64_t k = kept_index(x->rank, x->shape, c, red);
        acc[k] = step_float(op, acc[k], ten_getf(x, i), shift[k]);
    }
    for (int64_t i = 0; i < kept; i++) {
        double v = op == OP_REDUCE_LOG_SUM_EXP ? log(acc[i]) + shift[i] : finish_float(op, acc[i], per);
        ten_setf(o, i, v);
    }
    return 0;
}

static int arg_min_max(const Node *n, const Ten *x, Ten *o) {
    int axis = eval_attr_axis(n, "axis", 0, x->rank);
    if (axis < 0) return -1;
    int64_t len = x->shape[axis], stride = 1;
    for (int d = axis + 1; d < x->rank; d++) stride *= x->shape[d];
    if (o->count * len != x->count) {
        diag_node_error(n, "output size does not match the reduced input");
        return -1;
    }
    bool is_max = n->op == OP_ARG_MAX, is_float = dtype_is_float(x->dt), u64 = ten_is_unsigned64(x);
    for (int64_t k = 0; k < o->count; k++) {
        int64_t base = (k / stride) * stride * len + k % stride, best = 0;
        for (int64_t j = 1; j < len; j++) {
            int64_t a = base + j * stride, b = base + best * stride;
            bool better;
            if (is_float) {
                double va = ten_getf(x, a), vb = ten_getf(x, b);
                better = is_max ? va > vb : va < vb;
            } else {
                int64_t va = ten_geti(x, a), vb = ten_geti(x, b);
                if (u64) better = is_max ? (uint64_t)va > (uint64_t)vb : (uint64_t)va < (uint64_t)vb;
                else better = is_max ? va > vb : va < vb;
            }
            if (better) best = j;
        }
        ten_seti(o, k, best);
    }
    return 0;
}

/* reduce* and argMin/argMax. */
static int eval_reduce(Graph *g, const Node *n, const Ten *in, Ten *out) {
    if (n->n_inputs != 1 || n->n_outputs != 1 || !in[0].data) return 1;
    if (n->op == OP_ARG_MAX || n->op == OP_ARG_MIN) return arg_min_max(n, &in[0], &out[0]);
    return reduce(g, n, &in[0], &out[0]);
}

static int eval_cumsum(Graph *g, const Node *n, const Ten *x, Ten *o) {
    int axis = eval_attr_axis(n, "axis", 0, x->rank);
    if (axis < 0) return -1;
    bool excl = node_bool(n, "exclusive", false), rev = node_bool(n, "reversed", false);
    int64_t len = x->shape[axis], stride = 1;
    for (int d = axis + 1; d < x->rank; d++) stride *= x->shape[d];
    bool is_float = dtype_is_float(x->dt);
    (void)g;
    for (int64_t k = 0; k < x->count / len; k++) {
        int64_t base = (k / stride) * stride * len + k % stride;
        double accf = 0;
        uint64_t acci = 0;
        for (int64_t j = 0; j < len; j++) {
            int64_t idx = base + (rev ? len - 1 - j : j) * stride;
            if (is_float) {
                double v = ten_getf(x, idx);
                if (!excl) accf += v;
                ten_setf(o, idx, accf);
                if (excl) accf += v;
            } else {
                uint64_t v = (uint64_t)ten_geti(x, idx);
                if (!excl) acci += v;
                ten_seti(o, idx, (int64_t)acci);
                if (excl) acci += v;
            }
        }
    }
    return 0;
}

static int eval_cumsum_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    if (!eval_same_type_operand(n, in, out)) return 1;
    return ten_same_shape(&in[0], &out[0]) ? eval_cumsum(g, n, &in[0], &out[0]) : eval_fail(n, "shape mismatch");
}

#define R(ID) [OP_##ID] = {eval_reduce}
const EvalOp eval_reduce_ops[OP_COUNT] = {
    R(REDUCE_L1), R(REDUCE_L2), R(REDUCE_LOG_SUM), R(REDUCE_LOG_SUM_EXP), R(REDUCE_MAX),
    R(REDUCE_MEAN), R(REDUCE_MIN), R(REDUCE_PRODUCT), R(REDUCE_SUM), R(REDUCE_SUM_SQUARE),
    R(ARG_MAX), R(ARG_MIN),
    [OP_CUMULATIVE_SUM] = {eval_cumsum_op},
};
#undef R
