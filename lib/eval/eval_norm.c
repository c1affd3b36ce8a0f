/* eval_norm.c - softmax and the normalizations (batch, instance, layer) for the CPU evaluator;
 * everything accumulates in double and rounds once to the output dtype.
 * Family norm of ops.def: its op-indexed table is eval_norm_ops. */
#include <math.h>
#include <string.h>

#include "core.h"
#include "eval_internal.h"

static int softmax(Graph *g, const Node *n, const Ten *x, Ten *o) {
    int axis = eval_attr_axis(n, "axis", 0, x->rank);
    if (axis < 0) return -1;
    int64_t len = x->shape[axis], stride = 1;
    for (int d = axis + 1; d < x->rank; d++) stride *= x->shape[d];
    double *e = eval_scratch(g, len);
    for (int64_t k = 0; k < x->count / len; k++) {
        int64_t base = (k / stride) * stride * len + k % stride;
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < len; j++) mx = fmax(mx, ten_getf(x, base + j * stride));
        for (int64_t j = 0; j < len; j++) sum += e[j] = exp(ten_getf(x, base + j * stride) - mx);
        for (int64_t j = 0; j < len; j++) ten_setf(o, base + j * stride, e[j] / sum);
    }
    return 0;
}

/* Index of element coordinates `c` in a per-axes operand whose shape is x's sizes at axes[]. */
static int64_t axes_index(const int64_t *c, const int64_t *shape, const int64_t *axes, int naxes) {
    int64_t o = 0;
    for (int k = 0; k < naxes; k++) o = o * shape[axes[k]] + c[axes[k]];
    return o;
}

/* Normalizes x over `axes` (population mean/variance), then applies scale/bias indexed over the
 * same axes (layerNormalization) or over one channel axis (instanceNormalization). */
static int normalize(Graph *g, const Node *n, const Ten *x, const int64_t *axes, int naxes,
                     const int64_t *param_axes, int nparam, const Ten *scale, const Ten *bias, Ten *o) {
    bool red[WN_MAX_RANK] = {0};
    int64_t pcount = 1;
    for (int k = 0; k < naxes; k++) red[axes[k]] = true;
    for (int k = 0; k < nparam; k++) pcount *= x->shape[param_axes[k]];
    if ((scale && scale->count != pcount) || (bias && bias->count != pcount))
        return eval_fail(n, "scale/bias do not match the normalized axes");
    int64_t kept = 1, c[WN_MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        if (!red[d]) kept *= x->shape[d];
    double *sum = eval_scratch(g, kept), *sq = eval_scratch(g, kept);
    double per = (double)(x->count / kept);
    int64_t *map = graph_alloc(g, sizeof *map * (size_t)x->count);
    for (int64_t i = 0; i < x->count; i++) {
        ten_unravel(i, x->rank, x->shape, c);
        int64_t k = 0;
        for (int d = 0; d < x->rank; d++)
            if (!red[d]) k = k * x->shape[d] + c[d];
        map[i] = k;
        sum[k] += ten_getf(x, i);
    }
    for (int64_t i = 0; i < x->count; i++) {
        double dlt = ten_getf(x, i) - sum[map[i]] / per;
        sq[map[i]] += dlt * dlt;
    }
    double eps = node_float(n, "epsilon", 1e-5);
    for (int64_t i = 0; i < x->count; i++) {
        ten_unravel(i, x->rank, x->shape, c);
        double v = (ten_getf(x, i) - sum[map[i]] / per) / sqrt(sq[map[i]] / per + eps);
        int64_t pi = axes_index(c, x->shape, param_axes, nparam);
        if (scale) v *= ten_getf(scale, pi);
        if (bias) v += ten_getf(bias, pi);
        ten_setf(o, i, v);
    }
    return 0;
}

static int layer_norm(Graph *g, const Node *n, const Ten *x, const Ten *scale, const Ten *bias, Ten *o) {
    int64_t axes[WN_MAX_RANK];
    int na = eval_attr_ints(n, "axes", axes, WN_MAX_RANK);
    if (na == -2) return eval_fail(n, "invalid axes");
    if (na == -1) {
        na = x->rank > 0 ? x->rank - 1 : 0;
        for (int k = 0; k < na; k++) axes[k] = k + 1;
    }
    bool seen[WN_MAX_RANK] = {0};
    for (int k = 0; k < na; k++) {
        if (axes[k] < 0) axes[k] += x->rank;
        if (axes[k] < 0 || axes[k] >= x->rank || seen[axes[k]]) return eval_fail(n, "axis out of range or repeated");
        seen[axes[k]] = true;
    }
    return normalize(g, n, x, axes, na, axes, na, scale, bias, o);
}

static int instance_norm(Graph *g, const Node *n, const Ten *x, const Ten *scale, const Ten *bias, Ten *o) {
    if (x->rank != 4) return eval_fail(n, "instanceNormalization needs a 4-D input");
    bool nhwc = strcmp(node_str(n, "layout", "nchw"), "nhwc") == 0;
    int64_t axes[2] = {nhwc ? 1 : 2, nhwc ? 2 : 3}, ch[1] = {nhwc ? 3 : 1};
    return normalize(g, n, x, axes, 2, ch, 1, scale, bias, o);
}

static int batch_norm(const Node *n, const Ten *in, Ten *o) {
    const Ten *x = &in[0];
    int axis = eval_attr_axis(n, "axis", 1, x->rank);
    if (axis < 0) return -1;
    int64_t C = x->shape[axis], stride = 1;
    for (int d = axis + 1; d < x->rank; d++) stride *= x->shape[d];
    for (int i = 1; i < n->n_inputs; i++)
        if (in[i].data && in[i].count != C) return eval_fail(n, "mean/variance/scale/bias must have the channel size");
    double eps = node_float(n, "epsilon", 1e-5);
    const Ten *scale = n->n_inputs > 3 && in[3].data ? &in[3] : NULL;
    const Ten *bias = n->n_inputs > 4 && in[4].data ? &in[4] : NULL;
    for (int64_t i = 0; i < x->count; i++) {
        int64_t ci = (i / stride) % C;
        double v = (ten_getf(x, i) - ten_getf(&in[1], ci)) / sqrt(ten_getf(&in[2], ci) + eps);
        if (scale) v *= ten_getf(scale, ci);
        if (bias) v += ten_getf(bias, ci);
        ten_setf(o, i, v);
    }
    return 0;
}

/* 0 when operand 0 is float and the single output has its size; 1 (not handled); -1 with a
 * diagnostic. */
static int norm_operand(const Node *n, const Ten *in, const Ten *out) {
    if (!eval_float_operand(n, in)) return 1;
    return out[0].count != in[0].count ? eval_fail(n, "output size differs from the input") : 0;
}

static int eval_softmax(Graph *g, const Node *n, const Ten *in, Ten *out) {
    int rc = norm_operand(n, in, out);
    return rc ? rc : softmax(g, n, &in[0], &out[0]);
}

static int eval_layer_norm(Graph *g, const Node *n, const Ten *in, Ten *out) {
    int rc = norm_operand(n, in, out);
    return rc ? rc : layer_norm(g, n, &in[0], eval_opt_in(n, in, 1), eval_opt_in(n, in, 2), &out[0]);
}

static int eval_instance_norm(Graph *g, const Node *n, const Ten *in, Ten *out) {
    int rc = norm_operand(n, in, out);
    return rc ? rc : instance_norm(g, n, &in[0], eval_opt_in(n, in, 1), eval_opt_in(n, in, 2), &out[0]);
}

static int eval_batch_norm(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    int rc = norm_operand(n, in, out);
    if (rc) return rc;
    if (n->n_inputs < 3 || !eval_opt_in(n, in, 1) || !eval_opt_in(n, in, 2))
        return eval_fail(n, "mean and variance are required");
    return batch_norm(n, in, &out[0]);
}

const EvalOp eval_norm_ops[OP_COUNT] = {
    [OP_SOFTMAX] = {eval_softmax},
    [OP_BATCH_NORMALIZATION] = {eval_batch_norm},
    [OP_INSTANCE_NORMALIZATION] = {eval_instance_norm},
    [OP_LAYER_NORMALIZATION] = {eval_layer_norm},
};
