/* k_index.c - kernel families `index_elements` (gatherElements, scatterElements) and `index_nd`
 * (gatherND, scatterND) for every data dtype (moved by element size) and index dtypes int32,
 * uint32, int64.  Negative indices count from the end and out-of-range indices are clamped, as
 * the WebNN spec allows.  Scatters first copy the input to the output, then write the updates
 * (duplicate indices: one of the updates wins, as the spec leaves it).  gatherElements and
 * scatterElements split over windows of dim-0 rows beyond maxStorageBufferRange (axis != 0). */
#include <string.h>

#include "kx_util.h"

typedef struct {
    uint32_t n, rank, axis, axis_dim;
    uint32_t shape[WN_MAX_RANK];
    int32_t xst[WN_MAX_RANK];
    int32_t base_src, base_idx, base_dst;
} ElemPush;
_Static_assert(sizeof(ElemPush) <= K_PUSH_MAX, "index_elements push constants");

typedef struct {
    uint32_t n, k, inner, pad0;
    uint32_t dims[8];
    int32_t xst[8];
    int32_t base_src, base_idx, base_dst;
} NdPush;
_Static_assert(sizeof(NdPush) <= K_PUSH_MAX, "index_nd push constants");

static bool is_scatter(OpId op) { return op == OP_SCATTER_ELEMENTS || op == OP_SCATTER_ND; }

static int index_check_shader(KernelCtx *kc, const Node *n, const char *name) {
    if (kx_operands(n, is_scatter(n->op) ? 3 : 2, is_scatter(n->op) ? 3 : 2, 1) < 0) return -1;
    DType dt = n->inputs[0]->dtype, it = n->inputs[1]->dtype;
    if (kx_size_class(dt) == DT_INVALID || (is_scatter(n->op) && n->inputs[2]->dtype != dt)) return kx_no_kernel(n, dt);
    if (it != DT_I32 && it != DT_U32 && it != DT_I64) return kx_no_kernel(n, it);
    return kcheck_shader(kc, n, name, kx_size_class(dt), it);
}

/* Binds (src, idx, dst) and dispatches n threads; scatters copy the input first. */
static int index_run(KernelCtx *kc, const Node *n, const char *name, const KTensor *in, const KTensor *out,
                     void *pc, uint32_t pc_size, int32_t *bases, uint64_t threads) {
    int sh = kc_find_shader(kc, n, name, kx_size_class(in[0].dtype), in[1].dtype);
    if (sh < 0) return -1;
    bool sc = is_scatter(n->op);
    bool in_place = in[0].buffer == out[0].buffer && in[0].offset == out[0].offset; /* KV cache (rt_kv.c) */
    if (sc && !in_place && kx_copy(kc, n, &in[0], &out[0]) < 0) return -1;
    KBind b[3];
    if (kx_bind(kc, n, sc ? &in[2] : &in[0], false, &b[0], &bases[0]) < 0 ||
        kx_bind(kc, n, &in[1], false, &b[1], &bases[1]) < 0 || kx_bind(kc, n, &out[0], true, &b[2], &bases[2]) < 0)
        return -1;
    uint32_t spec[2] = {KX_WG, sc ? 1u : 0u};
    return kc_dispatch_1d(kc, n, sh, spec, 2, pc, pc_size, b, 3, (threads + KX_WG - 1) / KX_WG);
}

/* Rows [r0, r1) of dim 0 of the dense tensor t as a tensor of its own. */
static KTensor rows_view(const KTensor *t, int64_t r0, int64_t r1) {
    KTensor v = *t;
    uint64_t row = t->shape[0] ? t->numel / (uint64_t)t->shape[0] : 0;
    v.offset += dtype_storage_bytes(t->dtype, row * (uint64_t)r0);
    v.shape[0] = r1 - r0;
    v.numel = row * (uint64_t)(r1 - r0);
    return v;
}

static bool too_big(const Node *n, const KTensor *t, int count) {
    for (int k = 0; k < count; k++)
        if (t[k].numel > INT32_MAX) {
            diag_node_error(n, "tensor too large for the index kernels");
            return true;
        }
    return false;
}

/* ---- gatherElements / scatterElements ------------------------------------------------------ */

static int elements_check(KernelCtx *kc, const Node *n) {
    if (index_check_shader(kc, n, "index_elements") < 0) return -1;
    int r = n->inputs[0]->rank;
    int64_t axis = node_int(n, "axis", 0);
    if (r > WN_MAX_RANK || n->inputs[1]->rank != r || axis < 0 || axis >= r) {
        diag_node_error(n, "needs indices of the input's rank (at most %d) and an axis inside it", WN_MAX_RANK);
        return -1;
    }
    return 0;
}

static int elements_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    if (too_big(n, in, n->n_inputs) || too_big(n, out, 1)) return -1;
    const KTensor *x = &in[0], *idx = &in[1];
    int axis = (int)node_int(n, "axis", 0);
    int64_t xst[WN_MAX_RANK];
    kshape_strides(x->rank, x->shape, xst);
    for (int d = 0; d < x->rank; d++)
        if (d != axis && idx->shape[d] > x->shape[d]) {
            diag_node_error(n, "indices dimension %d (%lld) exceeds the input's (%lld)", d, (long long)idx->shape[d],
                            (long long)x->shape[d]);
            return -1;
        }
    if (is_scatter(n->op))
        for (int d = 0; d < x->rank; d++)
            if (in[2].rank != x->rank || in[2].shape[d] != idx->shape[d]) {
                diag_node_error(n, "updates must have the shape of indices");
                return -1;
            }
    ElemPush pc;
    memset(&pc, 0, sizeof pc);
    pc.rank = (uint32_t)x->rank;
    pc.axis = (uint32_t)axis;
    pc.axis_dim = (uint32_t)x->shape[axis];
    for (int d = 0; d < x->rank; d++) {
        pc.shape[d] = (uint32_t)idx->shape[d];
        pc.xst[d] = (int32_t)xst[d];
    }
    /* Beyond maxStorageBufferRange: windows of dim-0 rows of every operand (row r of the indices
     * only reaches row r of the data unless the axis is 0: no split then). */
    bool sc = is_scatter(n->op);
    int64_t R = sc ? x->shape[0] : idx->shape[0], rows = R;
    const KTensor *ts[3] = {x, idx, sc ? &in[2] : &out[0]};
    for (int k = 0; k < 3 && axis != 0; k++) {
        int64_t st[WN_MAX_RANK];
        kshape_strides(ts[k]->rank, ts[k]->shape, st);
        int64_t r = kx_window_rows(kc, n, ts[k], ts[k]->rank, ts[k]->shape, st);
        if (r < 0) return -1;
        if (r < rows) rows = r;
    }
    for (int64_t r0 = 0; r0 < R; r0 += rows) {
        int64_t r1 = r0 + rows < R ? r0 + rows : R;
        int64_t i0 = r0 < idx->shape[0] ? r0 : idx->shape[0], i1 = r1 < idx->shape[0] ? r1 : idx->shape[0];
        KTensor v[4] = {rows_view(x, r0, r1), rows_view(idx, i0, i1), sc ? rows_view(&in[2], i0, i1) : in[0],
                        rows_view(&out[0], sc ? r0 : i0, sc ? r1 : i1)};
        if (rows == R) v[0] = *x, v[1] = *idx, v[2] = sc ? in[2] : in[0], v[3] = out[0];
        if (v[1].numel == 0) { /* scatter rows past the indices: copy only */
            if (v[0].buffer != v[3].buffer || v[0].offset != v[3].offset) {
                if (kx_copy(kc, n, &v[0], &v[3]) < 0) return -1;
            }
            continue;
        }
        pc.shape[0] = (uint32_t)v[1].shape[0];
        pc.n = (uint32_t)v[1].numel;
        if (index_run(kc, n, "index_elements", v, &v[3], &pc, sizeof pc, &pc.base_src, v[1].numel) < 0) return -1;
    }
    return 0;
}

const KernelFamily kfam_index_elements = {elements_check, elements_record, 0};

/* ---- gatherND / scatterND -------------------------------------------------------------------- */

static int nd_check(KernelCtx *kc, const Node *n) {
    if (index_check_shader(kc, n, "index_nd") < 0) return -1;
    const Value *idx = n->inputs[1];
    if (idx->rank < 1 || !dim_is_static(idx->shape[idx->rank - 1]) || idx->shape[idx->rank - 1].v > n->inputs[0]->rank ||
        idx->shape[idx->rank - 1].v > 8) {
        diag_node_error(n, "the last indices dimension must be static and at most the input rank (and 8)");
        return -1;
    }
    return 0;
}

static int nd_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    if (too_big(n, in, n->n_inputs) || too_big(n, out, 1)) return -1;
    const KTensor *x = &in[0], *idx = &in[1];
    int k = (int)idx->shape[idx->rank - 1];
    int64_t xst[WN_MAX_RANK];
    kshape_strides(x->rank, x->shape, xst);
    uint64_t inner = kshape_numel(x->rank - k, x->shape + k);
    uint64_t tuples = idx->numel / (k ? (uint64_t)k : 1);
    if (k == 0) tuples = idx->numel ? kshape_numel(idx->rank - 1, idx->shape) : 0;
    uint64_t threads = tuples * inner;
    const KTensor *moved = is_scatter(n->op) ? &in[2] : &out[0];
    if (moved->numel != threads) {
        diag_node_error(n, "%s has %llu elements, %llu expected", is_scatter(n->op) ? "updates" : "output",
                        (unsigned long long)moved->numel, (unsigned long long)threads);
        return -1;
    }
    NdPush pc;
    memset(&pc, 0, sizeof pc);
    pc.n = (uint32_t)threads;
    pc.k = (uint32_t)k;
    pc.inner = (uint32_t)(inner ? inner : 1);
    for (int d = 0; d < k; d++) {
        pc.dims[d] = (uint32_t)x->shape[d];
        pc.xst[d] = (int32_t)xst[d];
    }
    return index_run(kc, n, "index_nd", in, out, &pc, sizeof pc, &pc.base_src, threads);
}

const KernelFamily kfam_index_nd = {nd_check, nd_record, 0};
