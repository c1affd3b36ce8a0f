/* eval_linalg.c - matmul (batch dims broadcast) and gemm for the CPU evaluator; everything
 * accumulates in double and rounds once to the output dtype.
 * Family linalg of ops.def: its op-indexed table is eval_linalg_ops. */
#include "core.h"
#include "eval_internal.h"

/* A tensor's leading (batch) dimensions as a Ten of rank-2 (for broadcasting strides). */
static Ten batch_part(const Ten *t) {
    Ten b = *t;
    b.rank = t->rank - 2;
    return b;
}

static int matmul(const Node *n, const Ten *a, const Ten *b, Ten *o) {
    if (a->rank < 2 || b->rank < 2 || o->rank < 2) return 1;
    int64_t M = a->shape[a->rank - 2], K = a->shape[a->rank - 1], N = b->shape[b->rank - 1];
    if (b->shape[b->rank - 2] != K || o->shape[o->rank - 2] != M || o->shape[o->rank - 1] != N)
        return eval_fail(n, "matmul shapes do not match");
    int brank = o->rank - 2;
    Ten ab = batch_part(a), bb = batch_part(b);
    if (ab.rank > brank || bb.rank > brank) return eval_fail(n, "matmul batch rank mismatch");
    for (int d = 0; d < ab.rank; d++) {
        int64_t od = o->shape[brank - ab.rank + d];
        if (ab.shape[d] != 1 && ab.shape[d] != od) return eval_fail(n, "matmul batch does not broadcast");
    }
    for (int d = 0; d < bb.rank; d++) {
        int64_t od = o->shape[brank - bb.rank + d];
        if (bb.shape[d] != 1 && bb.shape[d] != od) return eval_fail(n, "matmul batch does not broadcast");
    }
    int64_t sa[WN_MAX_RANK], sb[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_bcast_strides(&ab, brank, o->shape, sa);
    ten_bcast_strides(&bb, brank, o->shape, sb);
    int64_t batches = o->count / (M * N);
    for (int64_t bi = 0; bi < batches; bi++) {
        ten_unravel(bi, brank, o->shape, c);
        int64_t ao = ten_dot_strides(brank, c, sa) * M * K, bo = ten_dot_strides(brank, c, sb) * K * N;
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double acc = 0;
                for (int64_t k = 0; k < K; k++) acc += ten_getf(a, ao + i * K + k) * ten_getf(b, bo + k * N + j);
                ten_setf(o, bi * M * N + i * N + j, acc);
            }
    }
    return 0;
}

static int gemm(const Node *n, const Ten *a, const Ten *b, const Ten *cc, Ten *o) {
    if (a->rank != 2 || b->rank != 2 || o->rank != 2) return eval_fail(n, "gemm needs 2-D operands");
    bool at = node_bool(n, "aTranspose", false), bt = node_bool(n, "bTranspose", false);
    int64_t M = at ? a->shape[1] : a->shape[0], K = at ? a->shape[0] : a->shape[1];
    int64_t N = bt ? b->shape[0] : b->shape[1], Kb = bt ? b->shape[1] : b->shape[0];
    if (K != Kb || o->shape[0] != M || o->shape[1] != N) return eval_fail(n, "gemm shapes do not match");
    double alpha = node_float(n, "alpha", 1.0), beta = node_float(n, "beta", 1.0);
    int64_t sc[2] = {0, 0}, idx[2];
    if (cc) {
        if (cc->rank > 2) return eval_fail(n, "gemm c must have rank <= 2");
        for (int d = 0; d < cc->rank; d++)
            if (cc->shape[d] != 1 && cc->shape[d] != o->shape[2 - cc->rank + d])
                return eval_fail(n, "gemm c does not broadcast");
        ten_bcast_strides(cc, 2, o->shape, sc);
    }
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double acc = 0;
            for (int64_t k = 0; k < K; k++) {
                double av = ten_getf(a, at ? k * M + i : i * K + k);
                double bv = ten_getf(b, bt ? j * K + k : k * N + j);
                acc += av * bv;
            }
            acc *= alpha;
            if (cc) {
                idx[0] = i;
                idx[1] = j;
                acc += beta * ten_getf(cc, ten_dot_strides(2, idx, sc));
            }
            ten_setf(o, i * N + j, acc);
        }
    return 0;
}

static int eval_matmul(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (!eval_float_operand(n, in)) return 1;
    return n->n_inputs == 2 && in[1].data ? matmul(n, &in[0], &in[1], &out[0]) : 1;
}

static int eval_gemm(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (!eval_float_operand(n, in) || !eval_opt_in(n, in, 1)) return 1;
    return gemm(n, &in[0], &in[1], eval_opt_in(n, in, 2), &out[0]);
}

const EvalOp eval_linalg_ops[OP_COUNT] = {
    [OP_MATMUL] = {eval_matmul},
    [OP_GEMM] = {eval_gemm},
};
