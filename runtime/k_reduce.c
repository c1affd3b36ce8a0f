/* k_reduce.c - reduction kernel families (op family reduce): reduce* over any axes (reduce.comp),
 * also with an element-wise epilogue (k_reduce.h: plan_reduce.c's rewrites), and argMax/argMin
 * along one axis (argminmax.comp, through kx_axis_record). */
#include <string.h>

#include "k_reduce.h"
#include "kx_util.h"

#define WG 256

static int reduce_code(OpId op) {
    switch (op) {
    case OP_REDUCE_L1: return 1;
    case OP_REDUCE_L2: return 2;
    case OP_REDUCE_LOG_SUM: return 3;
    case OP_REDUCE_LOG_SUM_EXP: return 4;
    case OP_REDUCE_MAX: return 5;
    case OP_REDUCE_MEAN: return 6;
    case OP_REDUCE_MIN: return 7;
    case OP_REDUCE_PRODUCT: return 8;
    case OP_REDUCE_SUM: return 9;
    case OP_REDUCE_SUM_SQUARE: return 10;
    default: return 0;
    }
}

bool kernel_is_reduction(OpId op) { return reduce_code(op) != 0; }

/* Which input axes are reduced (axes option; default all). */
static int reduced_axes(const Node *n, int rank, bool *red) {
    const int64_t *axes;
    int na = node_ints(n, "axes", &axes);
    for (int d = 0; d < rank; d++) red[d] = na < 0;
    for (int i = 0; i < na; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
        if (a < 0 || a >= rank) {
            diag_node_error(n, "axis %lld out of range", (long long)axes[i]);
            return -1;
        }
        red[a] = true;
    }
    return 0;
}

/* The reduce* node n itself, its output stored as out_dt (the epilogue's dtype). */
static int check_reduction(KernelCtx *kc, const Node *n, DType out_dt) {
    if (kx_one_in_one_out(n) < 0) return -1;
    DType dt = n->inputs[0]->dtype;
    int code = reduce_code(n->op);
    bool float_only = code == 2 || code == 3 || code == 4 || code == 6;
    if (!code || (float_only && !dtype_is_float(dt))) {
        diag_error("no kernel for op %s (dtype %s) at node %s", op_name(n->op), dtype_name(dt), node_display_name(n));
        return -1;
    }
    bool red[WN_MAX_RANK];
    if (reduced_axes(n, n->inputs[0]->rank, red) < 0) return -1;
    return kcheck_shader(kc, n, "reduce", dt, out_dt);
}

static int reduce_check(KernelCtx *kc, const Node *n) {
    return check_reduction(kc, n, n->n_inputs > 0 && n->inputs[0] ? n->inputs[0]->dtype : DT_INVALID);
}

typedef struct {
    uint32_t n_out, R, krank, rrank;
    uint32_t kshape[6], kst[6], rshape[6], rst[6];
    int32_t base_in, base_out, base_c;
} ReducePush;

/* Upper bound of the reduced element count: the product of the reduced axes' maxSize (their
 * actual size where the value's dims are unknown); at least the actual count R. */
static uint64_t reduced_bound(const KTensor *x, const bool *red, uint64_t R) {
    if (!x->value || x->value->rank != x->rank) return R;
    uint64_t bound = 1;
    for (int d = 0; d < x->rank; d++)
        if (red[d]) {
            int64_t mx = dim_max(x->value->shape[d]);
            bound *= (uint64_t)(mx > x->shape[d] ? mx : x->shape[d]);
        }
    return bound > R ? bound : R;
}

/* Records reduction node `red_node` (op, axes) of x into out for node n, with the epilogue e
 * (NULL: none) and its constant c. */
static int record_reduction(KernelCtx *kc, const Node *n, const Node *red_node, const KTensor *x, const KTensor *c,
                            const KReduceEpilogue *e, const KTensor *out) {
    bool red[WN_MAX_RANK];
    if (reduced_axes(red_node, x->rank, red) < 0) return -1;
    int64_t strides[WN_MAX_RANK];
    kshape_strides(x->rank, x->shape, strides);
    int64_t ks[WN_MAX_RANK], kst[1][WN_MAX_RANK], rs[WN_MAX_RANK], rst[1][WN_MAX_RANK];
    int kr = 0, rr = 0;
    for (int d = 0; d < x->rank; d++) {
        if (red[d]) rs[rr] = x->shape[d], rst[0][rr++] = strides[d];
        else ks[kr] = x->shape[d], kst[0][kr++] = strides[d];
    }
    kr = kr ? kshape_collapse(kr, ks, 1, kst) : 0;
    rr = rr ? kshape_collapse(rr, rs, 1, rst) : 0;
    if (kr > 6 || rr > 6) {
        diag_node_error(n, "too many dimensions for the reduction kernel");
        return -1;
    }
    if (x->numel > UINT32_MAX) {
        diag_node_error(n, "tensor %s has too many elements (%llu)", value_display_name(x->value), (unsigned long long)x->numel);
        return -1;
    }
    if (x->numel == 0 || out->numel == 0) return 0;
    ReducePush pc;
    memset(&pc, 0, sizeof pc);
    uint64_t R = 1;
    for (int d = 0; d < rr; d++) R *= (uint64_t)rs[d];
    pc.R = (uint32_t)R;
    pc.krank = (uint32_t)kr, pc.rrank = (uint32_t)rr;
    for (int d = 0; d < kr; d++) pc.kshape[d] = (uint32_t)ks[d], pc.kst[d] = (uint32_t)kst[0][d];
    for (int d = 0; d < rr; d++) pc.rshape[d] = (uint32_t)rs[d], pc.rst[d] = (uint32_t)rst[0][d];
    int sh = kc_find_shader(kc, n, "reduce", x->dtype, out->dtype);
    if (sh < 0) return -1;
    /* the variant follows the reduced extent's upper bound, so that one recording serves every
     * size within the bounds (replay.h) */
    bool per_thread = reduced_bound(x, red, R) < 64;
    uint32_t wg = per_thread ? 64 : WG;
    uint32_t spec[5] = {wg, (uint32_t)reduce_code(red_node->op), per_thread, e ? (uint32_t)e->binary_op : 0,
                        e && e->const_first};
    /* Split over the outermost kept dim (its outputs are contiguous): x viewed as that dim, then
     * every other kept and reduced dim. */
    int64_t vshape[2 * WN_MAX_RANK], vst[2 * WN_MAX_RANK];
    int vr = 0;
    for (int d = 0; d < kr; d++) vshape[vr] = ks[d], vst[vr++] = kst[0][d];
    for (int d = 0; d < rr; d++) vshape[vr] = rs[d], vst[vr++] = rst[0][d];
    int64_t outer = kr ? ks[0] : 1, per_row = (int64_t)out->numel / outer;
    int64_t yv[2] = {outer, per_row}, ys[2] = {per_row, 1};
    int64_t rx = kr ? kx_window_rows(kc, n, x, vr, vshape, vst) : kx_window_rows(kc, n, x, 1, (int64_t[]){(int64_t)x->numel}, (int64_t[]){1});
    int64_t ry = kx_window_rows(kc, n, out, 2, yv, ys);
    if (rx < 0 || ry < 0) return -1;
    int64_t rows = rx < ry ? rx : ry, s0 = kr ? kst[0][0] : 0;
    for (int64_t c0 = 0; c0 < outer; c0 += rows) {
        int64_t c1 = c0 + rows < outer ? c0 + rows : outer;
        int64_t lo = c0 * s0, hi = (c1 - 1) * s0;
        for (int d = 1; d < vr; d++) hi += (vshape[d] - 1) * vst[d];
        if (!kr) hi = (int64_t)x->numel - 1;
        KBind b[3];
        uint32_t bi, bo, bc = 0;
        if (kc_bind_window(kc, n, x, lo, hi, false, &b[0], &bi) < 0 ||
            kc_bind_window(kc, n, out, c0 * per_row, c1 * per_row - 1, true, &b[1], &bo) < 0)
            return -1;
        b[2] = b[0]; /* no constant: never read */
        if (c && kc_bind_window(kc, n, c, 0, 0, false, &b[2], &bc) < 0) return -1;
        pc.base_in = (int32_t)bi, pc.base_out = (int32_t)bo, pc.base_c = (int32_t)bc;
        if (kr) pc.kshape[0] = (uint32_t)(c1 - c0);
        pc.n_out = (uint32_t)((c1 - c0) * per_row);
        uint64_t groups = per_thread ? (pc.n_out + wg - 1) / wg : pc.n_out;
        if (kc_dispatch_1d(kc, n, sh, spec, 5, &pc, sizeof pc, b, 3, groups) < 0) return -1;
    }
    return 0;
}

static int reduce_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    return record_reduction(kc, n, n, &in[0], NULL, NULL, &out[0]);
}

const KernelFamily kfam_reduce = {reduce_check, reduce_record, 0};

/* ---- the reduction with an element-wise epilogue (plan_reduce.c) ------------------------------- */

static int epilogue_check(KernelCtx *kc, const Node *n) {
    const KReduceEpilogue *e = kc_node_params(kc, n);
    if (!e || n->n_outputs != 1) {
        diag_node_error(n, "internal: reduction epilogue without parameters");
        return -1;
    }
    return check_reduction(kc, e->reduce, n->outputs[0]->dtype);
}

static int epilogue_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    const KReduceEpilogue *e = kc_node_params(kc, n);
    if (!e) {
        diag_node_error(n, "internal: reduction epilogue without parameters");
        return -1;
    }
    return record_reduction(kc, n, e->reduce, &in[0], e->binary_op ? &in[1] : NULL, e, &out[0]);
}

const KernelFamily kfam_reduce_epilogue = {epilogue_check, epilogue_record, 0};

static int argminmax_check(KernelCtx *kc, const Node *n) { return kx_axis_check(kc, n, "argminmax"); }

static int argminmax_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "argminmax", in[0].dtype, out[0].dtype);
    uint32_t spec[2] = {WG, n->op == OP_ARG_MIN};
    return sh < 0 ? -1 : kx_axis_record(kc, n, &in[0], &out[0], sh, spec, 2);
}

const KernelFamily kfam_argminmax = {argminmax_check, argminmax_record, 0};
