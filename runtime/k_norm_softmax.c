/* k_norm_softmax.c - kernel family `softmax` (op family norm): softmax along one axis
 * (softmax.comp, one workgroup per row; rows split over binding windows by kx_axis_record). */
#include "kx_util.h"

static int softmax_check(KernelCtx *kc, const Node *n) {
    int axis;
    if (kx_one_in_one_out(n) < 0 || kx_axis_of(n, n->inputs[0]->rank, &axis) < 0) return -1;
    return kcheck_shader(kc, n, "softmax", n->inputs[0]->dtype, n->inputs[0]->dtype);
}

static int softmax_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "softmax", in[0].dtype, in[0].dtype);
    uint32_t spec[1] = {KX_WG};
    return sh < 0 ? -1 : kx_axis_record(kc, n, &in[0], &out[0], sh, spec, 1);
}

const KernelFamily kfam_softmax = {softmax_check, softmax_record, 0};
