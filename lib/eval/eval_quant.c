/* eval_quant.c - dequantizeLinear and quantizeLinear for the CPU evaluator, with WebNN's blockwise
 * broadcasting of scale/zeroPoint: each input dimension is a multiple of the matching (right
 * aligned) scale dimension and every block of input elements shares one scale.
 * Family quant of ops.def: its op-indexed table is eval_quant_ops. */
#include <math.h>

#include "core.h"
#include "eval_internal.h"

/* Per-dimension block sizes of `p` against x; -1 with a diagnostic when they do not divide. */
static int block_sizes(const Node *n, const Ten *x, const Ten *p, int64_t *block) {
    if (p->rank > x->rank) goto bad;
    for (int d = 0; d < x->rank; d++) {
        int j = d - (x->rank - p->rank);
        int64_t pd = j < 0 ? 1 : p->shape[j];
        if (x->shape[d] % pd) goto bad;
        block[d] = x->shape[d] / pd;
    }
    return 0;
bad:
    diag_node_error(n, "scale/zeroPoint shape does not block-broadcast to the input");
    return -1;
}

/* Index into the (right aligned) parameter tensor for input coordinates c. */
static int64_t param_index(const Ten *x, const Ten *p, const int64_t *c, const int64_t *block) {
    int64_t o = 0;
    for (int d = x->rank - p->rank; d < x->rank; d++) o = o * p->shape[d - (x->rank - p->rank)] + c[d] / block[d];
    return o;
}

/* Saturating range of an integer dtype as doubles. */
static void int_range(DType dt, double *lo, double *hi) {
    int bits = dtype_bits(dt);
    if (dtype_is_signed(dt)) {
        *lo = -ldexp(1, bits - 1);
        *hi = ldexp(1, bits - 1) - 1;
    } else {
        *lo = 0;
        *hi = ldexp(1, bits) - 1;
    }
}

static int eval_quant(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g;
    if (n->n_inputs < 2 || n->n_outputs != 1 || !in[0].data || !in[1].data) return 1;
    const Ten *x = &in[0], *scale = &in[1], *zp = n->n_inputs > 2 && in[2].data ? &in[2] : NULL;
    Ten *o = &out[0];
    if (o->count != x->count) {
        diag_node_error(n, "output size differs from the input");
        return -1;
    }
    int64_t bs[WN_MAX_RANK], bz[WN_MAX_RANK], c[WN_MAX_RANK];
    if (block_sizes(n, x, scale, bs) < 0 || (zp && block_sizes(n, x, zp, bz) < 0)) return -1;
    bool quant = n->op == OP_QUANTIZE_LINEAR;
    if (quant ? dtype_is_float(o->dt) : !dtype_is_float(o->dt)) return 1;
    double lo = 0, hi = 0;
    if (quant) int_range(o->dt, &lo, &hi);
    for (int64_t i = 0; i < x->count; i++) {
        ten_unravel(i, x->rank, x->shape, c);
        double s = ten_getf(scale, param_index(x, scale, c, bs));
        double z = zp ? ten_getf(zp, param_index(x, zp, c, bz)) : 0;
        if (quant) {
            double q = nearbyint(ten_getf(x, i) / s) + z;
            q = isnan(q) ? 0 : q < lo ? lo : q > hi ? hi : q;
            ten_setf(o, i, q);
        } else {
            ten_setf(o, i, (ten_getf(x, i) - z) * s);
        }
    }
    return 0;
}

const EvalOp eval_quant_ops[OP_COUNT] = {
    [OP_DEQUANTIZE_LINEAR] = {eval_quant},
    [OP_QUANTIZE_LINEAR] = {eval_quant},
};
