/* ops_conv.c - ONNX Conv, ConvTranspose, MaxPool, AveragePool (1-D and 2-D; 1-D via reshape to
 * 2-D with height 1), auto_pad SAME_UPPER/SAME_LOWER/VALID, ceil_mode, count_include_pad (explicit
 * pad then pool), and GlobalAveragePool/GlobalMaxPool as reductions over the spatial axes. */
#include <string.h>

#include "import_internal.h"

/* Window parameters in WebNN form (always 2-D). */
typedef struct {
    int sp; /* ONNX spatial dims: 1 or 2 */
    int64_t kernel[2], strides[2], dil[2], out_pad[2];
    int64_t pads[4]; /* [beginH, endH, beginW, endW] */
    bool has_out_shape;
    int64_t out_shape[2];
} Window;

/* Reads an ints attribute of exactly n entries (default `def` each when absent). */
static int ints_n(OnnxCtx *c, const char *name, int n, int64_t def, int64_t *out) {
    int k = onnx_attr_ints(c, name, out, n);
    if (k < 0) {
        if (onnx_attr_find(c, name)) return -1;
        for (int i = 0; i < n; i++) out[i] = def;
        return 0;
    }
    return k == n ? 0 : onnx_imp_error(c, "attribute '%s' has %d entries, expected %d", name, k, n);
}

/* Fills w from the node's attributes; `kernel_from` gives the kernel when kernel_shape is absent. */
static int read_window(OnnxCtx *c, const Value *x, const int64_t *kernel_from, bool transpose, Window *w) {
    memset(w, 0, sizeof *w);
    if (x->rank != 3 && x->rank != 4) return onnx_imp_error(c, "only 1-D and 2-D %s are supported (input rank %d)", c->node->op_type, x->rank);
    int sp = w->sp = x->rank - 2;
    int64_t k[2], s[2], d[2], p[4], op[2];
    const Onnx__AttributeProto *ks = onnx_attr_find(c, "kernel_shape");
    if (ks) {
        if (ints_n(c, "kernel_shape", sp, 1, k) < 0) return -1;
    } else if (kernel_from) {
        memcpy(k, kernel_from, sizeof k[0] * (size_t)sp);
    } else {
        return onnx_imp_error(c, "missing attribute 'kernel_shape'");
    }
    if (ints_n(c, "strides", sp, 1, s) < 0 || ints_n(c, "dilations", sp, 1, d) < 0 || ints_n(c, "pads", 2 * sp, 0, p) < 0 ||
        ints_n(c, "output_padding", sp, 0, op) < 0)
        return -1;
    if (onnx_attr_find(c, "output_shape")) {
        if (ints_n(c, "output_shape", sp, 1, w->out_shape) < 0) return -1;
        w->has_out_shape = true;
    }
    for (int i = 0; i < sp; i++) {
        if (k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || k[i] > INT32_MAX || s[i] > INT32_MAX || d[i] > INT32_MAX)
            return onnx_imp_error(c, "kernel, strides and dilations must be positive");
        if (p[i] < 0 || p[i + sp] < 0 || p[i] > INT32_MAX || p[i + sp] > INT32_MAX) return onnx_imp_error(c, "pads must be non-negative");
        if (op[i] < 0 || op[i] > INT32_MAX) return onnx_imp_error(c, "output_padding must be non-negative");
    }
    const char *auto_pad = onnx_attr_string(c, "auto_pad", "NOTSET");
    bool upper = !strcmp(auto_pad, "SAME_UPPER"), lower = !strcmp(auto_pad, "SAME_LOWER");
    if (!strcmp(auto_pad, "VALID")) {
        memset(p, 0, sizeof p);
    } else if (upper || lower) {
        for (int i = 0; i < sp; i++) {
            Dim in = x->shape[2 + i];
            if (!dim_is_static(in)) return onnx_imp_error(c, "auto_pad needs static spatial dimensions");
            int64_t ext = (k[i] - 1) * d[i] + 1, total;
            if (transpose) {
                int64_t out = w->has_out_shape ? w->out_shape[i] : in.v * s[i];
                total = s[i] * (in.v - 1) + op[i] + ext - out;
            } else {
                int64_t out = (in.v + s[i] - 1) / s[i];
                total = (out - 1) * s[i] + ext - in.v;
            }
            if (total < 0) total = 0;
            /* SAME_UPPER puts the extra padding at the end (for ConvTranspose too, per ONNX). */
            p[i] = upper ? total / 2 : total - total / 2;
            p[i + sp] = total - p[i];
        }
    } else if (strcmp(auto_pad, "NOTSET") != 0) {
        return onnx_imp_error(c, "unknown auto_pad '%s'", auto_pad);
    }
    /* To 2-D: a 1-D window gets height 1. */
    int off = 2 - sp;
    for (int i = 0; i < 2; i++) {
        w->kernel[i] = w->strides[i] = w->dil[i] = 1;
        w->out_pad[i] = 0;
    }
    for (int i = 0; i < sp; i++) {
        w->kernel[off + i] = k[i];
        w->strides[off + i] = s[i];
        w->dil[off + i] = d[i];
        w->out_pad[off + i] = op[i];
        w->pads[2 * (off + i)] = p[i];
        w->pads[2 * (off + i) + 1] = p[i + sp];
    }
    if (w->has_out_shape && sp == 1) {
        w->out_shape[1] = w->out_shape[0];
        w->out_shape[0] = 1;
    }
    return 0;
}

/* [N, C, W] -> [N, C, 1, W]; 4-D tensors unchanged. */
static Value *to_2d(OnnxCtx *c, Value *x) {
    if (!x || x->rank != 3) return x;
    return onnx_emit_reshape(c, x, 4, (Dim[]){x->shape[0], x->shape[1], dim_static(1), x->shape[2]});
}

/* Undoes to_2d on the result. */
static Value *from_2d(OnnxCtx *c, Value *y, int sp) {
    if (!y || sp == 2) return y;
    return onnx_emit_reshape(c, y, 3, (Dim[]){y->shape[0], y->shape[1], y->shape[3]});
}

static void set_window(OnnxCtx *c, Node *n, const Window *w, bool pool) {
    node_set_ints(c->g, n, "padding", 4, w->pads);
    node_set_ints(c->g, n, "strides", 2, w->strides);
    node_set_ints(c->g, n, "dilations", 2, w->dil);
    if (pool) node_set_ints(c->g, n, "windowDimensions", 2, w->kernel);
}

static int conv(OnnxCtx *c, OpId op) {
    Value *x = onnx_in_req(c, 0), *f = onnx_in_req(c, 1), *b = onnx_in_opt(c, 2);
    if (!x || !f) return -1;
    if (f->rank != x->rank) return onnx_imp_error(c, "filter rank %d does not match input rank %d", f->rank, x->rank);
    int64_t kf[2] = {1, 1};
    for (int i = 2; i < f->rank && i < 4; i++) {
        if (!dim_is_static(f->shape[i])) return onnx_imp_error(c, "filter must have a static shape");
        kf[i - 2] = f->shape[i].v;
    }
    Window w;
    if (read_window(c, x, kf, op == OP_CONV_TRANSPOSE2D, &w) < 0) return -1;
    int64_t groups = onnx_attr_int(c, "group", 1);
    if (groups <= 0 || groups > INT32_MAX) return onnx_imp_error(c, "group must be positive");
    Node *n = onnx_imp_node(c, op);
    node_add_input(c->g, n, to_2d(c, x));
    node_add_input(c->g, n, to_2d(c, f));
    if (b) node_add_input(c->g, n, b);
    set_window(c, n, &w, false);
    node_set_uint(c->g, n, "groups", groups);
    if (op == OP_CONV_TRANSPOSE2D) {
        if (w.out_pad[0] || w.out_pad[1]) node_set_ints(c->g, n, "outputPadding", 2, w.out_pad);
        if (w.has_out_shape) node_set_ints(c->g, n, "outputSizes", 2, w.out_shape);
    }
    return onnx_imp_result(c, from_2d(c, onnx_imp_finish(c, n), w.sp));
}

int onnx_Conv(OnnxCtx *c) { return conv(c, OP_CONV2D); }
int onnx_ConvTranspose(OnnxCtx *c) { return conv(c, OP_CONV_TRANSPOSE2D); }

static int pool(OnnxCtx *c, OpId op) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    if (onnx_imp_wants_out(c, 1)) return onnx_imp_error(c, "the Indices output is not supported");
    Window w;
    if (read_window(c, x, NULL, false, &w) < 0) return -1;
    Value *in = to_2d(c, x);
    bool any_pad = w.pads[0] || w.pads[1] || w.pads[2] || w.pads[3];
    if (op == OP_AVERAGE_POOL2D && onnx_attr_int(c, "count_include_pad", 0) && any_pad && in) {
        /* WebNN's averagePool2d excludes padding from the count: pad explicitly with zeros. */
        Node *p = onnx_imp_node(c, OP_PAD);
        node_add_input(c->g, p, in);
        node_set_ints(c->g, p, "beginningPadding", 4, (const int64_t[]){0, 0, w.pads[0], w.pads[2]});
        node_set_ints(c->g, p, "endingPadding", 4, (const int64_t[]){0, 0, w.pads[1], w.pads[3]});
        node_set_string(c->g, p, "mode", "constant");
        node_set_float(c->g, p, "value", 0);
        in = onnx_imp_finish(c, p);
        memset(w.pads, 0, sizeof w.pads);
    }
    if (!in) return -1;
    Node *n = onnx_imp_node(c, op);
    node_add_input(c->g, n, in);
    set_window(c, n, &w, true);
    if (onnx_attr_int(c, "ceil_mode", 0)) node_set_string(c->g, n, "outputShapeRounding", "ceil");
    return onnx_imp_result(c, from_2d(c, onnx_imp_finish(c, n), w.sp));
}

int onnx_MaxPool(OnnxCtx *c) { return pool(c, OP_MAX_POOL2D); }
int onnx_AveragePool(OnnxCtx *c) { return pool(c, OP_AVERAGE_POOL2D); }

static int global_pool(OnnxCtx *c, OpId reduce) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    if (x->rank < 3) return onnx_imp_error(c, "input must have rank >= 3");
    int64_t axes[WN_MAX_RANK];
    for (int i = 2; i < x->rank; i++) axes[i - 2] = i;
    return onnx_imp_result(c, onnx_emit_reduce(c, reduce, x, x->rank - 2, axes, true));
}

int onnx_GlobalAveragePool(OnnxCtx *c) { return global_pool(c, OP_REDUCE_MEAN); }
int onnx_GlobalMaxPool(OnnxCtx *c) { return global_pool(c, OP_REDUCE_MAX); }
