/* k_norm_softmax.c - kernel family `softmax` (op family norm): softmax along one axis
 * (softmax.comp, one workgroup per row; rows split over binding windows by kx_axis_record). */
#include "kx_util.h"

static int softmax_check(KernelCtx *kc, const Node *n) { return kx_axis_check(kc, n, "softmax"); }

static int softmax_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "softmax", in[0].dtype, in[0].dtype);
    uint32_t spec[1] = {KX_WG};
    return sh < 0 ? -1 : kx_axis_record(kc, n, &in[0], &out[0], sh, spec, 1);
}

const KernelFamily kfam_softmax = {softmax_check, softmax_record, 0};
