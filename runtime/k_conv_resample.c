/* k_conv_resample.c - kernel family `resample` (op family conv): resample2d (nearest-neighbor, linear) over any two
 * axes of a 4-D tensor, float32/float16/int8/uint8, with scales or sizes (the output shape comes
 * from shape inference; given scales are used for the coordinate mapping, else out/in).  Shader
 * resample_2d.comp. */
#include <string.h>

#include "kx_util.h"

typedef struct {
    uint32_t n, ax0, ax1, pad0;
    uint32_t oshape[4];
    int32_t xst[4];
    uint32_t len0, len1;
    float scale0, scale1;
    int32_t base_x, base_y;
} ResamplePush;
_Static_assert(sizeof(ResamplePush) <= K_PUSH_MAX, "resample push constants");

static int resample_axes(const Node *n, int64_t *axes) {
    axes[0] = 2;
    axes[1] = 3;
    if (kx_ints(n, "axes", axes, 2, 2) == -2) return -1;
    if (axes[0] < 0 || axes[0] > 3 || axes[1] < 0 || axes[1] > 3 || axes[0] == axes[1]) {
        diag_node_error(n, "axes must be two distinct dims of the 4-D input");
        return -1;
    }
    return 0;
}

static bool linear_mode(const Node *n) { return strcmp(node_str(n, "mode", "nearest-neighbor"), "linear") == 0; }

static int resample_check(KernelCtx *kc, const Node *n) {
    if (kx_operands(n, 1, 1, 1) < 0) return -1;
    DType dt = n->inputs[0]->dtype;
    int64_t axes[2];
    const char *mode = node_str(n, "mode", "nearest-neighbor");
    if (n->inputs[0]->rank != 4 || resample_axes(n, axes) < 0 || (strcmp(mode, "linear") && strcmp(mode, "nearest-neighbor"))) {
        if (!diag_has_error()) diag_node_error(n, "needs a 4-D input and mode linear or nearest-neighbor");
        return -1;
    }
    return kcheck_shader(kc, n, "resample_2d", dt, dt);
}

static int resample_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "resample_2d", in[0].dtype, in[0].dtype);
    if (sh < 0) return -1;
    int64_t axes[2], xst[4];
    if (resample_axes(n, axes) < 0) return -1;
    if (in[0].numel > INT32_MAX || out[0].numel > INT32_MAX) {
        diag_node_error(n, "tensor too large");
        return -1;
    }
    kshape_strides(4, in[0].shape, xst);
    ResamplePush pc = {.n = (uint32_t)out[0].numel, .ax0 = (uint32_t)axes[0], .ax1 = (uint32_t)axes[1],
                       .len0 = (uint32_t)in[0].shape[axes[0]], .len1 = (uint32_t)in[0].shape[axes[1]]};
    for (int d = 0; d < 4; d++) {
        pc.oshape[d] = (uint32_t)out[0].shape[d];
        pc.xst[d] = (int32_t)xst[d];
    }
    const double *fs;
    double sc[2] = {0, 0};
    if (!node_attr(n, "sizes") && node_floats(n, "scales", &fs) == 2) {
        sc[0] = fs[0];
        sc[1] = fs[1];
    }
    for (int k = 0; k < 2; k++)
        if (!(sc[k] > 0)) sc[k] = (double)out[0].shape[axes[k]] / (double)in[0].shape[axes[k]];
    pc.scale0 = (float)sc[0];
    pc.scale1 = (float)sc[1];
    KBind b[2];
    if (kx_bind(kc, n, &in[0], false, &b[0], &pc.base_x) < 0 || kx_bind(kc, n, &out[0], true, &b[1], &pc.base_y) < 0)
        return -1;
    uint32_t spec[2] = {KX_WG, linear_mode(n) ? 1u : 0u};
    return kc_dispatch_1d(kc, n, sh, spec, 2, &pc, sizeof pc, b, 2, (pc.n + KX_WG - 1) / KX_WG);
}

const KernelFamily kfam_resample = {resample_check, resample_record, 0};
