/* k_gemm.c - kernel family `gemm`: y = alpha * op(a) x op(b) + beta * c for float32/float16 with
 * aTranspose/bTranspose and c broadcast (0-D, 1-D or 2-D) to [M, N].  Shader gemm_simple.comp. */
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
    KBind b[4];
    if (kx_bind(kc, n, &in[0], false, &b[0], &pc.base_a) < 0 || kx_bind(kc, n, &in[1], false, &b[1], &pc.base_b) < 0 ||
        kx_bind(kc, n, c ? c : &in[0], false, &b[2], &pc.base_c) < 0 || kx_bind(kc, n, &out[0], true, &b[3], &pc.base_y) < 0)
        return -1;
    uint32_t spec[1] = {KX_WG};
    return kc_dispatch_1d(kc, n, sh, spec, 1, &pc, sizeof pc, b, 4, (out[0].numel + KX_WG - 1) / KX_WG);
}

const KernelFamily kfam_gemm = {gemm_check, gemm_record, 0};
