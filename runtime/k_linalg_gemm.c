/* k_linalg_gemm.c - kernel family `gemm` (op family linalg): y = alpha * op(a) x op(b) + beta * c for float32/float16 with
 * aTranspose/bTranspose and c broadcast (0-D, 1-D or 2-D) to [M, N].  Shader gemm_simple.comp.
 * Beyond maxStorageBufferRange: split over windows of output rows (b and a transposed a must fit
 * one binding). */
#include "kx_util.h"

typedef struct {
    uint32_t M, N, K, flags;
    float alpha, beta;
    int32_t c_rs, c_cs;
    int32_t base_a, base_b, base_c, base_y;
} GemmPush;

static int gemm_check(KernelCtx *kc, const Node *n) {
    if (kx_operands(n, 2, 3, 1) < 0) return -1;
    DType dt = n->inputs[0]->dtype;
    if (kx_float_only(n, dt) < 0) return -1;
    if (n->inputs[1]->dtype != dt || (kx_opt(n, 2) && kx_opt(n, 2)->dtype != dt)) return kx_no_kernel(n, n->inputs[1]->dtype);
    if (n->inputs[0]->rank != 2 || n->inputs[1]->rank != 2 || (kx_opt(n, 2) && kx_opt(n, 2)->rank > 2)) {
        diag_node_error(n, "gemm needs 2-D a and b and c of rank <= 2");
        return -1;
    }
    return kcheck_shader(kc, n, "gemm_simple", dt, dt);
}

static int gemm_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "gemm_simple", in[0].dtype, in[0].dtype);
    if (sh < 0) return -1;
    bool at = node_bool(n, "aTranspose", false), bt = node_bool(n, "bTranspose", false);
    int64_t M = in[0].shape[at ? 1 : 0], K = in[0].shape[at ? 0 : 1];
    int64_t K2 = in[1].shape[bt ? 1 : 0], N = in[1].shape[bt ? 0 : 1];
    if (K != K2 || out[0].rank != 2 || out[0].shape[0] != M || out[0].shape[1] != N || out[0].numel > INT32_MAX ||
        in[0].numel > INT32_MAX || in[1].numel > INT32_MAX) {
        diag_node_error(n, "gemm operand shapes do not match (or are too large)");
        return -1;
    }
    const KTensor *c = kx_opt(n, 2) ? &in[2] : NULL;
    GemmPush pc = {.M = (uint32_t)M, .N = (uint32_t)N, .K = (uint32_t)K,
                   .flags = (at ? 1u : 0u) | (bt ? 2u : 0u) | (c ? 4u : 0u),
                   .alpha = (float)node_float(n, "alpha", 1.0), .beta = (float)node_float(n, "beta", 1.0)};
    if (c) {
        int64_t st[2], os[2] = {M, N};
        for (int d = 0; d < c->rank; d++)
            if (c->shape[d] != 1 && c->shape[d] != os[2 - c->rank + d]) {
                diag_node_error(n, "c is not broadcastable to [%lld, %lld]", (long long)M, (long long)N);
                return -1;
            }
        kshape_broadcast_strides(2, os, c->rank, c->shape, st);
        pc.c_rs = (int32_t)st[0];
        pc.c_cs = (int32_t)st[1];
    }
    /* Beyond maxStorageBufferRange: windows of output rows (y, a's rows, c's rows); b is bound
     * whole, and so is a transposed a (the shader's column stride of a is M: no split then). */
    int64_t yv[2] = {M, N}, ys[2] = {N, 1}, av[2] = {M, K}, as[2] = {K, 1};
    int64_t rows = at ? M : kx_window_rows(kc, n, &out[0], 2, yv, ys), ar = at ? M : kx_window_rows(kc, n, &in[0], 2, av, as);
    if (rows < 0 || ar < 0) return -1;
    if (ar < rows) rows = ar;
    KBind b[4];
    if (kx_bind(kc, n, &in[1], false, &b[1], &pc.base_b) < 0) return -1;
    uint32_t spec[1] = {KX_WG};
    for (int64_t m0 = 0; m0 < M; m0 += rows) {
        int64_t m1 = m0 + rows < M ? m0 + rows : M;
        uint32_t ba, bc = 0, by;
        int64_t a_lo = at ? 0 : m0 * K, a_hi = at ? (int64_t)in[0].numel - 1 : m1 * K - 1;
        int64_t c_lo = 0, c_hi = c ? (int64_t)c->numel - 1 : 0; /* absent c: one element of a (never read) */
        if (c && pc.c_rs) c_lo = m0 * pc.c_rs, c_hi = (m1 - 1) * pc.c_rs + (N - 1) * pc.c_cs;
        if (kc_bind_window(kc, n, &in[0], a_lo, a_hi, false, &b[0], &ba) < 0 ||
            kc_bind_window(kc, n, c ? c : &in[0], c_lo, c_hi, false, &b[2], &bc) < 0 ||
            kc_bind_window(kc, n, &out[0], m0 * N, m1 * N - 1, true, &b[3], &by) < 0)
            return -1;
        pc.base_a = (int32_t)ba;
        pc.base_c = (int32_t)bc, pc.base_y = (int32_t)by;
        pc.M = (uint32_t)(m1 - m0);
        if (kc_dispatch_1d(kc, n, sh, spec, 1, &pc, sizeof pc, b, 4, (pc.M * (uint64_t)N + KX_WG - 1) / KX_WG) < 0) return -1;
    }
    return 0;
}

const KernelFamily kfam_gemm = {gemm_check, gemm_record, 0};
