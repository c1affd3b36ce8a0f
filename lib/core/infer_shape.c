/* infer_shape.c - shape inference for data movement ops that rearrange or resize a tensor:
 * reshape, expand, transpose, concat, slice, split, tile, pad, reverse, triangular.
 * Family shape of ops.def: its op-indexed table is infer_shape_rules. */
#include <inttypes.h>

#include "checked.h"
#include "infer_internal.h"

/* Reads a dims option (newShape, sizes): count <= WN_MAX_RANK, static entries > 0, symbolic
 * entries must refer to the graph's expression table.  Returns the count or -1. */
static int read_dims(Graph *g, const Node *n, const char *key, const Dim **dims) {
    int count = node_dims(n, key, dims);
    if (count < 0 || count > WN_MAX_RANK) {
        diag_node_error(n, "option '%s' has %d entries (rank must be 0..%d)", key, count, WN_MAX_RANK);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        Dim d = (*dims)[i];
        if (dim_is_static(d) ? (d.v <= 0 || d.v >= INFER_LIMIT) : (d.e < 0 || d.e >= g->n_exprs)) {
            diag_node_error(n, "option '%s'[%d] is not a valid dimension (%" PRId64 ")", key, i, d.v);
            return -1;
        }
    }
    return count;
}

/* Splits a shape into its static product (false on overflow) and sorted symbolic dims. */
static bool split_product(int rank, const Dim *shape, uint64_t *prod, int32_t *syms, int *nsyms) {
    *prod = 1;
    *nsyms = 0;
    for (int i = 0; i < rank; i++) {
        if (!dim_is_static(shape[i])) {
            int k = (*nsyms)++;
            while (k > 0 && syms[k - 1] > shape[i].e) {
                syms[k] = syms[k - 1];
                k--;
            }
            syms[k] = shape[i].e;
        } else if (!checked_mul_u64(*prod, (uint64_t)shape[i].v, prod)) {
            return false;
        }
    }
    return true;
}

/* The single output is `dtype` with the given shape. */
static int shape_out(TensorDesc *d, DType dtype, int rank, const Dim *shape) {
    d->dtype = dtype;
    d->rank = rank;
    for (int i = 0; i < rank; i++) d->shape[i] = shape[i];
    return 1;
}

static int infer_reshape(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    const Dim *shape;
    int rank = read_dims(g, n, "newShape", &shape);
    if (rank < 0) return -1;
    uint64_t pin, pout;
    int32_t sin[WN_MAX_RANK], sout[WN_MAX_RANK];
    int nin, nout;
    bool ok_in = split_product(x->rank, x->shape, &pin, sin, &nin);
    bool ok_out = split_product(rank, shape, &pout, sout, &nout);
    /* Comparable when both sides have the same symbolic factors (then statics must match). */
    bool same_syms = nin == nout;
    for (int i = 0; same_syms && i < nin; i++) same_syms = sin[i] == sout[i];
    if (same_syms && (!ok_in || !ok_out || pin != pout)) {
        infer_shapes_error(g, n, "newShape", rank, shape, "does not have the element count of the input shape", x->rank,
                           x->shape);
        return -1;
    }
    return shape_out(&out[0], x->dtype, rank, shape);
}

static int infer_expand(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    const Dim *shape;
    int rank = read_dims(g, n, "newShape", &shape);
    if (rank < 0) return -1;
    if (!infer_unidirectional(x->rank, x->shape, rank, shape)) {
        infer_shapes_error(g, n, "input shape", x->rank, x->shape, "cannot be broadcast to newShape", rank, shape);
        return -1;
    }
    return shape_out(&out[0], x->dtype, rank, shape);
}

static int infer_transpose(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    const int64_t *perm;
    int count = node_ints(n, "permutation", &perm);
    int64_t def[WN_MAX_RANK];
    if (count < 0) { /* default: reversed axes */
        for (int i = 0; i < x->rank; i++) def[i] = x->rank - 1 - i;
        perm = def;
        count = x->rank;
    }
    if (count != x->rank) {
        diag_node_error(n, "permutation has %d entries, expected the rank %d", count, x->rank);
        return -1;
    }
    bool used[WN_MAX_RANK] = {false};
    out[0].dtype = x->dtype;
    out[0].rank = x->rank;
    for (int i = 0; i < count; i++) {
        if (!infer_check_axis(n, "permutation entry", perm[i], x->rank)) return -1;
        if (used[perm[i]]) {
            diag_node_error(n, "permutation repeats axis %" PRId64, perm[i]);
            return -1;
        }
        used[perm[i]] = true;
        out[0].shape[i] = x->shape[perm[i]];
    }
    return 1;
}

static int infer_concat(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *first = infer_in(n, 0);
    int64_t axis = node_int(n, "axis", 0);
    if (!infer_check_dtype(n, 0, DTM_ALL) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_axis(n, "axis", axis, first->rank))
        return -1;
    infer_desc_of(&out[0], first);
    for (int i = 1; i < n->n_inputs; i++) {
        const Value *v = infer_in(n, i);
        if (!infer_check_same_dtype(n, i, 0) || !infer_check_rank(n, i, first->rank, first->rank)) return -1;
        for (int d = 0; d < first->rank; d++) {
            if (d == axis || dim_equal(v->shape[d], first->shape[d])) continue;
            char a[256], b[256];
            diag_node_error(n, "operand %d (%s) shape %s differs from operand 0 shape %s outside axis %" PRId64, i,
                            value_display_name(v), infer_shape_str(g, v->rank, v->shape, a, sizeof a),
                            infer_shape_str(g, first->rank, first->shape, b, sizeof b), axis);
            return -1;
        }
        out[0].shape[axis] = dim_add(g, out[0].shape[axis], v->shape[axis]); /* < 2^31 each: no overflow */
    }
    return 1;
}

static int infer_slice(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    const Dim *sizes;
    int64_t starts[WN_MAX_RANK], strides[WN_MAX_RANK];
    int count = read_dims(g, n, "sizes", &sizes);
    if (count < 0) return -1;
    if (count != x->rank) {
        diag_node_error(n, "sizes has %d entries, expected the rank %d", count, x->rank);
        return -1;
    }
    if (!infer_read_ints(n, "starts", x->rank, 0, 0, starts) || !infer_read_ints(n, "strides", x->rank, 1, 1, strides))
        return -1;
    infer_desc_of(&out[0], x);
    for (int i = 0; i < x->rank; i++) {
        Dim dim = x->shape[i], size = sizes[i];
        if (dim_is_static(size)) {
            /* With a symbolic input dim its upper bound (when known) limits the window. */
            int64_t limit = dim.v;
            if ((dim_is_static(dim) || limit > 0) && starts[i] + size.v > limit) {
                char d[96];
                diag_node_error(n, "slice starts[%d] + sizes[%d] = %" PRId64 " exceeds dimension %s", i, i,
                                starts[i] + size.v, dim_format(g, dim, d, sizeof d));
                return -1;
            }
            out[0].shape[i] = dim_static((size.v + strides[i] - 1) / strides[i]);
        } else {
            if (strides[i] != 1 && !infer_need_static(n, size, "strided sizes")) return -1;
            if (dim_is_static(dim) && size.v > 0 && starts[i] + size.v > dim.v) {
                diag_node_error(n, "slice sizes[%d] upper bound %" PRId64 " exceeds dimension %" PRId64, i, size.v, dim.v);
                return -1;
            }
            out[0].shape[i] = size;
        }
    }
    return 1;
}

static int infer_split(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    int64_t axis = node_int(n, "axis", 0);
    if (!infer_check_dtype(n, 0, DTM_ALL) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_axis(n, "axis", axis, x->rank))
        return -1;
    Dim dim = x->shape[axis];
    const Attr *a = node_attr(n, "splits");
    int64_t parts = a->type == AT_INTS ? a->n : a->u.i;
    if (parts < 1 || parts > max_out) {
        diag_node_error(n, "splits gives %" PRId64 " outputs, expected 1 to %d", parts, max_out);
        return -1;
    }
    if (parts > 1 && !infer_need_static(n, dim, "axis")) return -1;
    int64_t total = 0;
    for (int i = 0; i < parts; i++) {
        infer_desc_of(&out[i], x);
        if (a->type != AT_INTS) {
            if (parts > 1) out[i].shape[axis] = dim_static(dim.v / parts);
            continue;
        }
        int64_t s = a->u.ints[i];
        if (s <= 0 || s >= INFER_LIMIT) {
            diag_node_error(n, "splits[%d] = %" PRId64 " is not a valid size", i, s);
            return -1;
        }
        total += s;
        if (parts > 1 || dim_is_static(dim)) out[i].shape[axis] = dim_static(s);
    }
    bool bad = a->type == AT_INTS ? (dim_is_static(dim) && total != dim.v) : (dim.v % parts != 0);
    if (bad) {
        char d[96];
        if (a->type == AT_INTS)
            diag_node_error(n, "splits sum to %" PRId64 ", expected the axis dimension %s", total, dim_format(g, dim, d, sizeof d));
        else
            diag_node_error(n, "axis dimension %s is not divisible into %" PRId64 " splits", dim_format(g, dim, d, sizeof d), parts);
        return -1;
    }
    return (int)parts;
}

static int infer_tile(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    int64_t reps[WN_MAX_RANK];
    if (!infer_check_dtype(n, 0, DTM_WEBNN) || !infer_read_ints(n, "repetitions", x->rank, 1, 1, reps)) return -1;
    infer_desc_of(&out[0], x);
    for (int i = 0; i < x->rank; i++) out[0].shape[i] = dim_mul(g, x->shape[i], dim_static(reps[i]));
    return 1;
}

static int infer_pad(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    static const char *const modes[] = {"constant", "edge", "reflection", NULL};
    const Value *x = infer_in(n, 0);
    int64_t beg[WN_MAX_RANK], end[WN_MAX_RANK];
    int mode = infer_read_enum(n, "mode", modes);
    if (mode < 0 || !infer_check_dtype(n, 0, DTM_WEBNN) || !infer_read_ints(n, "beginningPadding", x->rank, 0, 0, beg) ||
        !infer_read_ints(n, "endingPadding", x->rank, 0, 0, end))
        return -1;
    infer_desc_of(&out[0], x);
    for (int i = 0; i < x->rank; i++) {
        Dim d = x->shape[i];
        if (mode == 2 && (beg[i] || end[i]) && dim_is_static(d) && (beg[i] >= d.v || end[i] >= d.v)) {
            diag_node_error(n, "reflection padding at axis %d must be smaller than the dimension %" PRId64, i, d.v);
            return -1;
        }
        out[0].shape[i] = dim_add(g, d, dim_static(beg[i] + end[i]));
    }
    return 1;
}

static int infer_reverse(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0);
    bool mask[WN_MAX_RANK];
    if (!infer_check_dtype(n, 0, DTM_WEBNN) || infer_read_axes(n, "axes", x->rank, true, mask, NULL) < 0) return -1;
    infer_desc_of(&out[0], x);
    return 1;
}

static int infer_triangular(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    if (!infer_check_dtype(n, 0, DTM_WEBNN) || !infer_check_rank(n, 0, 2, WN_MAX_RANK)) return -1;
    infer_desc_of(&out[0], infer_in(n, 0));
    return 1;
}

const InferRule infer_shape_rules[OP_COUNT] = {
    [OP_CONCAT] = {infer_concat},
    [OP_EXPAND] = {infer_expand},
    [OP_PAD] = {infer_pad},
    [OP_RESHAPE] = {infer_reshape},
    [OP_REVERSE] = {infer_reverse},
    [OP_SLICE] = {infer_slice},
    [OP_SPLIT] = {infer_split},
    [OP_TILE] = {infer_tile},
    [OP_TRANSPOSE] = {infer_transpose},
    [OP_TRIANGULAR] = {infer_triangular},
};
