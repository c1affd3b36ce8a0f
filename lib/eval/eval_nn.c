/* eval_nn.c - matmul, gemm, softmax and the normalizations (batch, instance, layer) for the CPU
 * evaluator.  Everything accumulates in double and rounds once to the output dtype. */
#include <math.h>
#include <string.h>

#include "diag.h"
#include "eval_internal.h"

/* A tensor's leading (batch) dimensions as a Ten of rank-2 (for broadcasting strides). */
static Ten batch_part(const Ten *t) {
    Ten b = *t;
    b.rank = t->rank - 2;
    return b;
}

static int matmul(const Node *n, const Ten *a, const Ten *b, Ten *o) {
    if (a->rank < 2 || b->rank < 2 || o->rank < 2) return 1;
    int64_t M = a->shape[a->rank - 2], K = a->shape[a->rank - 1], N = b->shape[b->rank - 1];
    if (b->shape[b->rank - 2] != K || o->shape[o->rank - 2] != M || o->shape[o->rank - 1] != N)
        return eval_fail(n, "matmul shapes do not match");
    int brank = o->rank - 2;
    Ten ab = batch_part(a), bb = batch_part(b);
    if (ab.rank > brank || bb.rank > brank) return eval_fail(n, "matmul batch rank mismatch");
    for (int d = 0; d < ab.rank; d++) {
        int64_t od = o->shape[brank - ab.rank + d];
        if (ab.shape[d] != 1 && ab.shape[d] != od) return eval_fail(n, "matmul batch does not broadcast");
    }
    for (int d = 0; d < bb.rank; d++) {
        int64_t od = o->shape[brank - bb.rank + d];
        if (bb.shape[d] != 1 && bb.shape[d] != od) return eval_fail(n, "matmul batch does not broadcast");
    }
    int64_t sa[WN_MAX_RANK], sb[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_bcast_strides(&ab, brank, o->shape, sa);
    ten_bcast_strides(&bb, brank, o->shape, sb);
    int64_t batches = o->count / (M * N);
    for (int64_t bi = 0; bi < batches; bi++) {
        unravel(bi, brank, o->shape, c);
        int64_t ao = dot_strides(brank, c, sa) * M * K, bo = dot_strides(brank, c, sb) * K * N;
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double acc = 0;
                for (int64_t k = 0; k < K; k++) acc += ten_getf(a, ao + i * K + k) * ten_getf(b, bo + k * N + j);
                ten_setf(o, bi * M * N + i * N + j, acc);
            }
    }
    return 0;
}

static int gemm(const Node *n, const Ten *a, const Ten *b, const Ten *cc, Ten *o) {
    if (a->rank != 2 || b->rank != 2 || o->rank != 2) return eval_fail(n, "gemm needs 2-D operands");
    bool at = node_bool(n, "aTranspose", false), bt = node_bool(n, "bTranspose", false);
    int64_t M = at ? a->shape[1] : a->shape[0], K = at ? a->shape[0] : a->shape[1];
    int64_t N = bt ? b->shape[0] : b->shape[1], Kb = bt ? b->shape[1] : b->shape[0];
    if (K != Kb || o->shape[0] != M || o->shape[1] != N) return eval_fail(n, "gemm shapes do not match");
    double alpha = node_float(n, "alpha", 1.0), beta = node_float(n, "beta", 1.0);
    int64_t sc[2] = {0, 0}, idx[2];
    if (cc) {
        if (cc->rank > 2) return eval_fail(n, "gemm c must have rank <= 2");
        for (int d = 0; d < cc->rank; d++)
            if (cc->shape[d] != 1 && cc->shape[d] != o->shape[2 - cc->rank + d])
                return eval_fail(n, "gemm c does not broadcast");
        ten_bcast_strides(cc, 2, o->shape, sc);
    }
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double acc = 0;
            for (int64_t k = 0; k < K; k++) {
                double av = ten_getf(a, at ? k * M + i : i * K + k);
                double bv = ten_getf(b, bt ? j * K + k : k * N + j);
                acc += av * bv;
            }
            acc *= alpha;
            if (cc) {
                idx[0] = i;
                idx[1] = j;
                acc += beta * ten_getf(cc, dot_strides(2, idx, sc));
            }
            ten_setf(o, i * N + j, acc);
        }
    return 0;
}

static int softmax(Graph *g, const Node *n, const Ten *x, Ten *o) {
    int axis = attr_axis(n, "axis", 0, x->rank);
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
        unravel(i, x->rank, x->shape, c);
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
        unravel(i, x->rank, x->shape, c);
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
    int na = attr_ints(n, "axes", axes, WN_MAX_RANK);
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
    int axis = attr_axis(n, "axis", 1, x->rank);
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

int eval_nn(Graph *g, const Node *n, const Ten *in, Ten *out) {
    if (n->n_inputs < 1 || n->n_outputs != 1 || !in[0].data || !dtype_is_float(in[0].dt)) return 1;
    Ten *o = &out[0];
    const Ten *opt1 = n->n_inputs > 1 && in[1].data ? &in[1] : NULL;
    const Ten *opt2 = n->n_inputs > 2 && in[2].data ? &in[2] : NULL;
    switch (n->op) {
    case OP_MATMUL: return n->n_inputs == 2 && opt1 ? matmul(n, &in[0], opt1, o) : 1;
    case OP_GEMM: return opt1 ? gemm(n, &in[0], opt1, opt2, o) : 1;
    default: break;
    }
    if (o->count != in[0].count) return eval_fail(n, "output size differs from the input");
    switch (n->op) {
    case OP_SOFTMAX: return softmax(g, n, &in[0], o);
    case OP_LAYER_NORMALIZATION: return layer_norm(g, n, &in[0], opt1, opt2, o);
    case OP_INSTANCE_NORMALIZATION: return instance_norm(g, n, &in[0], opt1, opt2, o);
    case OP_BATCH_NORMALIZATION:
        return n->n_inputs >= 3 && opt1 && opt2 ? batch_norm(n, in, o) : eval_fail(n, "mean and variance are required");
    default: return 1;
    }
}
