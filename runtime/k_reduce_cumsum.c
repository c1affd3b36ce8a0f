/* k_reduce_cumsum.c - kernel family `cumsum` (op family reduce): cumulativeSum along any axis (exclusive, reversed) for
 * float32, float16, int32, uint32, int64, uint64; shader cumsum_axis.comp (one thread per line). */
#include "kx_util.h"

typedef struct {
    uint32_t lines, len, inner, flags;
    int32_t base_x, base_y;
} CumsumPush;

static int cumsum_check(KernelCtx *kc, const Node *n) {
    if (kx_operands(n, 1, 1, 1) < 0) return -1;
    DType dt = n->inputs[0]->dtype;
    int64_t axis = node_int(n, "axis", 0);
    if (axis < 0 || axis >= n->inputs[0]->rank) {
        diag_node_error(n, "axis %lld out of range", (long long)axis);
        return -1;
    }
    if (dtype_bits(dt) < 16 || dt == DT_I8) return kx_no_kernel(n, dt);
    return kcheck_shader(kc, n, "cumsum_axis", dt, dt);
}

static int cumsum_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "cumsum_axis", in[0].dtype, in[0].dtype);
    if (sh < 0) return -1;
    int axis = (int)node_int(n, "axis", 0);
    uint64_t len = (uint64_t)in[0].shape[axis], inner = kshape_numel(in[0].rank - axis - 1, in[0].shape + axis + 1);
    if (in[0].numel > INT32_MAX) {
        diag_node_error(n, "tensor too large");
        return -1;
    }
    CumsumPush pc = {.lines = (uint32_t)(in[0].numel / (len ? len : 1)), .len = (uint32_t)len, .inner = (uint32_t)inner,
                     .flags = (node_bool(n, "exclusive", false) ? 1u : 0u) | (node_bool(n, "reversed", false) ? 2u : 0u)};
    KBind b[2];
    if (kx_bind(kc, n, &in[0], false, &b[0], &pc.base_x) < 0 || kx_bind(kc, n, &out[0], true, &b[1], &pc.base_y) < 0)
        return -1;
    uint32_t spec[1] = {KX_WG};
    return kc_dispatch_1d(kc, n, sh, spec, 1, &pc, sizeof pc, b, 2, (pc.lines + KX_WG - 1) / KX_WG);
}

const KernelFamily kfam_cumsum = {cumsum_check, cumsum_record, 0};
