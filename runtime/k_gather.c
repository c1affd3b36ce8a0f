/* k_gather.c - the kernel families of op family gather: `gather` (gather.comp, clamped indices;
 * 4-bit data is gathered as bytes when rows are byte-aligned; beyond maxStorageBufferRange split
 * over windows of data slices and of output elements), `index_elements` (gatherElements,
 * scatterElements) and `index_nd` (gatherND, scatterND) for every data dtype (moved by element size) and index dtypes int32,
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
    uint64_t row = t->shape[0] ? t->numel / (uint64_t)t->shape[0] : 0;
    return kx_rows_view(t, (uint64_t)r0, (uint64_t)(r1 - r0), row);
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

/* ---- gather (gather.comp) ------------------------------------------------------------------------------- */

typedef struct {
    uint32_t n, inner, axis_dim, n_idx;
    uint32_t out0, s0, s1; /* output elements [out0, out0 + n), data slices [s0, s1) bound */
    int32_t base_in, base_idx, base_out;
} GatherPush;

static int gather_check(KernelCtx *kc, const Node *n) {
    if (n->n_inputs < 2 || !n->inputs[0] || !n->inputs[1] || n->n_outputs != 1) {
        diag_node_error(n, "gather needs input and indices");
        return -1;
    }
    DType dt = n->inputs[0]->dtype;
    const Value *x = n->inputs[0];
    if (dtype_bits(dt) < 8) {
        /* 4-bit data (packed two per byte) is gathered as bytes when every gathered slice starts
         * on a byte: the axis is not the last one and the last dim is even and static. */
        int axis = (int)node_int(n, "axis", 0);
        bool bytewise = axis < x->rank - 1 && dim_is_static(x->shape[x->rank - 1]) && x->shape[x->rank - 1].v % 2 == 0;
        if (!bytewise) {
            diag_error("no kernel for op %s (dtype %s, odd or gathered last dim) at node %s", op_name(n->op),
                       dtype_name(dt), node_display_name(n));
            return -1;
        }
        dt = DT_U8;
    }
    return kcheck_shader(kc, n, "gather", kx_size_class(dt), n->inputs[1]->dtype);
}

/* A 4-bit tensor with an even last dim viewed as bytes: [..., d] -> uint8 [..., d/2]. */
static KTensor nibbles_as_bytes(const KTensor *t) {
    KTensor b = *t;
    if (dtype_bits(t->dtype) == 4) {
        b.dtype = DT_U8;
        b.shape[b.rank - 1] /= 2;
        b.numel /= 2;
    }
    return b;
}

/* Data viewed as S = outer * axis_dim slices of `inner` elements.  Tensors beyond one binding are
 * split: windows of whole slices of the data times windows of output elements, one dispatch each
 * (a dispatch writes only the outputs whose slice lies in its data window). */
static int gather_record(KernelCtx *kc, const Node *n, const KTensor *in_orig, const KTensor *out_orig) {
    const KTensor in[2] = {nibbles_as_bytes(&in_orig[0]), in_orig[1]};
    const KTensor out[1] = {nibbles_as_bytes(&out_orig[0])};
    int axis = (int)node_int(n, "axis", 0);
    if (axis < 0 || axis >= in[0].rank) {
        diag_node_error(n, "axis %d out of range", axis);
        return -1;
    }
    if (in[0].numel > UINT32_MAX || out[0].numel > UINT32_MAX || in[1].numel > INT32_MAX) {
        diag_node_error(n, "too many elements for the gather kernel (data %llu, output %llu)",
                        (unsigned long long)in[0].numel, (unsigned long long)out[0].numel);
        return -1;
    }
    int64_t inner = 1;
    for (int d = axis + 1; d < in[0].rank; d++) inner *= in[0].shape[d];
    int64_t slices = inner ? (int64_t)in[0].numel / inner : 0;
    if (out[0].numel == 0 || slices == 0) return 0;
    GatherPush pc = {.inner = (uint32_t)inner, .axis_dim = (uint32_t)in[0].shape[axis], .n_idx = (uint32_t)in[1].numel};
    int64_t dview[2] = {slices, inner}, dst[2] = {inner, 1}, oview[1] = {(int64_t)out[0].numel}, ost[1] = {1};
    int64_t srows = kx_window_rows(kc, n, &in[0], 2, dview, dst);
    int64_t orows = kx_window_rows(kc, n, &out[0], 1, oview, ost);
    if (srows < 0 || orows < 0) return -1;
    int sh = kc_find_shader(kc, n, "gather", kx_size_class(in[0].dtype), in[1].dtype);
    if (sh < 0) return -1;
    KBind b[3];
    uint32_t base;
    if (kc_bind_window(kc, n, &in[1], 0, in[1].numel ? (int64_t)in[1].numel - 1 : 0, false, &b[1], &base) < 0) return -1;
    pc.base_idx = (int32_t)base;
    uint32_t spec[1] = {KX_WG};
    for (int64_t o0 = 0; o0 < oview[0]; o0 += orows) {
        int64_t o1 = o0 + orows < oview[0] ? o0 + orows : oview[0];
        if (kc_bind_window(kc, n, &out[0], o0, o1 - 1, true, &b[2], &base) < 0) return -1;
        pc.base_out = (int32_t)base;
        pc.out0 = (uint32_t)o0;
        pc.n = (uint32_t)(o1 - o0);
        for (int64_t s0 = 0; s0 < slices; s0 += srows) {
            int64_t s1 = s0 + srows < slices ? s0 + srows : slices;
            if (kc_bind_window(kc, n, &in[0], s0 * inner, s1 * inner - 1, false, &b[0], &base) < 0) return -1;
            pc.base_in = (int32_t)base;
            pc.s0 = (uint32_t)s0;
            pc.s1 = (uint32_t)s1;
            if (kc_dispatch_1d(kc, n, sh, spec, 1, &pc, sizeof pc, b, 3, (pc.n + KX_WG - 1) / KX_WG) < 0) return -1;
        }
    }
    return 0;
}

const KernelFamily kfam_gather = {gather_check, gather_record, 0};
