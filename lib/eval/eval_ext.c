/* eval_ext.c - CPU reference evaluation of the webnnc extension ops, implementing the ONNX Runtime
 * contrib-op semantics directly (docs/extension-ops.md): matmulNBits (dequantize b, then a·wᵀ + bias),
 * rmsNorm, skipRmsNorm (sum, normalized unrounded), rotaryEmbedding (half-split or interleaved,
 * partial rotary, position offset form), gatherBlockQuantized (out-of-range index -> zeros, as ORT)
 * and quickGelu.  Computes in double and rounds once to the output dtype.  This is the oracle the
 * decomposition tests compare the spec-op graphs of passes/decompose_*.c against.
 * Family ext of ops.def: its op-indexed table is eval_ext_ops. */
#include <math.h>

#include "core.h"
#include "eval_internal.h"

/* Bits of packed element `i` of a uint8 buffer holding 8/bits values per byte, low bits first. */
static int64_t packed_elem(const Ten *t, int64_t i, int64_t bits) {
    int64_t per = 8 / bits;
    return ((int64_t)((const uint8_t *)t->data)[i / per] >> ((i % per) * bits)) & ((1 << bits) - 1);
}

static int eval_matmul_nbits(Graph *g, const Node *n, const Ten *in, Ten *out) {
    NBitsGeom geo;
    if (nbits_geometry(n, &geo) < 0) return -1;
    const Ten *a = &in[0], *b = &in[1], *scales = &in[2];
    const Ten *zp = n->n_inputs > 3 && in[3].data ? &in[3] : NULL, *bias = n->n_inputs > 4 && in[4].data ? &in[4] : NULL;
    if (geo.n * geo.k > INT32_MAX) return eval_fail(n, "weights too large");
    double *w = eval_scratch(g, geo.n * geo.k);
    for (int64_t r = 0; r < geo.n; r++)
        for (int64_t kb = 0; kb < geo.k_blocks; kb++) {
            double s = ten_getf(scales, r * geo.k_blocks + kb);
            double z = (double)(1 << (geo.bits - 1));
            if (zp && zp->dt == DT_U8) z = (double)packed_elem(zp, r * geo.zp_row_bytes * (8 / geo.bits) + kb, geo.bits);
            else if (zp) z = ten_getf(zp, r * geo.k_blocks + kb);
            for (int64_t j = 0; j < geo.block && kb * geo.block + j < geo.k; j++) {
                int64_t q = packed_elem(b, (r * geo.k_blocks + kb) * geo.block + j, geo.bits);
                w[r * geo.k + kb * geo.block + j] = ((double)q - z) * s;
            }
        }
    int64_t rows = a->count / geo.k;
    for (int64_t m = 0; m < rows; m++)
        for (int64_t c = 0; c < geo.n; c++) {
            double acc = bias ? ten_getf(bias, c) : 0;
            for (int64_t k = 0; k < geo.k; k++) acc += ten_getf(a, m * geo.k + k) * w[c * geo.k + k];
            ten_setf(&out[0], m * geo.n + c, acc);
        }
    return 0;
}

/* Normalizes rows of `size` values of sum[] (already computed) into o: v / rms(v) * scale. */
static void rms_rows(const double *v, int64_t rows, int64_t size, double eps, const Ten *scale, Ten *o) {
    for (int64_t r = 0; r < rows; r++) {
        double ss = 0;
        for (int64_t j = 0; j < size; j++) ss += v[r * size + j] * v[r * size + j];
        double rms = sqrt(ss / (double)size + eps);
        for (int64_t j = 0; j < size; j++) ten_setf(o, r * size + j, v[r * size + j] / rms * ten_getf(scale, j));
    }
}

static int eval_rms_norm(Graph *g, const Node *n, const Ten *in, Ten *out) {
    const Ten *x = &in[0];
    int64_t axis = node_int(n, "axis", 0), size = 1;
    if (axis < 0 || axis >= x->rank) return eval_fail(n, "axis out of range");
    for (int i = (int)axis; i < x->rank; i++) size *= x->shape[i];
    if (size != in[1].count) return eval_fail(n, "scale size differs from the normalized size");
    double *v = eval_scratch(g, x->count);
    for (int64_t i = 0; i < x->count; i++) v[i] = ten_getf(x, i);
    rms_rows(v, x->count / size, size, node_float(n, "epsilon", EXT_RMS_NORM_EPSILON), &in[1], &out[0]);
    return 0;
}

static int eval_skip_rms_norm(Graph *g, const Node *n, const Ten *in, Ten *out) {
    const Ten *x = &in[0], *skip = &in[1], *bias = n->n_inputs > 3 && in[3].data ? &in[3] : NULL;
    int64_t size = x->shape[x->rank - 1], sk[WN_MAX_RANK], c[WN_MAX_RANK];
    ten_bcast_strides(skip, x->rank, x->shape, sk);
    double *v = eval_scratch(g, x->count);
    for (int64_t i = 0; i < x->count; i++) {
        ten_unravel(i, x->rank, x->shape, c);
        v[i] = ten_getf(x, i) + ten_getf(skip, ten_dot_strides(x->rank, c, sk)) + (bias ? ten_getf(bias, i % size) : 0);
        if (n->n_outputs > 1) ten_setf(&out[1], i, v[i]);
    }
    rms_rows(v, x->count / size, size, node_float(n, "epsilon", EXT_RMS_NORM_EPSILON), &in[2], &out[0]);
    return 0;
}

/* WebNN gather index rule: negative counts from the end, out of range clamps. */
static int64_t clamp_index(int64_t i, int64_t size) {
    if (i < 0) i += size;
    return i < 0 ? 0 : i >= size ? size - 1 : i;
}

static int eval_rotary(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    RotaryGeom geo;
    if (rotary_geometry(n, &geo) < 0) return -1;
    const Ten *x = &in[0], *pos = &in[1], *cos = &in[2], *sin = &in[3];
    bool inter = node_bool(n, "interleaved", false);
    int64_t B = x->shape[0], S = x->shape[geo.four_d ? 2 : 1], N = geo.heads, H = geo.head_size, half = geo.half;
    for (int64_t b = 0; b < B; b++)
        for (int64_t s = 0; s < S; s++) {
            int64_t row = b * S + s; /* pos_form 2: caches [B, S, half] */
            if (geo.pos_form == 0) row = clamp_index(ten_geti(pos, 0) + s, cos->shape[0]);
            if (geo.pos_form == 1) row = clamp_index(ten_geti(pos, b * S + s), cos->shape[0]);
            for (int64_t h = 0; h < N; h++) {
                int64_t base = geo.four_d ? ((b * N + h) * S + s) * H : ((b * S + s) * N + h) * H;
                for (int64_t i = 0; i < H; i++) {
                    double y = ten_getf(x, base + i);
                    if (i < geo.rot) {
                        int64_t ci = inter ? i / 2 : i % half;
                        int64_t j = inter ? (i % 2 ? i - 1 : i + 1) : (i < half ? i + half : i - half);
                        double sign = inter ? (i % 2 ? 1 : -1) : (i < half ? -1 : 1);
                        y = y * ten_getf(cos, row * half + ci) + sign * ten_getf(x, base + j) * ten_getf(sin, row * half + ci);
                    }
                    ten_setf(&out[0], base + i, y);
                }
            }
        }
    return 0;
}

static int eval_gather_block_quantized(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    GbqGeom geo;
    if (gbq_geometry(n, &geo) < 0) return -1;
    const Ten *data = &in[0], *idx = &in[1], *scales = &in[2], *zp = n->n_inputs > 3 && in[3].data ? &in[3] : NULL;
    Ten *o = &out[0];
    int64_t lshape[WN_MAX_RANK], c[WN_MAX_RANK], dc[WN_MAX_RANK], ls[WN_MAX_RANK], ss[WN_MAX_RANK];
    Ten logical = *data;
    for (int i = 0; i < data->rank; i++) lshape[i] = data->shape[i];
    lshape[geo.quant_axis] = geo.quant_dim;
    for (int i = 0; i < data->rank; i++) logical.shape[i] = lshape[i];
    ten_strides(&logical, ls);
    ten_strides(scales, ss);
    int64_t zp_last = zp ? zp->shape[zp->rank - 1] : 0, ga = geo.gather_axis, ir = idx->rank;
    for (int64_t i = 0; i < o->count; i++) {
        ten_unravel(i, o->rank, o->shape, c);
        int64_t idx_flat = 0;
        for (int d = 0; d < ir; d++) idx_flat = idx_flat * idx->shape[d] + c[ga + d];
        int64_t v = ten_geti(idx, idx_flat), dim = lshape[ga];
        if (v < -dim || v >= dim) { /* ORT: out-of-range index -> zeros */
            ten_setf(o, i, 0);
            continue;
        }
        for (int d = 0; d < data->rank; d++) dc[d] = d < ga ? c[d] : d == ga ? (v < 0 ? v + dim : v) : c[d - 1 + ir];
        int64_t li = ten_dot_strides(data->rank, dc, ls);
        dc[geo.quant_axis] /= geo.block;
        int64_t si = ten_dot_strides(data->rank, dc, ss);
        int64_t q = data->dt == DT_U8 ? packed_elem(data, li, geo.bits) : ten_geti(data, li);
        double z = data->dt == DT_U8 ? (double)(1 << (geo.bits - 1)) : 0;
        if (zp && zp->dt == DT_U8) {
            int64_t per = geo.components, qb = dc[geo.quant_axis], rowz = (si - qb) / geo.n_blocks;
            z = (double)packed_elem(zp, (rowz * zp_last + qb / per) * per + qb % per, geo.bits);
        } else if (zp) {
            z = (double)ten_geti(zp, si);
        }
        ten_setf(o, i, ((double)q - z) * ten_getf(scales, si));
    }
    return 0;
}

static int eval_quick_gelu(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    double alpha = node_float(n, "alpha", EXT_QUICK_GELU_ALPHA);
    for (int64_t i = 0; i < in[0].count; i++) {
        double x = ten_getf(&in[0], i);
        ten_setf(&out[0], i, x / (1.0 + exp(-alpha * x)));
    }
    return 0;
}

const EvalOp eval_ext_ops[OP_COUNT] = {
    [OP_MATMUL_NBITS] = {eval_matmul_nbits},
    [OP_RMS_NORM] = {eval_rms_norm},
    [OP_SKIP_RMS_NORM] = {eval_skip_rms_norm},
    [OP_ROTARY_EMBEDDING] = {eval_rotary},
    [OP_GATHER_BLOCK_QUANTIZED] = {eval_gather_block_quantized},
    [OP_QUICK_GELU] = {eval_quick_gelu},
};
