/* k_conv.c - kernel family `conv`: conv2d and convTranspose2d for every WebNN input layout
 * (nchw, nhwc) and filter layout (oihw, hwio, ohwi, ihwo; iohw, hwoi, ohwi), groups (incl.
 * depthwise), dilations, padding, strides and bias.  Output sizes (outputPadding, outputSizes)
 * come from shape inference; the shader conv_direct.comp computes one output element per thread. */
#include <string.h>

#include "kx_util.h"

typedef struct {
    uint32_t total, nhwc, has_bias, groups;
    uint32_t C, H, W, OC;
    uint32_t OH, OW, KH, KW;
    uint32_t sh, sw, dh, dw;
    int32_t pt, pl;
    uint32_t fs_o, fs_i, fs_h, fs_w;
    int32_t base_x, base_f, base_b, base_y;
} ConvPush;
_Static_assert(sizeof(ConvPush) <= K_PUSH_MAX, "conv push constants");

static const char *input_layout(const Node *n) { return node_str(n, "inputLayout", "nchw"); }
static const char *filter_layout(const Node *n) {
    return node_str(n, "filterLayout", n->op == OP_CONV_TRANSPOSE2D ? "iohw" : "oihw");
}

static int conv_check(KernelCtx *kc, const Node *n) {
    if (kx_operands(n, 2, 3, 1) < 0) return -1;
    DType dt = n->inputs[0]->dtype;
    if (kx_float_only(n, dt) < 0) return -1;
    const char *il = input_layout(n);
    if (strcmp(il, "nchw") && strcmp(il, "nhwc")) {
        diag_node_error(n, "unsupported inputLayout \"%s\"", il);
        return -1;
    }
    int64_t shape[4] = {1, 1, 1, 1}, dim[4], st[4];
    if (n->inputs[1]->rank != 4 || n->inputs[0]->rank != 4 || kx_view4(shape, filter_layout(n), "oihw", dim, st) < 0) {
        diag_node_error(n, "unsupported filterLayout \"%s\" or rank", filter_layout(n));
        return -1;
    }
    int64_t v[4];
    if (kx_ints(n, "padding", v, 4, 4) == -2 || kx_ints(n, "strides", v, 2, 2) == -2 ||
        kx_ints(n, "dilations", v, 2, 2) == -2)
        return -1;
    return kcheck_shader(kc, n, "conv_direct", dt, dt);
}

static bool fits_u32(int64_t v) { return v >= 0 && v <= INT32_MAX; }

static int conv_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    bool tr = n->op == OP_CONV_TRANSPOSE2D;
    int sh = kc_find_shader(kc, n, "conv_direct", in[0].dtype, in[0].dtype);
    if (sh < 0) return -1;
    int64_t xd[4], xs[4], od[4], os[4], fd[4], fs[4];
    const char *il = input_layout(n);
    if (kx_view4(in[0].shape, il, "nchw", xd, xs) < 0 || kx_view4(out[0].shape, il, "nchw", od, os) < 0 ||
        kx_view4(in[1].shape, filter_layout(n), "oihw", fd, fs) < 0) {
        diag_node_error(n, "unsupported layout");
        return -1;
    }
    int64_t pad[4] = {0, 0, 0, 0}, strides[2] = {1, 1}, dil[2] = {1, 1};
    kx_ints(n, "padding", pad, 4, 4);
    kx_ints(n, "strides", strides, 2, 2);
    kx_ints(n, "dilations", dil, 2, 2);
    int64_t groups = node_int(n, "groups", 1);
    int64_t C = xd[1], OC = od[1];
    if (groups < 1 || C % groups || OC % groups || od[0] != xd[0] ||
        (tr ? (fd[1] != C || fd[0] != OC / groups) : (fd[1] != C / groups || fd[0] != OC))) {
        diag_node_error(n, "filter shape does not match the channels and groups");
        return -1;
    }
    const KTensor *bias = n->n_inputs > 2 && n->inputs[2] ? &in[2] : NULL;
    if (bias && (int64_t)bias->numel != OC) {
        diag_node_error(n, "bias must have one value per output channel");
        return -1;
    }
    for (int k = 0; k < 2; k++)
        if (strides[k] < 1 || dil[k] < 1 || !fits_u32(strides[k]) || !fits_u32(dil[k]) || pad[2 * k] < -INT32_MAX ||
            pad[2 * k] > INT32_MAX) {
            diag_node_error(n, "strides/dilations must be >= 1 and padding within int32");
            return -1;
        }
    if (out[0].numel > INT32_MAX || in[0].numel > INT32_MAX || in[1].numel > INT32_MAX) {
        diag_node_error(n, "tensor too large for the conv kernel");
        return -1;
    }
    ConvPush pc = {
        .total = (uint32_t)out[0].numel, .nhwc = strcmp(il, "nhwc") == 0, .has_bias = bias != NULL,
        .groups = (uint32_t)groups, .C = (uint32_t)C, .H = (uint32_t)xd[2], .W = (uint32_t)xd[3], .OC = (uint32_t)OC,
        .OH = (uint32_t)od[2], .OW = (uint32_t)od[3], .KH = (uint32_t)fd[2], .KW = (uint32_t)fd[3],
        .sh = (uint32_t)strides[0], .sw = (uint32_t)strides[1], .dh = (uint32_t)dil[0], .dw = (uint32_t)dil[1],
        .pt = (int32_t)pad[0], .pl = (int32_t)pad[2],
        .fs_o = (uint32_t)fs[0], .fs_i = (uint32_t)fs[1], .fs_h = (uint32_t)fs[2], .fs_w = (uint32_t)fs[3]};
    KBind b[4];
    if (kx_bind(kc, n, &in[0], false, &b[0], &pc.base_x) < 0 || kx_bind(kc, n, &in[1], false, &b[1], &pc.base_f) < 0 ||
        kx_bind(kc, n, bias ? bias : &in[0], false, &b[2], &pc.base_b) < 0 ||
        kx_bind(kc, n, &out[0], true, &b[3], &pc.base_y) < 0)
        return -1;
    uint32_t spec[2] = {KX_WG, tr ? 1u : 0u};
    return kc_dispatch_1d(kc, n, sh, spec, 2, &pc, sizeof pc, b, 4, (out[0].numel + KX_WG - 1) / KX_WG);
}

const KernelFamily kfam_conv = {conv_check, conv_record, 0};
