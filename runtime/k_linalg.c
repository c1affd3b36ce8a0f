/* k_linalg.c - kernel family `matmul` (op family linalg): batched [.., M, K] x [.., K, N] with broadcast batch dims
 * (up to 4 after collapsing), float32/float16 with f32 accumulation.  M == 1 uses the mat-vec
 * shader (matvec.comp), otherwise the 64x64 shared-memory tiled GEMM (matmul.comp).
 * Operands beyond maxStorageBufferRange: one batch at a time, A/C split over windows of M rows
 * and B over windows of K rows; the K slices after the first add to C (accum), so float16 C is
 * rounded once per slice. */
#include <string.h>

#include "kx_util.h"

typedef struct {
    uint32_t M, N, K, brank;
    uint32_t bshape[4];
    uint32_t a_bst[4];
    uint32_t b_bst[4];
    int32_t base_a, base_b, base_c;
    uint32_t lda, accum; /* A's row stride; 1: add to C (K split) */
} MatmulPush;

static int matmul_check(KernelCtx *kc, const Node *n) {
    if (n->n_inputs < 2 || !n->inputs[0] || !n->inputs[1] || n->n_outputs != 1 || n->inputs[0]->rank < 2 ||
        n->inputs[1]->rank < 2) {
        diag_node_error(n, "matmul needs two operands of rank >= 2");
        return -1;
    }
    DType dt = n->inputs[0]->dtype;
    if (n->inputs[1]->dtype != dt || !dtype_is_float(dt)) {
        diag_error("no kernel for op %s (dtype %s) at node %s", op_name(n->op), dtype_name(dt), node_display_name(n));
        return -1;
    }
    return kcheck_shader(kc, n, "matmul", dt, dt) < 0 ? -1 : kcheck_shader(kc, n, "matvec", dt, dt);
}

/* One dispatch of the mat-vec (M == 1) or tiled shader over `batch` matrices. */
static int matmul_dispatch(KernelCtx *kc, const Node *n, int sh, int64_t M, int64_t N, const MatmulPush *pc,
                           const KBind *bind, uint64_t batch) {
    uint32_t gx = (uint32_t)((N + 63) / 64);
    if (M == 1) {
        uint32_t spec[2] = {256, 4};
        return kc_dispatch(kc, n, sh, spec, 2, pc, sizeof *pc, bind, 3, gx, 1, (uint32_t)batch);
    }
    uint32_t spec[1] = {256};
    return kc_dispatch(kc, n, sh, spec, 1, pc, sizeof *pc, bind, 3, gx, (uint32_t)((M + 63) / 64), (uint32_t)batch);
}

#define MATMUL_MAX_SPLIT_DISPATCHES 65536

/* Operands beyond one binding: per batch matrix, windows of M rows (A, C) x windows of K rows
 * (B; the A columns of that K slice).  shape/st: collapsed batch dims and element strides. */
static int matmul_split(KernelCtx *kc, const Node *n, int sh, const KTensor *a, const KTensor *b, const KTensor *c,
                        const MatmulPush *whole, int brank, const int64_t *shape, int64_t (*st)[WN_MAX_RANK]) {
    int64_t M = whole->M, N = whole->N, K = whole->K;
    int64_t bv[2] = {K, N}, bs[2] = {N, 1}, cv[2] = {M, N}, cs[2] = {N, 1};
    int64_t kr = kx_window_rows(kc, n, b, 2, bv, bs), mr = kx_window_rows(kc, n, c, 2, cv, cs);
    if (kr < 0 || mr < 0) return -1;
    int64_t amax = (int64_t)kc_max_binding_elems(kc, a->dtype);
    if (kr > amax) kr = amax;
    if (kr >= 16) kr = kr / 16 * 16; /* whole K tiles of matmul.comp per slice */
    int64_t ar = (amax - kr) / K + 1; /* A rows whose K slice fits one binding */
    if (ar < mr) mr = ar;
    uint64_t batch = 1;
    for (int d = 0; d < brank; d++) batch *= (uint64_t)shape[d];
    uint64_t count = batch * (uint64_t)((M + mr - 1) / mr) * (uint64_t)((K + kr - 1) / kr);
    if (count > MATMUL_MAX_SPLIT_DISPATCHES) {
        diag_node_error(n, "matmul operands beyond the device's maxStorageBufferRange need %llu dispatches (at most %d)",
                        (unsigned long long)count, MATMUL_MAX_SPLIT_DISPATCHES);
        return -1;
    }
    MatmulPush pc = *whole;
    pc.brank = 0;
    for (uint64_t bi = 0; bi < batch; bi++) {
        int64_t ao = 0, bo = 0, co = 0;
        uint64_t rest = bi;
        for (int d = brank - 1; d >= 0; d--) {
            int64_t x = (int64_t)(rest % (uint64_t)shape[d]);
            rest /= (uint64_t)shape[d];
            ao += x * st[0][d], bo += x * st[1][d], co += x * st[2][d];
        }
        for (int64_t m0 = 0; m0 < M; m0 += mr) {
            int64_t m1 = m0 + mr < M ? m0 + mr : M;
            for (int64_t k0 = 0; k0 < K; k0 += kr) {
                int64_t k1 = k0 + kr < K ? k0 + kr : K;
                KBind bind[3];
                uint32_t base[3];
                if (kc_bind_window(kc, n, a, ao + m0 * K + k0, ao + (m1 - 1) * K + k1 - 1, false, &bind[0], &base[0]) < 0 ||
                    kc_bind_window(kc, n, b, bo + k0 * N, bo + k1 * N - 1, false, &bind[1], &base[1]) < 0 ||
                    kc_bind_window(kc, n, c, co + m0 * N, co + m1 * N - 1, true, &bind[2], &base[2]) < 0)
                    return -1;
                pc.base_a = (int32_t)base[0], pc.base_b = (int32_t)base[1], pc.base_c = (int32_t)base[2];
                pc.M = (uint32_t)(m1 - m0), pc.K = (uint32_t)(k1 - k0), pc.accum = k0 > 0;
                if (matmul_dispatch(kc, n, sh, m1 - m0, N, &pc, bind, 1) < 0) return -1;
            }
        }
    }
    return 0;
}

static int matmul_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    const KTensor *a = &in[0], *b = &in[1], *c = &out[0];
    int R = c->rank, nb = R - 2;
    int64_t M = a->shape[a->rank - 2], K = a->shape[a->rank - 1], N = b->shape[b->rank - 1];
    if (b->shape[b->rank - 2] != K || c->shape[R - 2] != M || c->shape[R - 1] != N) {
        diag_node_error(n, "matmul shapes do not agree");
        return -1;
    }
    /* Batch strides (elements) of a, b and the contiguous output, collapsed. */
    int64_t shape[WN_MAX_RANK], st[3][WN_MAX_RANK], full[WN_MAX_RANK];
    int64_t ab[WN_MAX_RANK], bb[WN_MAX_RANK];
    for (int d = 0; d < nb; d++) shape[d] = c->shape[d];
    int64_t a_batch[WN_MAX_RANK], b_batch[WN_MAX_RANK];
    for (int d = 0; d < a->rank - 2; d++) a_batch[d] = a->shape[d];
    for (int d = 0; d < b->rank - 2; d++) b_batch[d] = b->shape[d];
    kshape_broadcast_strides(nb, shape, a->rank - 2, a_batch, ab);
    kshape_broadcast_strides(nb, shape, b->rank - 2, b_batch, bb);
    kshape_strides(nb, shape, full);
    for (int d = 0; d < nb; d++) {
        st[0][d] = ab[d] * M * K;
        st[1][d] = bb[d] * K * N;
        st[2][d] = full[d] * M * N;
    }
    int brank = nb > 0 ? kshape_collapse(nb, shape, 3, st) : 0;
    if (brank > 4) {
        diag_node_error(n, "matmul supports at most 4 non-contiguous batch dims (%d here)", brank);
        return -1;
    }
    uint64_t batch = 1;
    for (int d = 0; d < brank; d++) batch *= (uint64_t)shape[d];
    if (batch > kc_device(kc)->max_workgroup_count[2]) {
        diag_node_error(n, "matmul batch %llu exceeds the device's grid limit", (unsigned long long)batch);
        return -1;
    }
    MatmulPush pc;
    memset(&pc, 0, sizeof pc);
    pc.M = (uint32_t)M, pc.N = (uint32_t)N, pc.K = (uint32_t)K, pc.brank = (uint32_t)brank;
    for (int d = 0; d < brank; d++) {
        pc.bshape[d] = (uint32_t)shape[d];
        pc.a_bst[d] = (uint32_t)st[0][d];
        pc.b_bst[d] = (uint32_t)st[1][d];
    }
    int sh = kc_find_shader(kc, n, M == 1 ? "matvec" : "matmul", a->dtype, a->dtype);
    if (sh < 0) return -1;
    pc.lda = (uint32_t)K;
    uint64_t maxe = kc_max_binding_elems(kc, a->dtype);
    if (a->numel <= maxe && b->numel <= maxe && c->numel <= maxe) {
        KBind bind[3];
        uint32_t base[3];
        const KTensor *ts[3] = {a, b, c};
        for (int k = 0; k < 3; k++)
            if (kc_bind_window(kc, n, ts[k], 0, (int64_t)ts[k]->numel - 1, k == 2, &bind[k], &base[k]) < 0) return -1;
        pc.base_a = (int32_t)base[0], pc.base_b = (int32_t)base[1], pc.base_c = (int32_t)base[2];
        return matmul_dispatch(kc, n, sh, M, N, &pc, bind, batch);
    }
    return matmul_split(kc, n, sh, a, b, c, &pc, brank, shape, st);
}

const KernelFamily kfam_matmul = {matmul_check, matmul_record, 0};
