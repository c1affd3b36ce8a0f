/* k_conv_pool.c - kernel family `pool` (op family conv): averagePool2d, l2Pool2d (float32/float16) and maxPool2d (every
 * dtype with a shader) over nchw/nhwc, with window dimensions (default: the whole spatial extent),
 * padding, strides and dilations.  Output sizes (outputShapeRounding, outputSizes) come from shape
 * inference.  Shader: pool_2d.comp, one output element per thread. */
#include <string.h>

#include "kx_util.h"

typedef struct {
    uint32_t total, nhwc, C, H;
    uint32_t W, OH, OW, KH;
    uint32_t KW, sh, sw, dh;
    uint32_t dw;
    int32_t pt, pl;
    int32_t base_x, base_y;
} PoolPush;
_Static_assert(sizeof(PoolPush) <= K_PUSH_MAX, "pool push constants");

static uint32_t pool_kind(OpId op) { return op == OP_MAX_POOL2D ? 2u : op == OP_L2_POOL2D ? 1u : 0u; }

static int pool_check(KernelCtx *kc, const Node *n) {
    if (kx_operands(n, 1, 1, 1) < 0) return -1;
    DType dt = n->inputs[0]->dtype;
    if (n->op != OP_MAX_POOL2D && kx_float_only(n, dt) < 0) return -1;
    const char *l = node_str(n, "layout", "nchw");
    if ((strcmp(l, "nchw") && strcmp(l, "nhwc")) || n->inputs[0]->rank != 4) {
        diag_node_error(n, "unsupported layout \"%s\" or rank", l);
        return -1;
    }
    int64_t v[4];
    if (kx_ints(n, "padding", v, 4, 4) == -2 || kx_ints(n, "strides", v, 2, 2) == -2 ||
        kx_ints(n, "dilations", v, 2, 2) == -2 || kx_ints(n, "windowDimensions", v, 2, 2) == -2)
        return -1;
    return kcheck_shader(kc, n, "pool_2d", dt, dt);
}

static int pool_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "pool_2d", in[0].dtype, in[0].dtype);
    if (sh < 0) return -1;
    const char *l = node_str(n, "layout", "nchw");
    int64_t xd[4], xs[4], od[4], os[4];
    if (kx_view4(in[0].shape, l, "nchw", xd, xs) < 0 || kx_view4(out[0].shape, l, "nchw", od, os) < 0) {
        diag_node_error(n, "unsupported layout");
        return -1;
    }
    int64_t pad[4] = {0, 0, 0, 0}, strides[2] = {1, 1}, dil[2] = {1, 1}, win[2] = {xd[2], xd[3]};
    kx_ints(n, "padding", pad, 4, 4);
    kx_ints(n, "strides", strides, 2, 2);
    kx_ints(n, "dilations", dil, 2, 2);
    kx_ints(n, "windowDimensions", win, 2, 2);
    for (int k = 0; k < 2; k++)
        if (strides[k] < 1 || dil[k] < 1 || win[k] < 1 || strides[k] > INT32_MAX || dil[k] > INT32_MAX ||
            win[k] > INT32_MAX || pad[2 * k] < -INT32_MAX || pad[2 * k] > INT32_MAX) {
            diag_node_error(n, "window, strides and dilations must be >= 1 and padding within int32");
            return -1;
        }
    if (od[0] != xd[0] || od[1] != xd[1] || in[0].numel > INT32_MAX) {
        diag_node_error(n, "pooling must keep batch and channels");
        return -1;
    }
    PoolPush pc = {.total = (uint32_t)out[0].numel, .nhwc = strcmp(l, "nhwc") == 0, .C = (uint32_t)xd[1],
                   .H = (uint32_t)xd[2], .W = (uint32_t)xd[3], .OH = (uint32_t)od[2], .OW = (uint32_t)od[3],
                   .KH = (uint32_t)win[0], .KW = (uint32_t)win[1], .sh = (uint32_t)strides[0],
                   .sw = (uint32_t)strides[1], .dh = (uint32_t)dil[0], .dw = (uint32_t)dil[1],
                   .pt = (int32_t)pad[0], .pl = (int32_t)pad[2]};
    KBind b[2];
    if (kx_bind(kc, n, &in[0], false, &b[0], &pc.base_x) < 0 || kx_bind(kc, n, &out[0], true, &b[1], &pc.base_y) < 0)
        return -1;
    uint32_t spec[2] = {KX_WG, pool_kind(n->op)};
    return kc_dispatch_1d(kc, n, sh, spec, 2, &pc, sizeof pc, b, 2, (out[0].numel + KX_WG - 1) / KX_WG);
}

const KernelFamily kfam_pool = {pool_check, pool_record, 0};
