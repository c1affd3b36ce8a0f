/* eval_conv.c - conv2d, convTranspose2d, the 2-D pools and resample2d for the CPU evaluator.
 * Layouts are handled by mapping logical coordinates (n,c,h,w for activations; o,i,h,w for
 * filters) to the physical dimension order named by the layout string.
 * Family conv of ops.def: its op-indexed table is eval_conv_ops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "eval_internal.h"

/* A 4-D tensor viewed in a logical dimension order: dim[k] is the size of logical dim k and
 * stride[k] its physical stride. */
typedef struct {
    int64_t dim[4], stride[4];
} View4;

/* Builds a view of t whose physical order is `layout` (e.g. "nhwc") over logical order `logical`
 * (e.g. "nchw"); -1 if the layout is not a permutation of the logical letters. */
static int view4(const Ten *t, const char *layout, const char *logical, View4 *v) {
    int64_t st[WN_MAX_RANK];
    if (t->rank != 4 || strlen(layout) != 4) return -1;
    ten_strides(t, st);
    for (int k = 0; k < 4; k++) {
        const char *p = strchr(layout, logical[k]);
        if (!p) return -1;
        int pos = (int)(p - layout);
        v->dim[k] = t->shape[pos];
        v->stride[k] = st[pos];
    }
    return 0;
}

static int64_t at4(const View4 *v, int64_t a, int64_t b, int64_t c, int64_t d) {
    return a * v->stride[0] + b * v->stride[1] + c * v->stride[2] + d * v->stride[3];
}

/* The 2-D window options shared by convolutions and pools. */
typedef struct {
    int64_t pad[4], stride[2], dil[2];
} Window;

static int window_opts(const Node *n, Window *w) {
    int64_t tmp[4];
    int c = eval_attr_ints(n, "padding", tmp, 4);
    if (c == -1) memset(w->pad, 0, sizeof w->pad);
    else if (c == 4) memcpy(w->pad, tmp, sizeof w->pad);
    else return eval_fail(n, "padding needs 4 values");
    c = eval_attr_ints(n, "strides", tmp, 2);
    if (c == -1) w->stride[0] = w->stride[1] = 1;
    else if (c == 2) memcpy(w->stride, tmp, sizeof w->stride);
    else return eval_fail(n, "strides needs 2 values");
    c = eval_attr_ints(n, "dilations", tmp, 2);
    if (c == -1) w->dil[0] = w->dil[1] = 1;
    else if (c == 2) memcpy(w->dil, tmp, sizeof w->dil);
    else return eval_fail(n, "dilations needs 2 values");
    for (int k = 0; k < 2; k++)
        if (w->stride[k] < 1 || w->dil[k] < 1 || w->stride[k] > INT32_MAX || w->dil[k] > INT32_MAX)
            return eval_fail(n, "strides and dilations must be in [1, 2^31)");
    for (int k = 0; k < 4; k++)
        if (w->pad[k] < 0 || w->pad[k] > INT32_MAX) return eval_fail(n, "padding must be in [0, 2^31)");
    return 0;
}

static int conv2d(const Node *n, const Ten *x, const Ten *f, const Ten *bias, Ten *o, bool transposed) {
    Window w;
    View4 vx, vf, vo;
    if (window_opts(n, &w) < 0) return -1;
    const char *il = node_str(n, "inputLayout", "nchw");
    const char *fl = node_str(n, "filterLayout", transposed ? "iohw" : "oihw");
    if (view4(x, il, "nchw", &vx) || view4(o, il, "nchw", &vo) || view4(f, fl, "oihw", &vf))
        return eval_fail(n, "unsupported layout or rank");
    int64_t groups = node_int(n, "groups", 1);
    int64_t N = vx.dim[0], Cin = vx.dim[1], H = vx.dim[2], W = vx.dim[3];
    int64_t Cout = vo.dim[1], OH = vo.dim[2], OW = vo.dim[3], KH = vf.dim[2], KW = vf.dim[3];
    if (groups < 1 || Cin % groups || Cout % groups || vo.dim[0] != N) return eval_fail(n, "bad groups or batch");
    int64_t cin_g = Cin / groups, cout_g = Cout / groups;
    if (transposed ? (vf.dim[1] != Cin || vf.dim[0] != cout_g) : (vf.dim[1] != cin_g || vf.dim[0] != Cout))
        return eval_fail(n, "filter shape does not match the channels");
    if (bias && bias->count != Cout) return eval_fail(n, "bias must have one value per output channel");
    /* One walk for both: pixels `a` of the strided side (the output of a convolution, the input
     * of a transposed one) meet pixels b = a*stride - pad + k*dilation of the other side. */
    double *acc = calloc((size_t)o->count, sizeof *acc);
    if (!acc) return eval_fail(n, "out of memory");
    int64_t AH = transposed ? H : OH, AW = transposed ? W : OW, BH = transposed ? OH : H, BW = transposed ? OW : W;
    for (int64_t b = 0; b < N; b++)
        for (int64_t co = 0; co < Cout; co++)
            for (int64_t cil = 0; cil < cin_g; cil++) {
                int64_t grp = co / cout_g, ci = grp * cin_g + cil;
                for (int64_t ah = 0; ah < AH; ah++)
                    for (int64_t aw = 0; aw < AW; aw++)
                        for (int64_t kh = 0; kh < KH; kh++) {
                            int64_t bh = ah * w.stride[0] - w.pad[0] + kh * w.dil[0];
                            if (bh < 0 || bh >= BH) continue;
                            for (int64_t kw = 0; kw < KW; kw++) {
                                int64_t bw = aw * w.stride[1] - w.pad[2] + kw * w.dil[1];
                                if (bw < 0 || bw >= BW) continue;
                                double fv = transposed ? ten_getf(f, at4(&vf, co % cout_g, ci, kh, kw))
                                                       : ten_getf(f, at4(&vf, co, cil, kh, kw));
                                int64_t xi = transposed ? at4(&vx, b, ci, ah, aw) : at4(&vx, b, ci, bh, bw);
                                int64_t oi = transposed ? at4(&vo, b, co, bh, bw) : at4(&vo, b, co, ah, aw);
                                acc[oi] += ten_getf(x, xi) * fv;
                            }
                        }
            }
    for (int64_t b = 0; b < N; b++)
        for (int64_t co = 0; co < Cout; co++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t oi = at4(&vo, b, co, oh, ow);
                    ten_setf(o, oi, acc[oi] + (bias ? ten_getf(bias, co) : 0));
                }
    free(acc);
    return 0;
}

static int pool2d(const Node *n, const Ten *x, Ten *o) {
    Window w;
    View4 vx, vo;
    if (window_opts(n, &w) < 0) return -1;
    const char *layout = node_str(n, "layout", "nchw");
    if (view4(x, layout, "nchw", &vx) || view4(o, layout, "nchw", &vo)) return eval_fail(n, "unsupported layout or rank");
    if (vx.dim[0] != vo.dim[0] || vx.dim[1] != vo.dim[1]) return eval_fail(n, "pool changes batch or channels");
    int64_t win[2] = {vx.dim[2], vx.dim[3]};
    int c = eval_attr_ints(n, "windowDimensions", win, 2);
    if (c != -1 && c != 2) return eval_fail(n, "windowDimensions needs 2 values");
    for (int k = 0; k < 2; k++) { /* the dilated window must fit in the padded input */
        int64_t padded = vx.dim[2 + k] + w.pad[2 * k] + w.pad[2 * k + 1];
        if (win[k] < 1 || win[k] > padded || (win[k] - 1) > (padded - 1) / w.dil[k])
            return eval_fail(n, "window does not fit in the padded input");
    }
    for (int64_t b = 0; b < vo.dim[0]; b++)
        for (int64_t ch = 0; ch < vo.dim[1]; ch++)
            for (int64_t oh = 0; oh < vo.dim[2]; oh++)
                for (int64_t ow = 0; ow < vo.dim[3]; ow++) {
                    double s = 0;
                    int64_t cnt = 0, best = -1;
                    for (int64_t kh = 0; kh < win[0]; kh++) {
                        int64_t h = oh * w.stride[0] - w.pad[0] + kh * w.dil[0];
                        if (h < 0 || h >= vx.dim[2]) continue;
                        for (int64_t kw = 0; kw < win[1]; kw++) {
                            int64_t x_ = ow * w.stride[1] - w.pad[2] + kw * w.dil[1];
                            if (x_ < 0 || x_ >= vx.dim[3]) continue;
                            int64_t xi = at4(&vx, b, ch, h, x_);
                            double v = ten_getf(x, xi);
                            if (n->op == OP_MAX_POOL2D) {
                                if (best < 0 || v > ten_getf(x, best)) best = xi;
                            } else {
                                s += n->op == OP_L2_POOL2D ? v * v : v;
                            }
                            cnt++;
                        }
                    }
                    int64_t oi = at4(&vo, b, ch, oh, ow);
                    if (n->op == OP_MAX_POOL2D) {
                        if (best >= 0) ten_copy_elem(o, oi, x, best);
                        else ten_setf(o, oi, -INFINITY);
                    } else {
                        ten_setf(o, oi, n->op == OP_L2_POOL2D ? sqrt(s) : cnt ? s / (double)cnt : 0);
                    }
                }
    return 0;
}

/* resample2d over two axes with half-pixel centers: nearest picks floor of the mapped center,
 * linear interpolates between the two neighbours (clamped at the edges). */
static int resample2d(const Node *n, const Ten *x, Ten *o) {
    int64_t axes[2] = {2, 3};
    double scales[2] = {0, 0};
    int c = eval_attr_ints(n, "axes", axes, 2);
    if (c != -1 && c != 2) return eval_fail(n, "axes needs 2 values");
    if (x->rank != 4 || o->rank != 4) return eval_fail(n, "resample2d needs 4-D tensors");
    for (int k = 0; k < 2; k++)
        if (axes[k] < 0 || axes[k] > 3 || (k && axes[0] == axes[1])) return eval_fail(n, "bad axes");
    for (int d = 0; d < 4; d++)
        if (d != axes[0] && d != axes[1] && x->shape[d] != o->shape[d]) return eval_fail(n, "shape mismatch");
    const double *fs;
    bool have_sizes = node_attr(n, "sizes") != NULL;
    if (!have_sizes && node_floats(n, "scales", &fs) == 2) {
        scales[0] = fs[0];
        scales[1] = fs[1];
    }
    for (int k = 0; k < 2; k++)
        if (!(scales[k] > 0)) scales[k] = (double)o->shape[axes[k]] / (double)x->shape[axes[k]];
    bool linear = strcmp(node_str(n, "mode", "nearest-neighbor"), "linear") == 0;
    int64_t xs[4], cc[4], ic[4];
    ten_strides(x, xs);
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, 4, o->shape, cc);
        int64_t lo[2], hi[2];
        double t[2];
        for (int k = 0; k < 2; k++) {
            int64_t len = x->shape[axes[k]];
            double src = ((double)cc[axes[k]] + 0.5) / scales[k] - 0.5;
            if (!linear) {
                int64_t s = (int64_t)floor(src + 0.5);
                lo[k] = hi[k] = s < 0 ? 0 : s >= len ? len - 1 : s;
                t[k] = 0;
                continue;
            }
            if (src < 0) src = 0;
            if (src > (double)(len - 1)) src = (double)(len - 1);
            lo[k] = (int64_t)floor(src);
            hi[k] = lo[k] + 1 < len ? lo[k] + 1 : lo[k];
            t[k] = src - (double)lo[k];
        }
        double v = 0;
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                double wgt = (a ? t[0] : 1 - t[0]) * (b ? t[1] : 1 - t[1]);
                if (wgt == 0) continue;
                memcpy(ic, cc, sizeof ic);
                ic[axes[0]] = a ? hi[0] : lo[0];
                ic[axes[1]] = b ? hi[1] : lo[1];
                v += wgt * ten_getf(x, ten_dot_strides(4, ic, xs));
            }
        ten_setf(o, i, v);
    }
    return 0;
}

/* Operand 0 is present and the single output has its dtype (every op of the family needs it). */
static bool spatial_operand(const Node *n, const Ten *in, const Ten *out) {
    return n->n_inputs >= 1 && n->n_outputs == 1 && in[0].data && in[0].dt == out[0].dt;
}

/* conv2d and convTranspose2d (float, with a constant filter). */
static int eval_conv2d(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (!spatial_operand(n, in, out) || n->n_inputs < 2 || !in[1].data || !dtype_is_float(in[0].dt)) return 1;
    return conv2d(n, &in[0], &in[1], n->n_inputs > 2 && in[2].data ? &in[2] : NULL, &out[0],
                  n->op == OP_CONV_TRANSPOSE2D);
}

static int eval_pool2d(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    return spatial_operand(n, in, out) ? pool2d(n, &in[0], &out[0]) : 1;
}

static int eval_resample2d(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    return spatial_operand(n, in, out) ? resample2d(n, &in[0], &out[0]) : 1;
}

const EvalOp eval_conv_ops[OP_COUNT] = {
    [OP_CONV2D] = {eval_conv2d},
    [OP_CONV_TRANSPOSE2D] = {eval_conv2d},
    [OP_AVERAGE_POOL2D] = {eval_pool2d},
    [OP_L2_POOL2D] = {eval_pool2d},
    [OP_MAX_POOL2D] = {eval_pool2d},
    [OP_RESAMPLE2D] = {eval_resample2d},
};
