/* eval_gather.c - gather, gatherElements, gatherND, scatterElements and scatterND for the CPU
 * evaluator.  Indices follow WebNN: negative values count from the end and out-of-range values
 * are clamped into [0, size-1] (WPT's "out-of-bound" gather cases expect clamping).
 * Family gather of ops.def: its op-indexed table is eval_gather_ops. */
#include <string.h>

#include "core.h"
#include "eval_internal.h"

/* Index value `i` of `idx` resolved against a dimension of size `len`. */
static int64_t index_at(const Ten *idx, int64_t i, int64_t len) {
    int64_t v = ten_geti(idx, i);
    if (ten_is_unsigned64(idx) && v < 0) v = INT64_MAX;
    if (v < 0) v += len;
    return v < 0 ? 0 : v >= len ? len - 1 : v;
}

static int gather(const Node *n, const Ten *x, const Ten *idx, Ten *o) {
    int axis = eval_attr_axis(n, "axis", 0, x->rank);
    if (axis < 0) return -1;
    if (o->rank != x->rank - 1 + idx->rank) return eval_fail(n, "output rank mismatch");
    for (int d = 0; d < o->rank; d++) {
        int64_t want = d < axis ? x->shape[d] : d < axis + idx->rank ? idx->shape[d - axis]
                                                                     : x->shape[d - idx->rank + 1];
        if (o->shape[d] != want) return eval_fail(n, "output shape mismatch");
    }
    int64_t xs[WN_MAX_RANK], c[WN_MAX_RANK], xc[WN_MAX_RANK], is[WN_MAX_RANK];
    ten_strides(x, xs);
    ten_strides(idx, is);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        for (int d = 0; d < axis; d++) xc[d] = c[d];
        int64_t ii = ten_dot_strides(idx->rank, c + axis, is);
        xc[axis] = index_at(idx, ii, x->shape[axis]);
        for (int d = axis + 1; d < x->rank; d++) xc[d] = c[d - 1 + idx->rank];
        ten_copy_elem(o, i, x, ten_dot_strides(x->rank, xc, xs));
    }
    return 0;
}

/* Shared walk of gatherElements / scatterElements: element j of `idx` addresses the input element
 * with the coordinates of j except along axis. */
static int elements(const Node *n, const Ten *x, const Ten *idx, const Ten *upd, Ten *o) {
    int axis = eval_attr_axis(n, "axis", 0, x->rank);
    if (axis < 0) return -1;
    if (idx->rank != x->rank) return eval_fail(n, "indices must have the input's rank");
    for (int d = 0; d < x->rank; d++)
        if (d != axis && idx->shape[d] > x->shape[d]) return eval_fail(n, "indices larger than the input");
    int64_t xs[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_strides(x, xs);
    if (upd) {
        if (upd->count != idx->count || upd->dt != x->dt) return eval_fail(n, "updates must match indices");
        memcpy(o->data, x->data, (size_t)dtype_storage_bytes(x->dt, (uint64_t)x->count));
    } else if (o->count != idx->count) {
        return eval_fail(n, "output must match indices");
    }
    for (int64_t j = 0; j < idx->count; j++) {
        ten_unravel(j, idx->rank, idx->shape, c);
        c[axis] = index_at(idx, j, x->shape[axis]);
        int64_t xi = ten_dot_strides(x->rank, c, xs);
        if (upd) ten_copy_elem(o, xi, upd, j);
        else ten_copy_elem(o, j, x, xi);
    }
    return 0;
}

/* Shared walk of gatherND / scatterND: the last indices dimension (k) addresses a slice of the
 * input's leading k dimensions; `slice` elements follow each. */
static int nd(const Node *n, const Ten *x, const Ten *idx, const Ten *upd, Ten *o) {
    if (idx->rank < 1) return eval_fail(n, "indices must have rank >= 1");
    int64_t k = idx->shape[idx->rank - 1];
    if (k < 1 || k > x->rank) return eval_fail(n, "indices last dimension exceeds the input rank");
    int64_t slice = 1, xs[WN_MAX_RANK];
    for (int d = (int)k; d < x->rank; d++) slice *= x->shape[d];
    int64_t tuples = idx->count / k;
    ten_strides(x, xs);
    if (upd) {
        if (upd->count != tuples * slice || upd->dt != x->dt) return eval_fail(n, "updates have the wrong size");
        memcpy(o->data, x->data, (size_t)dtype_storage_bytes(x->dt, (uint64_t)x->count));
    } else if (o->count != tuples * slice) {
        return eval_fail(n, "output has the wrong size");
    }
    for (int64_t t = 0; t < tuples; t++) {
        int64_t base = 0;
        for (int64_t d = 0; d < k; d++) base += index_at(idx, t * k + d, x->shape[d]) * xs[d];
        for (int64_t e = 0; e < slice; e++) {
            if (upd) ten_copy_elem(o, base + e, upd, t * slice + e);
            else ten_copy_elem(o, t * slice + e, x, base + e);
        }
    }
    return 0;
}

/* 0 when the operands (input, indices, and updates for scatter) are present with integer indices
 * and the output has the input's dtype; 1 (not handled) otherwise; -1 with a diagnostic. */
static int index_operands(const Node *n, const Ten *in, const Ten *out) {
    bool scatter = n->op == OP_SCATTER_ELEMENTS || n->op == OP_SCATTER_ND;
    if (n->n_inputs != (scatter ? 3 : 2) || n->n_outputs != 1) return 1;
    for (int i = 0; i < n->n_inputs; i++)
        if (!in[i].data) return 1;
    if (dtype_is_float(in[1].dt) || in[0].dt != out[0].dt) return 1;
    if (scatter && out[0].count != in[0].count) return eval_fail(n, "output must match the input");
    return 0;
}

static int eval_gather_op(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    int rc = index_operands(n, in, out);
    return rc ? rc : gather(n, &in[0], &in[1], &out[0]);
}

/* gatherElements and scatterElements (updates: operand 2 of scatter). */
static int eval_elements(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    int rc = index_operands(n, in, out);
    return rc ? rc : elements(n, &in[0], &in[1], n->op == OP_SCATTER_ELEMENTS ? &in[2] : NULL, &out[0]);
}

/* gatherND and scatterND. */
static int eval_nd(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    int rc = index_operands(n, in, out);
    return rc ? rc : nd(n, &in[0], &in[1], n->op == OP_SCATTER_ND ? &in[2] : NULL, &out[0]);
}

const EvalOp eval_gather_ops[OP_COUNT] = {
    [OP_GATHER] = {eval_gather_op},
    [OP_GATHER_ELEMENTS] = {eval_elements},
    [OP_GATHER_ND] = {eval_nd},
    [OP_SCATTER_ELEMENTS] = {eval_elements},
    [OP_SCATTER_ND] = {eval_nd},
};
