/* eval_shape.c - data movement for the CPU evaluator: reshape, expand, slice, split, concat,
 * transpose, tile, pad, reverse and triangular.  Output shapes come from shape inference; every
 * index computed from options is checked against the operand shape.
 * Family shape of ops.def: its op-indexed table is eval_shape_ops. */
#include <string.h>

#include "core.h"
#include "eval_internal.h"

static int eval_expand(const Ten *x, Ten *o) {
    int64_t s[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_bcast_strides(x, o->rank, o->shape, s);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        ten_copy_elem(o, i, x, ten_dot_strides(o->rank, c, s));
    }
    return 0;
}

static int eval_slice(const Node *n, const Ten *x, Ten *o) {
    int64_t starts[WN_MAX_RANK], strides[WN_MAX_RANK], xs[WN_MAX_RANK], c[WN_MAX_RANK];
    if (eval_attr_ints(n, "starts", starts, WN_MAX_RANK) != x->rank || o->rank != x->rank)
        return eval_fail(n, "starts must have one entry per input dimension");
    int ns = eval_attr_ints(n, "strides", strides, WN_MAX_RANK);
    if (ns == -1)
        for (int d = 0; d < x->rank; d++) strides[d] = 1;
    else if (ns != x->rank)
        return eval_fail(n, "strides must have one entry per input dimension");
    for (int d = 0; d < x->rank; d++) {
        if (starts[d] < 0) starts[d] += x->shape[d];
        int64_t last = starts[d] + (o->shape[d] - 1) * strides[d];
        if (strides[d] <= 0 || starts[d] < 0 || starts[d] >= x->shape[d] || last >= x->shape[d])
            return eval_fail(n, "slice window is outside the input");
    }
    ten_strides(x, xs);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        for (int d = 0; d < o->rank; d++) c[d] = starts[d] + c[d] * strides[d];
        ten_copy_elem(o, i, x, ten_dot_strides(x->rank, c, xs));
    }
    return 0;
}

/* Copies `part` into `whole` (or back when to_part) at offset `off` along `axis`. */
static void copy_along(Ten *whole, Ten *part, int axis, int64_t off, bool to_part) {
    int64_t ws[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_strides(whole, ws);
    for (int64_t i = 0; i < part->count; i++) {
        ten_unravel(i, part->rank, part->shape, c);
        c[axis] += off;
        int64_t wi = ten_dot_strides(whole->rank, c, ws);
        if (to_part) ten_copy_elem(part, i, whole, wi);
        else ten_copy_elem(whole, wi, part, i);
    }
}

/* Checks that `part` matches `whole` on every dimension except `axis`. */
static bool same_except(const Ten *a, const Ten *b, int axis) {
    if (a->rank != b->rank || a->dt != b->dt) return false;
    for (int d = 0; d < a->rank; d++)
        if (d != axis && a->shape[d] != b->shape[d]) return false;
    return true;
}

static int eval_split(const Node *n, const Ten *x, Ten *out) {
    int axis = eval_attr_axis(n, "axis", 0, x->rank);
    if (axis < 0) return -1;
    int64_t off = 0;
    for (int k = 0; k < n->n_outputs; k++) {
        if (!same_except(x, &out[k], axis) || out[k].shape[axis] > x->shape[axis] - off)
            return eval_fail(n, "split outputs do not tile the input");
        copy_along((Ten *)x, &out[k], axis, off, true);
        off += out[k].shape[axis];
    }
    return off == x->shape[axis] ? 0 : eval_fail(n, "split outputs do not cover the input");
}

static int eval_concat(const Node *n, const Ten *in, Ten *o) {
    int axis = eval_attr_axis(n, "axis", 0, o->rank);
    if (axis < 0) return -1;
    int64_t off = 0;
    for (int k = 0; k < n->n_inputs; k++) {
        if (!in[k].data || !same_except(o, &in[k], axis) || in[k].shape[axis] > o->shape[axis] - off)
            return eval_fail(n, "concat inputs do not match the output");
        copy_along(o, (Ten *)&in[k], axis, off, false);
        off += in[k].shape[axis];
    }
    return off == o->shape[axis] ? 0 : eval_fail(n, "concat inputs do not fill the output");
}

static int eval_transpose(const Node *n, const Ten *x, Ten *o) {
    int64_t perm[WN_MAX_RANK], xs[WN_MAX_RANK], c[WN_MAX_RANK], ic[WN_MAX_RANK];
    int np = eval_attr_ints(n, "permutation", perm, WN_MAX_RANK);
    if (np == -1)
        for (int d = 0; d < x->rank; d++) perm[d] = x->rank - 1 - d;
    else if (np != x->rank)
        return eval_fail(n, "permutation must have one entry per dimension");
    bool used[WN_MAX_RANK] = {0};
    for (int d = 0; d < x->rank; d++) {
        if (perm[d] < 0 || perm[d] >= x->rank || used[perm[d]] || o->shape[d] != x->shape[perm[d]])
            return eval_fail(n, "invalid permutation");
        used[perm[d]] = true;
    }
    ten_strides(x, xs);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        for (int d = 0; d < o->rank; d++) ic[perm[d]] = c[d];
        ten_copy_elem(o, i, x, ten_dot_strides(x->rank, ic, xs));
    }
    return 0;
}

static int eval_tile(const Ten *x, Ten *o) {
    int64_t xs[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_strides(x, xs);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        for (int d = 0; d < o->rank; d++) c[d] %= x->shape[d];
        ten_copy_elem(o, i, x, ten_dot_strides(x->rank, c, xs));
    }
    return 0;
}

/* Maps an out-of-range coordinate for pad modes edge / reflection / symmetric; -1 = use value. */
static int64_t pad_coord(int mode, int64_t c, int64_t len) {
    if (c >= 0 && c < len) return c;
    if (mode == 0) return -1;
    if (mode == 1) return c < 0 ? 0 : len - 1;
    int64_t period = mode == 2 ? 2 * (len - 1) : 2 * len;
    if (period <= 0) return 0;
    c %= period;
    if (c < 0) c += period;
    if (mode == 2) return c < len ? c : period - c;
    return c < len ? c : period - 1 - c;
}

static int eval_pad(const Node *n, const Ten *x, Ten *o) {
    int64_t beg[WN_MAX_RANK], end[WN_MAX_RANK], xs[WN_MAX_RANK], c[WN_MAX_RANK];
    if (eval_attr_ints(n, "beginningPadding", beg, WN_MAX_RANK) != x->rank ||
        eval_attr_ints(n, "endingPadding", end, WN_MAX_RANK) != x->rank || o->rank != x->rank)
        return eval_fail(n, "padding must have one entry per dimension");
    const char *m = node_str(n, "mode", "constant");
    int mode = !strcmp(m, "constant") ? 0 : !strcmp(m, "edge") ? 1 : !strcmp(m, "reflection") ? 2
             : !strcmp(m, "symmetric") ? 3 : -1;
    if (mode < 0) return 1;
    for (int d = 0; d < x->rank; d++)
        if (beg[d] < 0 || end[d] < 0 || o->shape[d] != x->shape[d] + beg[d] + end[d])
            return eval_fail(n, "padding does not match the output shape");
    double value = node_float(n, "value", 0.0);
    ten_strides(x, xs);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        bool inside = true;
        for (int d = 0; d < o->rank && inside; d++) {
            c[d] = pad_coord(mode, c[d] - beg[d], x->shape[d]);
            inside = c[d] >= 0;
        }
        if (inside) ten_copy_elem(o, i, x, ten_dot_strides(x->rank, c, xs));
        else ten_setf(o, i, value);
    }
    return 0;
}

static int eval_reverse(const Node *n, const Ten *x, Ten *o) {
    int64_t axes[WN_MAX_RANK * 2], xs[WN_MAX_RANK], c[WN_MAX_RANK];
    bool rev[WN_MAX_RANK];
    int na = eval_attr_ints(n, "axes", axes, WN_MAX_RANK * 2);
    if (na == -2) return eval_fail(n, "invalid axes");
    for (int d = 0; d < x->rank; d++) rev[d] = na == -1;
    for (int k = 0; k < na; k++) {
        int64_t a = axes[k] < 0 ? axes[k] + x->rank : axes[k];
        if (a < 0 || a >= x->rank) return eval_fail(n, "axis out of range");
        rev[a] = true;
    }
    ten_strides(x, xs);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        for (int d = 0; d < o->rank; d++)
            if (rev[d]) c[d] = x->shape[d] - 1 - c[d];
        ten_copy_elem(o, i, x, ten_dot_strides(x->rank, c, xs));
    }
    return 0;
}

static int eval_triangular(const Node *n, const Ten *x, Ten *o) {
    if (x->rank < 2) return eval_fail(n, "triangular needs rank >= 2");
    bool upper = node_bool(n, "upper", true);
    int64_t diag = node_int(n, "diagonal", 0), c[WN_MAX_RANK];
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        int64_t k = c[o->rank - 1] - c[o->rank - 2];
        if (upper ? k >= diag : k <= diag) ten_copy_elem(o, i, x, i);
        else ten_seti(o, i, 0);
    }
    return 0;
}

static int eval_split_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    return n->n_inputs >= 1 && in[0].data ? eval_split(n, &in[0], out) : 1;
}

static int eval_concat_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    return n->n_inputs >= 1 && in[0].data ? eval_concat(n, in, &out[0]) : 1;
}

static int eval_reshape(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (!eval_same_type_operand(n, in, out)) return 1;
    if (out[0].count != in[0].count) return eval_fail(n, "reshape changes the element count");
    memcpy(out[0].data, in[0].data, (size_t)dtype_storage_bytes(in[0].dt, (uint64_t)in[0].count));
    return 0;
}

static int eval_expand_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (!eval_same_type_operand(n, in, out)) return 1;
    const Ten *x = &in[0];
    for (int d = 0; d < x->rank; d++)
        if (x->rank > out[0].rank || (x->shape[d] != 1 && x->shape[d] != out[0].shape[out[0].rank - x->rank + d]))
            return eval_fail(n, "input does not broadcast to newShape");
    return eval_expand(x, &out[0]);
}

static int eval_slice_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    return eval_same_type_operand(n, in, out) ? eval_slice(n, &in[0], &out[0]) : 1;
}

static int eval_transpose_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (!eval_same_type_operand(n, in, out)) return 1;
    return in[0].rank == out[0].rank ? eval_transpose(n, &in[0], &out[0]) : eval_fail(n, "rank mismatch");
}

static int eval_tile_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (!eval_same_type_operand(n, in, out)) return 1;
    if (in[0].rank != out[0].rank) return eval_fail(n, "rank mismatch");
    for (int d = 0; d < in[0].rank; d++)
        if (out[0].shape[d] % in[0].shape[d]) return eval_fail(n, "output is not a whole tiling");
    return eval_tile(&in[0], &out[0]);
}

static int eval_pad_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    return eval_same_type_operand(n, in, out) ? eval_pad(n, &in[0], &out[0]) : 1;
}

static int eval_reverse_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (!eval_same_type_operand(n, in, out)) return 1;
    return ten_same_shape(&in[0], &out[0]) ? eval_reverse(n, &in[0], &out[0]) : eval_fail(n, "shape mismatch");
}

static int eval_triangular_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (!eval_same_type_operand(n, in, out)) return 1;
    return ten_same_shape(&in[0], &out[0]) ? eval_triangular(n, &in[0], &out[0]) : eval_fail(n, "shape mismatch");
}

const EvalOp eval_shape_ops[OP_COUNT] = {
    [OP_CONCAT] = {eval_concat_op},
    [OP_EXPAND] = {eval_expand_op},
    [OP_PAD] = {eval_pad_op},
    [OP_RESHAPE] = {eval_reshape},
    [OP_REVERSE] = {eval_reverse_op},
    [OP_SLICE] = {eval_slice_op},
    [OP_SPLIT] = {eval_split_op},
    [OP_TILE] = {eval_tile_op},
    [OP_TRANSPOSE] = {eval_transpose_op},
    [OP_TRIANGULAR] = {eval_triangular_op},
};
