/* k_strided.c - the strided-kernel launcher (k_strided.h).  Copies that collapse to one dense,
 * 16-byte-aligned run take copy.comp's vectorized path (uvec4 loads and stores, several per
 * invocation); everything else, and the unaligned tail, runs element by element.  A helper
 * shared by op families eltwise and shape. */
#include "k_strided.h"

#include <stdlib.h>
#include <string.h>

#include "kx_util.h"

/* vectorized copy: 16-byte vectors per invocation (copy.comp allows <= 16); on an H200 (256 MiB)
 * 1: 3.27 TB/s, 2: 4.17, 4: 4.11, 8: 4.05, 16: 4.03 (PyTorch's copy: 4.18) */
#define COPY_VEC_PER 2

/* Vectors per invocation: COPY_VEC_PER, or WEBNNC_COPY_VEC = 1..16 (bench sweeps). */
static uint32_t vec_per_invocation(void) {
    const char *e = getenv("WEBNNC_COPY_VEC");
    long v = e ? strtol(e, NULL, 10) : 0;
    return v >= 1 && v <= 16 ? (uint32_t)v : COPY_VEC_PER;
}

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

/* Binding of bytes [first, first + bytes) of t; *base = index of `first` in 16-byte vectors, or
 * returns 1 when `first` does not sit on a 16-byte boundary of the binding. */
static int bind_vectors(KernelCtx *kc, const Node *n, const KTensor *t, uint64_t first, uint64_t bytes, bool write, KBind *b,
                        uint32_t *base) {
    KTensor raw = *t;
    raw.dtype = DT_U8;
    raw.numel = dtype_storage_bytes(t->dtype, t->numel);
    uint32_t at;
    if (kc_bind_window(kc, n, &raw, (int64_t)first, (int64_t)(first + bytes - 1), write, b, &at) < 0) return -1;
    if (at % 16) return 1;
    *base = at / 16;
    return 0;
}

/* Dense copy of op (rank 1, unit strides, a copy shader): vectors of 16 bytes while both sides are
 * 16-byte aligned.  Returns the elements copied (a multiple of 16 bytes), 0 when not aligned, -1. */
static int64_t copy_vectorized(KernelCtx *kc, const Node *n, int shader, uint32_t wg, const StridedOp *op, int64_t count) {
    uint64_t es = dtype_storage_bytes(op->t[0]->dtype, 1);
    uint64_t nvec = (uint64_t)count * es / 16;
    uint64_t max_vec = kc_max_binding_elems(kc, DT_U8) / 16;
    if (es == 0 || nvec == 0 || max_vec == 0) return 0;
    uint32_t per = vec_per_invocation();
    uint32_t spec[2] = {wg, per};
    for (uint64_t v0 = 0; v0 < nvec; v0 += max_vec) {
        uint64_t cnt = nvec - v0 < max_vec ? nvec - v0 : max_vec;
        StridedPush pc;
        memset(&pc, 0, sizeof pc);
        pc.n = (uint32_t)cnt;
        pc.rank = 1;
        pc.shape[0] = (uint32_t)cnt;
        KBind b[2];
        for (int k = 0; k < 2; k++) {
            uint32_t base;
            int rc = bind_vectors(kc, n, op->t[k], (uint64_t)op->start[k] * es + v0 * 16, cnt * 16, k == 1, &b[k], &base);
            if (rc < 0) return -1;
            if (rc > 0) return 0; /* only the first chunk can be unaligned: later ones move by whole vectors */
            pc.base[k] = (int32_t)base;
        }
        uint64_t per_group = (uint64_t)wg * per;
        if (kc_dispatch_1d(kc, n, shader, spec, 2, &pc, sizeof pc, b, 2, (cnt + per_group - 1) / per_group) < 0) return -1;
    }
    return (int64_t)(nvec * 16 / es);
}

/* True when shader is the copy shader for op's element size and op is one dense run. */
static bool dense_copy(const KernelCtx *kc, int shader, const StridedOp *op, int rank) {
    if (op->n_ops != 2 || rank != 1 || op->stride[0][0] != 1 || op->stride[1][0] != 1 || op->t[0]->dtype != op->t[1]->dtype)
        return false;
    DType c = kx_size_class(op->t[0]->dtype);
    return c != DT_INVALID && kc_has_shader(kc, "copy", c, c) == shader;
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
    if (n_spec == 1 && dense_copy(kc, shader, op, rank) && !wnrt_env_flag("WEBNNC_NO_VEC_COPY", false)) {
        int64_t done = copy_vectorized(kc, n, shader, spec[0], op, shape[0]);
        if (done < 0) return -1;
        if (done == shape[0]) return 0;
        if (done > 0) { /* the tail (less than 16 bytes) element by element */
            StridedOp tail = *op;
            tail.shape[0] = shape[0] - done;
            tail.rank = 1;
            tail.start[0] += done;
            tail.start[1] += done;
            return kstrided_run(kc, n, shader, spec, n_spec, &tail);
        }
    }
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
