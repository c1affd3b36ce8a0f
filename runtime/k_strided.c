/* k_strided.c - the strided-kernel launcher (k_strided.h). */
#include "k_strided.h"

#include <string.h>

typedef struct {
    uint32_t n, rank;
    uint32_t shape[6];
    int32_t st[3][6];
    int32_t base[4];
    float alpha, beta;
} StridedPush;
_Static_assert(sizeof(StridedPush) == 128, "strided push constants must match strided.glsl");

void kstrided_operand(StridedOp *op, int k, const KTensor *t) {
    kshape_broadcast_strides(op->rank, op->shape, t->rank, t->shape, op->stride[k]);
    op->t[k] = t;
    op->start[k] = 0;
}

void kstrided_operand_dense(StridedOp *op, int k, const KTensor *t) {
    kshape_strides(t->rank, t->shape, op->stride[k]);
    op->t[k] = t;
    op->start[k] = 0;
}

/* Element range [lo, hi] touched by operand k for rows [r0, r1) of dim 0. */
static void window(const StridedOp *op, int rank, const int64_t *shape, int k, int64_t r0, int64_t r1, int64_t *lo,
                   int64_t *hi) {
    int64_t a = op->start[k] + r0 * op->stride[k][0], b = op->start[k] + (r1 - 1) * op->stride[k][0];
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
    for (int d = 1; d < rank; d++) {
        int64_t e = (shape[d] - 1) * op->stride[k][d];
        if (e < 0) *lo += e;
        else *hi += e;
    }
}

int kstrided_run(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec, StridedOp *op) {
    int64_t shape[WN_MAX_RANK];
    memcpy(shape, op->shape, sizeof shape);
    int rank = kshape_collapse(op->rank, shape, op->n_ops, op->stride);
    if (rank > 6) {
        diag_node_error(n, "needs %d dimensions after collapsing; the strided kernels index at most 6", rank);
        return -1;
    }
    uint64_t total = kshape_numel(rank, shape);
    if (total == 0) return 0;
    if (total > INT32_MAX) {
        diag_node_error(n, "too many elements (%llu)", (unsigned long long)total);
        return -1;
    }
    int64_t row = (int64_t)(total / (uint64_t)shape[0]);
    /* Rows per chunk such that every operand's window fits in one binding. */
    int64_t rows = shape[0];
    for (int k = 0; k < op->n_ops; k++) {
        int64_t lo, hi;
        window(op, rank, shape, k, 0, 1, &lo, &hi);
        int64_t inner = hi - lo + 1;
        int64_t maxe = (int64_t)kc_max_binding_elems(kc, op->t[k]->dtype);
        if (inner > maxe) {
            diag_node_error(n, "tensor %s: one row of %lld elements exceeds the device's storage-buffer range",
                            value_display_name(op->t[k]->value), (long long)inner);
            return -1;
        }
        int64_t s0 = op->stride[k][0] < 0 ? -op->stride[k][0] : op->stride[k][0];
        if (s0 > 0) {
            int64_t fit = (maxe - inner) / s0 + 1;
            if (fit < rows) rows = fit;
        }
    }
    uint32_t wg = 256;
    for (int64_t r0 = 0; r0 < shape[0]; r0 += rows) {
        int64_t r1 = r0 + rows < shape[0] ? r0 + rows : shape[0];
        StridedPush pc;
        memset(&pc, 0, sizeof pc);
        pc.n = (uint32_t)((r1 - r0) * row);
        pc.rank = (uint32_t)rank;
        for (int d = 0; d < rank; d++) pc.shape[d] = (uint32_t)(d == 0 ? r1 - r0 : shape[d]);
        pc.alpha = op->alpha;
        pc.beta = op->beta;
        if (op->use_extra && op->n_ops <= 2) memcpy(pc.st[2], op->extra, sizeof op->extra);
        KBind b[KS_MAX_OPS];
        for (int k = 0; k < op->n_ops; k++) {
            int64_t lo, hi;
            window(op, rank, shape, k, r0, r1, &lo, &hi);
            uint32_t base;
            bool is_out = k == op->n_ops - 1;
            if (kc_bind_window(kc, n, op->t[k], lo, hi, is_out, &b[k], &base) < 0) return -1;
            int32_t bk = (int32_t)(base + (op->start[k] + r0 * op->stride[k][0] - lo));
            if (k < 3) {
                for (int d = 0; d < rank; d++) pc.st[k][d] = (int32_t)op->stride[k][d];
                pc.base[k] = bk;
            }
            if (is_out) pc.base[3] = bk; /* contiguous-output shaders (where) use base3 + i */
        }
        if (kc_dispatch_1d(kc, n, shader, spec, n_spec, &pc, sizeof pc, b, op->n_ops, (pc.n + wg - 1) / wg) < 0) return -1;
    }
    return 0;
}
