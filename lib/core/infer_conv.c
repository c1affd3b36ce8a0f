/* infer_conv.c - shape inference for the spatial ops on 4-D tensors: conv2d, convTranspose2d,
 * the 2-D pools (average, l2, max) and resample2d, with the WebNN input/filter layouts and the
 * spec's output size formulas (padding, strides, dilations, groups, rounding, outputSizes).
 * Family conv of ops.def: its op-indexed table is infer_conv_rules. */
#include <inttypes.h>
#include <math.h>

#include "infer_internal.h"

/* Axis positions of a 4-D layout: n/c for inputs, o/i for filters; h, w for both. */
typedef struct {
    const char *name;
    int a, b, h, w; /* input: a = batch, b = channels; filter: a = output, b = input channels */
} Layout;

static const Layout input_layouts[] = {{"nchw", 0, 1, 2, 3}, {"nhwc", 0, 3, 1, 2}, {NULL, 0, 0, 0, 0}};
static const Layout conv_filter_layouts[] = {
    {"oihw", 0, 1, 2, 3}, {"hwio", 3, 2, 0, 1}, {"ohwi", 0, 3, 1, 2}, {"ihwo", 3, 0, 1, 2}, {NULL, 0, 0, 0, 0}};
static const Layout convt_filter_layouts[] = {
    {"iohw", 1, 0, 2, 3}, {"hwoi", 2, 3, 0, 1}, {"ohwi", 0, 3, 1, 2}, {NULL, 0, 0, 0, 0}};

/* Reads a layout option into *out; returns false with a diagnostic if the name is unknown. */
static bool read_layout(const Node *n, const char *key, const Layout *table, const Layout **out) {
    const char *names[8];
    int count = 0;
    while (table[count].name) {
        names[count] = table[count].name;
        count++;
    }
    names[count] = NULL;
    int idx = infer_read_enum(n, key, names);
    if (idx < 0) return false;
    *out = &table[idx];
    return true;
}

typedef struct {
    int64_t pad[4]; /* beginning h, ending h, beginning w, ending w */
    int64_t strides[2], dilations[2];
} Window;

static bool read_window(const Node *n, Window *w) {
    return infer_read_ints(n, "padding", 4, 0, 0, w->pad) && infer_read_ints(n, "strides", 2, 1, 1, w->strides) &&
           infer_read_ints(n, "dilations", 2, 1, 1, w->dilations);
}

/* Spatial dims of operand `slot` (static required) at layout positions h, w. */
static bool spatial(const Node *n, int slot, const Layout *l, int64_t hw[2]) {
    const Value *v = infer_in(n, slot);
    Dim h = v->shape[l->h], w = v->shape[l->w];
    if (!infer_need_static(n, h, "spatial dims") || !infer_need_static(n, w, "spatial dims")) return false;
    hw[0] = h.v;
    hw[1] = w.v;
    return true;
}

/* Size along one spatial axis of a forward window: (in + pads - effective) / stride + 1,
 * rounded down or up; -1 (with a diagnostic) when the dilated window is larger than the input. */
static int64_t window_out(const Node *n, int axis, int64_t in, int64_t k, const Window *w, bool ceil_mode) {
    int64_t span = in + w->pad[2 * axis] + w->pad[2 * axis + 1] - (w->dilations[axis] * (k - 1) + 1);
    if (span < 0) {
        diag_node_error(n, "dilated window %" PRId64 " is larger than the padded input %" PRId64 " along %s",
                        w->dilations[axis] * (k - 1) + 1, in + w->pad[2 * axis] + w->pad[2 * axis + 1],
                        axis ? "width" : "height");
        return -1;
    }
    int64_t s = w->strides[axis];
    return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

/* Output descriptor in the input layout with channel count `channels` and spatial sizes. */
static void spatial_out(const Value *x, const Layout *l, Dim channels, const int64_t hw[2], TensorDesc *d) {
    infer_desc_of(d, x);
    d->shape[l->b] = channels;
    d->shape[l->h] = dim_static(hw[0]);
    d->shape[l->w] = dim_static(hw[1]);
}

/* Shared prologue of conv2d and convTranspose2d; fills the static channel/kernel sizes. */
typedef struct {
    const Layout *in, *filter;
    Window win;
    int64_t groups, in_channels, hw[2], f_out, f_in, k[2];
} ConvSetup;

static bool conv_setup(const Node *n, const Layout *filter_table, ConvSetup *c) {
    const Value *x = infer_in(n, 0), *f = infer_in(n, 1);
    if (!infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_same_dtype(n, 1, 0) || !infer_check_rank(n, 0, 4, 4) ||
        !infer_check_rank(n, 1, 4, 4) || !read_layout(n, "inputLayout", input_layouts, &c->in) ||
        !read_layout(n, "filterLayout", filter_table, &c->filter) || !read_window(n, &c->win))
        return false;
    c->groups = node_int(n, "groups", 1);
    if (c->groups < 1 || c->groups >= INFER_LIMIT) {
        diag_node_error(n, "groups %" PRId64 " must be at least 1", c->groups);
        return false;
    }
    for (int i = 0; i < 4; i++)
        if (!infer_need_static(n, f->shape[i], "filter dims")) return false;
    if (!infer_need_static(n, x->shape[c->in->b], "input channels") || !spatial(n, 0, c->in, c->hw) ||
        !spatial(n, 1, c->filter, c->k))
        return false;
    c->in_channels = x->shape[c->in->b].v;
    c->f_out = f->shape[c->filter->a].v;
    c->f_in = f->shape[c->filter->b].v;
    return true;
}

static int infer_conv2d(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    ConvSetup c;
    if (!conv_setup(n, conv_filter_layouts, &c)) return -1;
    if (c.in_channels != c.f_in * c.groups) {
        diag_node_error(n, "input channels %" PRId64 " != filter input channels %" PRId64 " * groups %" PRId64,
                        c.in_channels, c.f_in, c.groups);
        return -1;
    }
    if (c.f_out % c.groups != 0) {
        diag_node_error(n, "output channels %" PRId64 " are not a multiple of groups %" PRId64, c.f_out, c.groups);
        return -1;
    }
    if (!infer_check_vector(g, n, 2, dim_static(c.f_out), 0)) return -1;
    int64_t hw[2];
    for (int a = 0; a < 2; a++)
        if ((hw[a] = window_out(n, a, c.hw[a], c.k[a], &c.win, false)) < 0) return -1;
    spatial_out(infer_in(n, 0), c.in, dim_static(c.f_out), hw, &out[0]);
    return 1;
}

static int infer_conv_transpose2d(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    ConvSetup c;
    int64_t opad[2], sizes[2];
    if (!conv_setup(n, convt_filter_layouts, &c) || !infer_read_ints(n, "outputPadding", 2, 0, 0, opad)) return -1;
    if (c.in_channels != c.f_in) {
        diag_node_error(n, "input channels %" PRId64 " != filter input channels %" PRId64, c.in_channels, c.f_in);
        return -1;
    }
    int64_t out_channels = c.f_out * c.groups;
    if (!infer_check_vector(g, n, 2, dim_static(out_channels), 0)) return -1;
    bool have_sizes = node_attr(n, "outputSizes") != NULL;
    if (have_sizes && !infer_read_ints(n, "outputSizes", 2, 1, 1, sizes)) return -1;
    int64_t hw[2];
    for (int a = 0; a < 2; a++) {
        int64_t s = c.win.strides[a], d = c.win.dilations[a];
        if (opad[a] >= s) {
            diag_node_error(n, "outputPadding %" PRId64 " must be smaller than the stride %" PRId64, opad[a], s);
            return -1;
        }
        /* (in - 1) * stride + (k - 1) * dilation + 1 - padding; every term < 2^31 */
        int64_t base = (c.hw[a] - 1) * s + (c.k[a] - 1) * d + 1 - c.win.pad[2 * a] - c.win.pad[2 * a + 1];
        if (have_sizes) {
            if (sizes[a] < base || sizes[a] >= base + s) {
                diag_node_error(n, "outputSizes[%d] = %" PRId64 " must be in [%" PRId64 ", %" PRId64 ")", a, sizes[a],
                                base, base + s);
                return -1;
            }
            hw[a] = sizes[a];
        } else {
            hw[a] = base + opad[a];
        }
    }
    spatial_out(infer_in(n, 0), c.in, dim_static(out_channels), hw, &out[0]);
    return 1;
}

static int infer_pool2d(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    static const char *const roundings[] = {"floor", "ceil", NULL};
    const Value *x = infer_in(n, 0);
    const Layout *l;
    Window w;
    int64_t hw[2], win[2], sizes[2];
    int rounding = infer_read_enum(n, "outputShapeRounding", roundings);
    if (rounding < 0 || !infer_check_dtype(n, 0, n->op == OP_MAX_POOL2D ? DTM_WEBNN : DTM_FLOAT) ||
        !infer_check_rank(n, 0, 4, 4) || !read_layout(n, "layout", input_layouts, &l) || !read_window(n, &w) ||
        !spatial(n, 0, l, hw))
        return -1;
    if (!infer_read_ints(n, "windowDimensions", 2, 1, 0, win)) return -1;
    if (!node_attr(n, "windowDimensions")) { /* default: the whole spatial extent */
        win[0] = hw[0];
        win[1] = hw[1];
    }
    bool have_sizes = node_attr(n, "outputSizes") != NULL;
    if (have_sizes && !infer_read_ints(n, "outputSizes", 2, 1, 1, sizes)) return -1;
    int64_t res[2];
    for (int a = 0; a < 2; a++) {
        int64_t lo = window_out(n, a, hw[a], win[a], &w, false);
        if (lo < 0) return -1;
        int64_t hi = window_out(n, a, hw[a], win[a], &w, true);
        if (have_sizes && sizes[a] != lo && sizes[a] != hi) {
            diag_node_error(n, "outputSizes[%d] = %" PRId64 " is neither the floor (%" PRId64 ") nor the ceil (%" PRId64
                            ") output size", a, sizes[a], lo, hi);
            return -1;
        }
        res[a] = have_sizes ? sizes[a] : (rounding ? hi : lo);
    }
    spatial_out(x, l, x->shape[l->b], res, &out[0]);
    return 1;
}

static int infer_resample2d(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    static const char *const modes[] = {"nearest-neighbor", "linear", NULL};
    const Value *x = infer_in(n, 0);
    int64_t axes[2], sizes[2];
    if (infer_read_enum(n, "mode", modes) < 0 ||
        !infer_check_dtype(n, 0, DTM_FLOAT | DTM(U8) | DTM(I8)) || !infer_check_rank(n, 0, 4, 4) ||
        !infer_read_ints(n, "axes", 2, 0, 2, axes))
        return -1;
    if (!node_attr(n, "axes")) axes[1] = 3;
    if (!infer_check_axis(n, "axis", axes[0], 4) || !infer_check_axis(n, "axis", axes[1], 4)) return -1;
    if (axes[0] == axes[1]) {
        diag_node_error(n, "axes repeat axis %" PRId64, axes[0]);
        return -1;
    }
    bool have_sizes = node_attr(n, "sizes") != NULL;
    if (have_sizes && !infer_read_ints(n, "sizes", 2, 1, 1, sizes)) return -1;
    const double *scales = NULL;
    int nscales = node_floats(n, "scales", &scales);
    if (!have_sizes && nscales >= 0 && nscales != 2) {
        diag_node_error(n, "scales has %d entries, expected 2", nscales);
        return -1;
    }
    infer_desc_of(&out[0], x);
    for (int a = 0; a < 2; a++) {
        if (have_sizes) {
            out[0].shape[axes[a]] = dim_static(sizes[a]);
            continue;
        }
        double s = nscales == 2 ? scales[a] : 1.0;
        if (!(s > 0) || !isfinite(s)) {
            diag_node_error(n, "scales[%d] = %g must be positive", a, s);
            return -1;
        }
        Dim d = x->shape[axes[a]];
        if (s == 1.0) continue;
        if (!infer_need_static(n, d, "scaled axes")) return -1;
        double r = floor((double)d.v * s);
        if (r < 1 || r >= (double)INFER_LIMIT) {
            diag_node_error(n, "scaled size %g along axis %" PRId64 " is not a valid dimension", r, axes[a]);
            return -1;
        }
        out[0].shape[axes[a]] = dim_static((int64_t)r);
    }
    return 1;
}

const InferRule infer_conv_rules[OP_COUNT] = {
    [OP_CONV2D] = {infer_conv2d},
    [OP_CONV_TRANSPOSE2D] = {infer_conv_transpose2d},
    [OP_AVERAGE_POOL2D] = {infer_pool2d},
    [OP_L2_POOL2D] = {infer_pool2d},
    [OP_MAX_POOL2D] = {infer_pool2d},
    [OP_RESAMPLE2D] = {infer_resample2d},
};
