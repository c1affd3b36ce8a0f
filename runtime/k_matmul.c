/* k_matmul.c - matmul kernel family: batched [.., M, K] x [.., K, N] with broadcast batch dims
 * (up to 4 after collapsing), float32/float16 with f32 accumulation.  M == 1 uses the mat-vec
 * shader (matvec.comp), otherwise the 64x64 shared-memory tiled GEMM (matmul.comp). */
#include <string.h>

#include "kernel.h"

typedef struct {
    uint32_t M, N, K, brank;
    uint32_t bshape[4];
    uint32_t a_bst[4];
    uint32_t b_bst[4];
    int32_t base_a, base_b, base_c;
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
    KBind bind[3];
    uint32_t base[3];
    const KTensor *ts[3] = {a, b, c};
    for (int k = 0; k < 3; k++)
        if (kc_bind_window(kc, n, ts[k], 0, (int64_t)ts[k]->numel - 1, k == 2, &bind[k], &base[k]) < 0) return -1;
    pc.base_a = (int32_t)base[0], pc.base_b = (int32_t)base[1], pc.base_c = (int32_t)base[2];
    if (M == 1) {
        int sh = kc_find_shader(kc, n, "matvec", a->dtype, a->dtype);
        uint32_t spec[2] = {256, 4};
        return sh < 0 ? -1 : kc_dispatch(kc, n, sh, spec, 2, &pc, sizeof pc, bind, 3, (uint32_t)((N + 63) / 64), 1, (uint32_t)batch);
    }
    int sh = kc_find_shader(kc, n, "matmul", a->dtype, a->dtype);
    uint32_t spec[1] = {256};
    return sh < 0 ? -1
                  : kc_dispatch(kc, n, sh, spec, 1, &pc, sizeof pc, bind, 3, (uint32_t)((N + 63) / 64),
                                (uint32_t)((M + 63) / 64), (uint32_t)batch);
}

const KernelFamily kfam_matmul = {matmul_check, matmul_record, 0};
