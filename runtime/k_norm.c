/* k_norm.c - kernel family `norm`: layerNormalization (any axes, incl. none; optional scale and
 * bias shaped like the input at `axes`), instanceNormalization (nchw/nhwc; per-channel scale and
 * bias) and batchNormalization (any axis; optional scale/bias), float32/float16.
 * Layer/instance norms run norm_reduce.comp (one workgroup per normalized row, two-pass mean and
 * variance); batch norm runs norm_batch.comp (element-wise with per-channel statistics). */
#include <string.h>

#include "kx_util.h"

typedef struct {
    uint32_t rank, n_red, outer, red;
    uint32_t shape[6];
    int32_t xst[6];
    int32_t sst[6];
    float eps;
    uint32_t flags;
    int32_t base_x, base_s, base_b, base_y;
} NormPush;
_Static_assert(sizeof(NormPush) <= K_PUSH_MAX, "norm push constants");

typedef struct {
    uint32_t total, C, inner, flags;
    float eps;
    int32_t base_x, base_m, base_v, base_s, base_b, base_y;
} BatchPush;
_Static_assert(sizeof(BatchPush) <= K_PUSH_MAX, "batch norm push constants");

/* Normalized axes (and the axes that index scale/bias) of a layer/instance norm node of rank r. */
static int norm_axes(const Node *n, int r, int64_t *axes, int64_t *param_axes, int *n_param) {
    if (n->op == OP_INSTANCE_NORMALIZATION) {
        bool nhwc = strcmp(node_str(n, "layout", "nchw"), "nhwc") == 0;
        if (r != 4 || (!nhwc && strcmp(node_str(n, "layout", "nchw"), "nchw"))) {
            diag_node_error(n, "instanceNormalization needs a 4-D nchw or nhwc input");
            return -1;
        }
        axes[0] = nhwc ? 1 : 2;
        axes[1] = nhwc ? 2 : 3;
        param_axes[0] = nhwc ? 3 : 1;
        *n_param = 1;
        return 2;
    }
    int na = kx_ints(n, "axes", axes, WN_MAX_RANK, -1);
    if (na == -2) return -1;
    if (na == -1) {
        na = r > 0 ? r - 1 : 0;
        for (int k = 0; k < na; k++) axes[k] = k + 1;
    }
    bool seen[WN_MAX_RANK] = {0};
    for (int k = 0; k < na; k++) {
        if (axes[k] < 0) axes[k] += r;
        if (axes[k] < 0 || axes[k] >= r || seen[axes[k]]) {
            diag_node_error(n, "axis out of range or repeated");
            return -1;
        }
        seen[axes[k]] = true;
        param_axes[k] = axes[k];
    }
    *n_param = na;
    return na;
}

static int norm_check(KernelCtx *kc, const Node *n) {
    bool batch = n->op == OP_BATCH_NORMALIZATION;
    if (kx_operands(n, batch ? 3 : 1, batch ? 5 : 3, 1) < 0) return -1;
    DType dt = n->inputs[0]->dtype;
    if (kx_float_only(n, dt) < 0) return -1;
    for (int k = 1; k < n->n_inputs; k++)
        if (n->inputs[k] && n->inputs[k]->dtype != dt) return kx_no_kernel(n, n->inputs[k]->dtype);
    if (batch) {
        int64_t axis = node_int(n, "axis", 1);
        if (axis < 0 || axis >= n->inputs[0]->rank) {
            diag_node_error(n, "axis %lld out of range", (long long)axis);
            return -1;
        }
        return kcheck_shader(kc, n, "norm_batch", dt, dt);
    }
    int64_t axes[WN_MAX_RANK], pax[WN_MAX_RANK];
    int np;
    if (norm_axes(n, n->inputs[0]->rank, axes, pax, &np) < 0) return -1;
    return kcheck_shader(kc, n, "norm_reduce", dt, dt);
}

static int batch_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "norm_batch", in[0].dtype, in[0].dtype);
    if (sh < 0) return -1;
    int axis = (int)node_int(n, "axis", 1);
    int64_t C = in[0].shape[axis], inner = 1;
    for (int d = axis + 1; d < in[0].rank; d++) inner *= in[0].shape[d];
    for (int k = 1; k < n->n_inputs; k++)
        if (n->inputs[k] && (int64_t)in[k].numel != C) {
            diag_node_error(n, "mean/variance/scale/bias must have %lld elements", (long long)C);
            return -1;
        }
    if (out[0].numel > INT32_MAX) {
        diag_node_error(n, "tensor too large");
        return -1;
    }
    BatchPush pc = {.C = (uint32_t)C, .inner = (uint32_t)inner, .eps = (float)node_float(n, "epsilon", 1e-5)};
    KBind b[6];
    int32_t *bases[5] = {&pc.base_x, &pc.base_m, &pc.base_v, &pc.base_s, &pc.base_b};
    for (int k = 1; k < 5; k++) {
        bool have = kx_opt(n, k) != NULL;
        if (k >= 3 && have) pc.flags |= k == 3 ? 1u : 2u;
        if (kx_bind(kc, n, have ? &in[k] : &in[1], false, &b[k], bases[k]) < 0) return -1;
    }
    /* x and y split over whole [C, inner] blocks (the channel of element i stays (i / inner) % C) */
    int64_t block = C * inner, outer = block ? (int64_t)out[0].numel / block : 0;
    int64_t view[2] = {outer, block}, st[2] = {block, 1};
    int64_t rows = outer ? kx_window_rows(kc, n, &in[0], 2, view, st) : 0;
    if (rows < 0) return -1;
    uint32_t spec[1] = {KX_WG};
    for (int64_t o0 = 0; o0 < outer; o0 += rows) {
        int64_t o1 = o0 + rows < outer ? o0 + rows : outer;
        uint32_t bx, by;
        if (kc_bind_window(kc, n, &in[0], o0 * block, o1 * block - 1, false, &b[0], &bx) < 0 ||
            kc_bind_window(kc, n, &out[0], o0 * block, o1 * block - 1, true, &b[5], &by) < 0)
            return -1;
        pc.base_x = (int32_t)bx, pc.base_y = (int32_t)by;
        pc.total = (uint32_t)((o1 - o0) * block);
        if (kc_dispatch_1d(kc, n, sh, spec, 1, &pc, sizeof pc, b, 6, (pc.total + KX_WG - 1) / KX_WG) < 0) return -1;
    }
    return 0;
}

/* Orders dims as [outer..., reduced...] with their x and scale strides, collapsing each group. */
static int layout_dims(const Node *n, const KTensor *x, const int64_t *axes, int na, const int64_t *pax, int np,
                       NormPush *pc) {
    int r = x->rank;
    int64_t xst[WN_MAX_RANK], pst_of_axis[WN_MAX_RANK] = {0};
    kshape_strides(r, x->shape, xst);
    /* scale/bias are shaped [x.shape[pax[0]], x.shape[pax[1]], ...] */
    int64_t s = 1;
    for (int k = np - 1; k >= 0; k--) {
        pst_of_axis[pax[k]] = s;
        s *= x->shape[pax[k]];
    }
    bool red[WN_MAX_RANK] = {0};
    for (int k = 0; k < na; k++) red[axes[k]] = true;
    int64_t gshape[2][WN_MAX_RANK], gst[2][2][WN_MAX_RANK];
    int gr[2] = {0, 0};
    for (int pass = 0; pass < 2; pass++) {
        /* outer dims in order; reduced dims in the order of axes */
        for (int k = 0; k < (pass ? na : r); k++) {
            int d = pass ? (int)axes[k] : k;
            if (!pass && red[d]) continue;
            gshape[pass][gr[pass]] = x->shape[d];
            gst[pass][0][gr[pass]] = xst[d];
            gst[pass][1][gr[pass]] = pst_of_axis[d];
            gr[pass]++;
        }
    }
    int64_t counts[2] = {1, 1};
    int rank = 0;
    for (int pass = 0; pass < 2; pass++) {
        int cr = gr[pass] ? kshape_collapse(gr[pass], gshape[pass], 2, gst[pass]) : 0;
        if (cr == 1 && gshape[pass][0] == 1) cr = 0;
        counts[pass] = (int64_t)kshape_numel(gr[pass], gshape[pass]);
        if (!gr[pass]) counts[pass] = 1;
        if (rank + cr > 6) {
            diag_node_error(n, "needs more than 6 dimensions after collapsing");
            return -1;
        }
        for (int k = 0; k < cr; k++, rank++) {
            pc->shape[rank] = (uint32_t)gshape[pass][k];
            pc->xst[rank] = (int32_t)gst[pass][0][k];
            pc->sst[rank] = (int32_t)gst[pass][1][k];
        }
        if (pass == 0) pc->n_red = (uint32_t)rank; /* temporarily: number of outer dims */
    }
    pc->n_red = (uint32_t)rank - pc->n_red;
    pc->rank = (uint32_t)rank;
    pc->outer = (uint32_t)counts[0];
    pc->red = (uint32_t)counts[1];
    return 0;
}

static int norm_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    if (n->op == OP_BATCH_NORMALIZATION) return batch_record(kc, n, in, out);
    int sh = kc_find_shader(kc, n, "norm_reduce", in[0].dtype, in[0].dtype);
    if (sh < 0) return -1;
    if (in[0].numel > INT32_MAX) {
        diag_node_error(n, "tensor too large");
        return -1;
    }
    int64_t axes[WN_MAX_RANK], pax[WN_MAX_RANK];
    int np, na = norm_axes(n, in[0].rank, axes, pax, &np);
    if (na < 0) return -1;
    uint64_t pcount = 1;
    for (int k = 0; k < np; k++) pcount *= (uint64_t)in[0].shape[pax[k]];
    for (int k = 1; k < 3; k++)
        if (kx_opt(n, k) && in[k].numel != pcount) {
            diag_node_error(n, "scale/bias must have %llu elements", (unsigned long long)pcount);
            return -1;
        }
    NormPush pc;
    memset(&pc, 0, sizeof pc);
    if (layout_dims(n, &in[0], axes, na, pax, np, &pc) < 0) return -1;
    pc.eps = (float)node_float(n, "epsilon", 1e-5);
    pc.flags = (kx_opt(n, 1) ? 1u : 0u) | (kx_opt(n, 2) ? 2u : 0u);
    /* x and y split over the outermost outer dim (rows of the dispatch grid) */
    int n_outer = (int)(pc.rank - pc.n_red);
    int64_t shape[6], xst[6];
    for (uint32_t d = 0; d < pc.rank; d++) shape[d] = pc.shape[d], xst[d] = pc.xst[d];
    int64_t rows = n_outer ? kx_window_rows(kc, n, &in[0], (int)pc.rank, shape, xst) : 1;
    if (rows < 0) return -1;
    int64_t dim0 = n_outer ? shape[0] : 1, per = n_outer ? pc.outer / dim0 : 1;
    KBind b[4];
    for (int k = 1; k < 3; k++) { /* absent scale/bias: one element of x (never read) */
        uint32_t bk;
        const KTensor *t = kx_opt(n, k) ? &in[k] : &in[0];
        if (kc_bind_window(kc, n, t, 0, kx_opt(n, k) ? (int64_t)t->numel - 1 : 0, false, &b[k], &bk) < 0) return -1;
        *(k == 1 ? &pc.base_s : &pc.base_b) = (int32_t)bk;
    }
    uint32_t spec[1] = {KX_WG};
    for (int64_t r0 = 0; r0 < dim0; r0 += rows) {
        int64_t r1 = r0 + rows < dim0 ? r0 + rows : dim0;
        int64_t lo = n_outer ? r0 * xst[0] : 0, hi = n_outer ? (r1 - 1) * xst[0] : (int64_t)in[0].numel - 1;
        for (int d = 1; d < (int)pc.rank && n_outer; d++) hi += (shape[d] - 1) * xst[d];
        uint32_t bx, by;
        if (kc_bind_window(kc, n, &in[0], lo, hi, false, &b[0], &bx) < 0 ||
            kc_bind_window(kc, n, &out[0], lo, hi, true, &b[3], &by) < 0)
            return -1;
        pc.base_x = (int32_t)bx, pc.base_y = (int32_t)by;
        if (n_outer) pc.shape[0] = (uint32_t)(r1 - r0);
        pc.outer = (uint32_t)((r1 - r0) * per);
        if (kc_dispatch_1d(kc, n, sh, spec, 1, &pc, sizeof pc, b, 4, pc.outer) < 0) return -1;
    }
    return 0;
}

const KernelFamily kfam_norm = {norm_check, norm_record, 0};
