/* infer_linalg.c - shape inference for matmul (rank >= 2, batch dims broadcast) and gemm
 * (2-D, optional transposes, c unidirectionally broadcast to [M, N]).
 * Family linalg of ops.def: its op-indexed table is infer_linalg_rules. */
#include "infer_internal.h"

/* The inner (contracted) dims of operands 0 and 1 must be equal. */
static bool inner_dims_match(Graph *g, const Node *n, Dim a, Dim b) {
    if (dim_equal(a, b)) return true;
    char x[96], y[96];
    diag_node_error(n, "inner dimensions differ: %s (operand 0) vs %s (operand 1)", dim_format(g, a, x, sizeof x),
                    dim_format(g, b, y, sizeof y));
    return false;
}

static int infer_matmul(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *a = infer_in(n, 0), *b = infer_in(n, 1);
    if (!infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_same_dtype(n, 1, 0) ||
        !infer_check_rank(n, 0, 2, WN_MAX_RANK) || !infer_check_rank(n, 1, 2, WN_MAX_RANK))
        return -1;
    if (!inner_dims_match(g, n, a->shape[a->rank - 1], b->shape[b->rank - 2])) return -1;
    TensorDesc *d = &out[0];
    if (!infer_broadcast(g, a->rank - 2, a->shape, b->rank - 2, b->shape, &d->rank, d->shape)) {
        infer_shapes_error(g, n, "cannot broadcast batch dimensions", a->rank - 2, a->shape, "and", b->rank - 2, b->shape);
        return -1;
    }
    d->shape[d->rank++] = a->shape[a->rank - 2];
    d->shape[d->rank++] = b->shape[b->rank - 1];
    d->dtype = a->dtype;
    return 1;
}

static int infer_gemm(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *a = infer_in(n, 0), *b = infer_in(n, 1), *c = infer_in(n, 2);
    if (!infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_same_dtype(n, 1, 0) || !infer_check_same_dtype(n, 2, 0) ||
        !infer_check_rank(n, 0, 2, 2) || !infer_check_rank(n, 1, 2, 2) || !infer_check_rank(n, 2, 0, 2))
        return -1;
    bool ta = node_bool(n, "aTranspose", false), tb = node_bool(n, "bTranspose", false);
    Dim m = a->shape[ta ? 1 : 0], ka = a->shape[ta ? 0 : 1];
    Dim kb = b->shape[tb ? 1 : 0], nn = b->shape[tb ? 0 : 1];
    if (!inner_dims_match(g, n, ka, kb)) return -1;
    TensorDesc *d = &out[0];
    d->dtype = a->dtype;
    d->rank = 2;
    d->shape[0] = m;
    d->shape[1] = nn;
    if (c && !infer_unidirectional(c->rank, c->shape, 2, d->shape)) {
        infer_shapes_error(g, n, "operand 2 (c) shape", c->rank, c->shape, "cannot be broadcast to", 2, d->shape);
        return -1;
    }
    return 1;
}

const InferRule infer_linalg_rules[OP_COUNT] = {
    [OP_MATMUL] = {infer_matmul},
    [OP_GEMM] = {infer_gemm},
};
