/* k_shape_triangular.c - kernel family `triangular` (op family shape): keeps the upper or lower triangle (relative to
 * `diagonal`) of the matrices in the last two dims, zeroing the rest; every dtype (moved by
 * element size).  Shader triangular_mask.comp. */
#include "kx_util.h"

typedef struct {
    uint32_t n, rows, cols, upper;
    int32_t diag;
    int32_t base_x, base_y;
} TriPush;

static int tri_check(KernelCtx *kc, const Node *n) {
    if (kx_operands(n, 1, 1, 1) < 0) return -1;
    DType dt = n->inputs[0]->dtype;
    if (n->inputs[0]->rank < 2) {
        diag_node_error(n, "triangular needs rank >= 2");
        return -1;
    }
    if (kx_size_class(dt) == DT_INVALID) return kx_no_kernel(n, dt);
    return kcheck_shader(kc, n, "triangular_mask", kx_size_class(dt), kx_size_class(dt));
}

static int tri_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    DType c = kx_size_class(in[0].dtype);
    int sh = kc_find_shader(kc, n, "triangular_mask", c, c);
    if (sh < 0) return -1;
    int64_t diag = node_int(n, "diagonal", 0);
    if (in[0].numel > INT32_MAX) {
        diag_node_error(n, "tensor too large");
        return -1;
    }
    /* |diagonal| beyond the matrix size behaves like the matrix size (all or nothing kept) */
    int64_t lim = (int64_t)in[0].numel + 1;
    if (diag > lim) diag = lim;
    if (diag < -lim) diag = -lim;
    TriPush pc = {.n = (uint32_t)in[0].numel, .rows = (uint32_t)in[0].shape[in[0].rank - 2],
                  .cols = (uint32_t)in[0].shape[in[0].rank - 1], .upper = node_bool(n, "upper", true) ? 1u : 0u,
                  .diag = (int32_t)diag};
    KBind b[2];
    if (kx_bind(kc, n, &in[0], false, &b[0], &pc.base_x) < 0 || kx_bind(kc, n, &out[0], true, &b[1], &pc.base_y) < 0)
        return -1;
    uint32_t spec[1] = {KX_WG};
    return kc_dispatch_1d(kc, n, sh, spec, 1, &pc, sizeof pc, b, 2, (pc.n + KX_WG - 1) / KX_WG);
}

const KernelFamily kfam_triangular = {tri_check, tri_record, 0};
