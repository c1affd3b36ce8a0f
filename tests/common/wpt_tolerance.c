/* wpt_tolerance.c - the WPT WebNN tolerance rules (webnn/resources/utils.js and the per-file
 * tolerance functions, see ../shared/docs/webnn-ops.md section 3.3) and the comparison of actual
 * outputs with expected values: ULP distance (float32 sign-magnitude bits, float16 raw bits vs
 * toHalf(expected), integers |a-b|) or absolute tolerance.  Budgets are summed over operators. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wpt_tolerance.h"

uint16_t wpt_to_half(double value) {
    float fv = (float)value;
    uint32_t x;
    memcpy(&x, &fv, 4);
    uint32_t bits = (x >> 16) & 0x8000, m = (x >> 12) & 0x07ff, e = (x >> 23) & 0xff;
    if (e < 103) return (uint16_t)bits;
    if (e > 142) {
        bits |= 0x7c00;
        if (e == 255 && (x & 0x007fffff)) bits |= 1;
        return (uint16_t)bits;
    }
    if (e < 113) {
        m |= 0x0800;
        bits |= (m >> (114 - e)) + ((m >> (113 - e)) & 1);
        return (uint16_t)bits;
    }
    bits |= ((e - 112) << 10) | (m >> 1);
    bits += m & 1;
    return (uint16_t)bits;
}

/* float16 bits -> double, written independently of the evaluator. */
static double half_to_double(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* ---- budgets ------------------------------------------------------------------------------ */

static int64_t dim(const Value *v, int i) { return v && i >= 0 && i < v->rank ? v->shape[i].v : 1; }

/* Position of letter `c` in a 4-letter layout string, defaulting to `def`. */
static int layout_pos(const char *layout, char c, int def) {
    const char *p = layout && strlen(layout) == 4 ? strchr(layout, c) : NULL;
    return p ? (int)(p - layout) : def;
}

/* Number of elements reduced by a reduction node (product of the sizes at `axes`, default all). */
static double reduced_count(const Node *n) {
    const Value *x = n->inputs[0];
    const int64_t *axes;
    int na = node_ints(n, "axes", &axes);
    double count = 1;
    if (na < 0) {
        for (int i = 0; i < x->rank; i++) count *= (double)dim(x, i);
    } else {
        for (int i = 0; i < na; i++) count *= (double)dim(x, (int)(axes[i] < 0 ? axes[i] + x->rank : axes[i]));
    }
    return count;
}

/* ATOL budget of ops the harness checks by absolute tolerance; 0 for the others. */
static double atol_of(OpId op, bool f16) {
    switch (op) {
    case OP_COS:
    case OP_SIN:
    case OP_TAN:
    case OP_ERF: return f16 ? 1.0 / 512 : 1.0 / 1024;
    case OP_LOG: return 1.0 / 1024;
    default: return 0;
    }
}

/* ULP budget of one node for a float expected type. */
static double ulp_of(const Node *n, bool f16) {
    const OpInfo *info = op_info(n->op);
    if (info->flags & OPF_REDUCE) {
        double k = reduced_count(n);
        switch (n->op) {
        case OP_REDUCE_L2: return 2 * k + 2;
        case OP_REDUCE_LOG_SUM: return k + 18;
        case OP_REDUCE_LOG_SUM_EXP: return 2 * k + 18;
        case OP_REDUCE_MEAN: return k + 2;
        case OP_REDUCE_SUM_SQUARE: return 2 * k;
        case OP_REDUCE_MAX:
        case OP_REDUCE_MIN: return 0;
        default: return k;
        }
    }
    switch (n->op) {
    case OP_BATCH_NORMALIZATION: return 6;
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_PRELU:
    case OP_SQRT:
    case OP_DEQUANTIZE_LINEAR:
    case OP_QUANTIZE_LINEAR:
    case OP_CAST: return 1;
    case OP_ELU:
    case OP_GELU:
    case OP_SOFTPLUS: return 18;
    case OP_HARD_SIGMOID:
    case OP_LINEAR:
    case OP_RECIPROCAL:
    case OP_DIV: return 2;
    case OP_HARD_SWISH: return 4;
    case OP_LEAKY_RELU: return f16 ? 2 : 1;
    case OP_SIGMOID: return f16 ? 10 : 34;
    case OP_SOFTSIGN: return 3;
    case OP_TANH: return 16;
    case OP_EXP: return f16 ? 1 : 32;
    case OP_POW: return f16 ? 2 : 32;
    case OP_LAYER_NORMALIZATION: return 14;
    case OP_INSTANCE_NORMALIZATION: return f16 ? 8400 : 840;
    case OP_MATMUL: return 2.0 * (double)dim(n->inputs[0], n->inputs[0]->rank - 1);
    case OP_GEMM: {
        double k = (double)(node_bool(n, "aTranspose", false) ? dim(n->inputs[0], 0) : dim(n->inputs[0], 1));
        double t = 2 * k, beta = node_float(n, "beta", 1.0);
        if (node_float(n, "alpha", 1.0) != 1.0) t++;
        if (n->n_inputs > 2 && n->inputs[2] && beta != 0.0) t += beta != 1.0 ? 2 : 1;
        return t;
    }
    case OP_CONV2D:
    case OP_CONV_TRANSPOSE2D: {
        const char *fl = node_str(n, "filterLayout", NULL), *il = node_str(n, "inputLayout", "nchw");
        const Value *f = n->inputs[1];
        double kh = (double)dim(f, layout_pos(fl, 'h', 2)), kw = (double)dim(f, layout_pos(fl, 'w', 3));
        double cin = (double)dim(n->inputs[0], layout_pos(il, 'c', 1));
        return 2 * kh * kw * cin / (double)node_int(n, "groups", 1);
    }
    case OP_SOFTMAX: {
        int64_t axis = node_int(n, "axis", 1);
        return 3.0 * (double)dim(n->inputs[0], (int)(axis < 0 ? axis + n->inputs[0]->rank : axis)) + 3;
    }
    case OP_AVERAGE_POOL2D:
    case OP_L2_POOL2D: {
        const int64_t *win;
        if (node_ints(n, "windowDimensions", &win) == 2) return (double)(win[0] * win[1]) + 2;
        bool nhwc = strcmp(node_str(n, "layout", "nchw"), "nhwc") == 0;
        return (double)(dim(n->inputs[0], nhwc ? 1 : 2) * dim(n->inputs[0], nhwc ? 2 : 3)) + 2;
    }
    case OP_RESAMPLE2D:
        return strcmp(node_str(n, "mode", "nearest-neighbor"), "linear") == 0 ? (f16 ? 10 : 84) : 0;
    default: return 0; /* exact: data movement, comparisons, logical, relu, clamp, max/min, ... */
    }
}

void wpt_set_tolerance(WptCase *c) {
    DType dt = c->outputs[0].dtype;
    bool is_float = dtype_is_float(dt), f16 = dt == DT_F16;
    double ulp = 0, atol = 0;
    for (int i = 0; i < c->g->n_nodes; i++) {
        const Node *n = c->g->nodes[i];
        atol += is_float ? atol_of(n->op, f16) : 0;
        if (is_float) ulp += ulp_of(n, f16);
        else if (op_info(n->op)->flags & OPF_REDUCE) ulp += ulp_of(n, f16);
    }
    c->metric = atol > 0 ? WPT_ATOL : WPT_ULP;
    c->tolerance = atol > 0 ? atol : ulp;
}

/* ---- comparison --------------------------------------------------------------------------- */

/* float32 sign-magnitude bit pattern (WPT getBitwise). */
static int64_t f32_bitwise(float v) {
    float a = fabsf(v);
    uint32_t u;
    memcpy(&u, &a, 4);
    return v < 0 ? -(int64_t)u : (int64_t)u;
}

/* Reads actual element k of an integer dtype exactly (uint64 as bit pattern). */
static int64_t actual_int(DType dt, const unsigned char *p, int64_t k) {
    switch (dt) {
    case DT_I32: { int32_t x; memcpy(&x, p + k * 4, 4); return x; }
    case DT_U32: { uint32_t x; memcpy(&x, p + k * 4, 4); return x; }
    case DT_I64:
    case DT_U64: { int64_t x; memcpy(&x, p + k * 8, 8); return x; }
    case DT_I8: return (int8_t)p[k];
    case DT_U8: return p[k];
    case DT_I4: { int v = (p[k / 2] >> ((k & 1) * 4)) & 15; return v >= 8 ? v - 16 : v; }
    case DT_U4: return (p[k / 2] >> ((k & 1) * 4)) & 15;
    default: return 0;
    }
}

int wpt_compare(const WptCase *c, int output_index, const void *actual, char *why, size_t why_len) {
    if (output_index < 0 || output_index >= c->n_outputs || !actual) return -1;
    const WptOutput *o = &c->outputs[output_index];
    const unsigned char *p = actual;
    for (int64_t k = 0; k < o->checked; k++) {
        double e = o->expect[k], a, dist;
        if (o->expect_i) {
            int64_t ai = actual_int(o->dtype, p, k), ei = o->expect_i[k];
            if (o->dtype == DT_U64) {
                uint64_t ua = (uint64_t)ai, ue = (uint64_t)ei;
                dist = (double)(ua > ue ? ua - ue : ue - ua);
            } else {
                dist = (double)(ai > ei ? (uint64_t)ai - (uint64_t)ei : (uint64_t)ei - (uint64_t)ai);
            }
            a = o->dtype == DT_U64 ? (double)(uint64_t)ai : (double)ai;
            if (c->metric == WPT_ATOL) dist = fabs(a - e);
        } else if (o->dtype == DT_F16) {
            uint16_t ab;
            memcpy(&ab, p + k * 2, 2);
            a = half_to_double(ab);
            uint16_t eb = wpt_to_half(e);
            if (isnan(a) && isnan(e)) continue;
            if (c->metric == WPT_ATOL) dist = fabs(a - e);
            else if ((ab & 0x7fff) == 0 && (eb & 0x7fff) == 0) dist = 0;
            else dist = fabs((double)ab - (double)eb);
        } else {
            float af;
            memcpy(&af, p + k * 4, 4);
            a = af;
            if (isnan(a) && isnan(e)) continue;
            if (a == e) continue;
            if (c->metric == WPT_ATOL) dist = fabs(a - e);
            else dist = fabs((double)(f32_bitwise(af) - f32_bitwise((float)e)));
        }
        if (!(dist <= c->tolerance)) {
            snprintf(why, why_len, "%s[%lld]: actual %.9g, expected %.9g (%s %.6g > %.6g)", o->name, (long long)k, a, e,
                     c->metric == WPT_ATOL ? "abs diff" : "ULP", dist, c->tolerance);
            return 0;
        }
    }
    return 1;
}
