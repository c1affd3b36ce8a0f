/* infer_gather.c - shape inference for indexed access: gather, gatherElements, gatherND,
 * scatterElements and scatterND (indices int32/uint32/int64).
 * Family gather of ops.def: its op-indexed table is infer_gather_rules. */
#include <inttypes.h>

#include "infer_internal.h"

static bool check_out_rank(const Node *n, int rank) {
    if (rank <= WN_MAX_RANK) return true;
    diag_node_error(n, "output rank %d exceeds the supported maximum %d", rank, WN_MAX_RANK);
    return false;
}

static void append(TensorDesc *d, int count, const Dim *dims) {
    for (int i = 0; i < count; i++) d->shape[d->rank++] = dims[i];
}

/* Common prologue: input dtype, rank >= 1, indices dtype, axis (when the op has one). */
static bool check_indexed(const Node *n, bool has_axis, int64_t *axis) {
    const Value *x = infer_in(n, 0);
    if (!infer_check_dtype(n, 0, DTM_ALL) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_dtype(n, 1, DTM_INDICES))
        return false;
    *axis = node_int(n, "axis", 0);
    return !has_axis || infer_check_axis(n, "axis", *axis, x->rank);
}

static int infer_gather(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0), *idx = infer_in(n, 1);
    int64_t axis;
    if (!check_indexed(n, true, &axis) || !check_out_rank(n, x->rank - 1 + idx->rank)) return -1;
    TensorDesc *d = &out[0];
    d->dtype = x->dtype;
    d->rank = 0;
    append(d, (int)axis, x->shape);
    append(d, idx->rank, idx->shape);
    append(d, x->rank - (int)axis - 1, x->shape + axis + 1);
    return 1;
}

/* indices (and updates) must match the input's shape except along `axis`. */
static bool check_elements_shape(Graph *g, const Node *n, int slot, int64_t axis) {
    const Value *x = infer_in(n, 0), *v = infer_in(n, slot);
    if (!infer_check_rank(n, slot, x->rank, x->rank)) return false;
    for (int i = 0; i < x->rank; i++) {
        if (i == axis || dim_equal(v->shape[i], x->shape[i])) continue;
        char a[256], b[256];
        diag_node_error(n, "operand %d (%s) shape %s must match the input shape %s except at axis %" PRId64, slot,
                        value_display_name(v), infer_shape_str(g, v->rank, v->shape, a, sizeof a),
                        infer_shape_str(g, x->rank, x->shape, b, sizeof b), axis);
        return false;
    }
    return true;
}

static int infer_gather_elements(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    int64_t axis;
    if (!check_indexed(n, true, &axis) || !check_elements_shape(g, n, 1, axis)) return -1;
    infer_desc_of(&out[0], infer_in(n, 1));
    out[0].dtype = infer_in(n, 0)->dtype;
    return 1;
}

static int infer_scatter_elements(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *idx = infer_in(n, 1);
    int64_t axis;
    if (!check_indexed(n, true, &axis) || !check_elements_shape(g, n, 1, axis) || !infer_check_same_dtype(n, 2, 0) ||
        !infer_check_shape(g, n, 2, idx->rank, idx->shape))
        return -1;
    infer_desc_of(&out[0], infer_in(n, 0));
    return 1;
}

/* The last indices dim k (static, 1..rank) selects the first k input dims.  Fills the shape
 * indices[:-1] + input[k:] into `d` and returns false with a diagnostic on error. */
static bool nd_shape(Graph *g, const Node *n, TensorDesc *d) {
    const Value *x = infer_in(n, 0), *idx = infer_in(n, 1);
    if (!infer_check_rank(n, 1, 1, WN_MAX_RANK)) return false;
    Dim k = idx->shape[idx->rank - 1];
    if (!infer_need_static(n, k, "last indices dimension")) return false;
    if (k.v < 1 || k.v > x->rank) {
        diag_node_error(n, "last indices dimension %" PRId64 " must be 1..%d (the input rank)", k.v, x->rank);
        return false;
    }
    if (!check_out_rank(n, idx->rank - 1 + x->rank - (int)k.v)) return false;
    d->dtype = x->dtype;
    d->rank = 0;
    append(d, idx->rank - 1, idx->shape);
    append(d, x->rank - (int)k.v, x->shape + k.v);
    return true;
}

static int infer_gather_nd(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    int64_t axis;
    if (!check_indexed(n, false, &axis) || !nd_shape(g, n, &out[0])) return -1;
    return 1;
}

static int infer_scatter_nd(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    int64_t axis;
    TensorDesc upd;
    if (!check_indexed(n, false, &axis) || !nd_shape(g, n, &upd) || !infer_check_same_dtype(n, 2, 0) ||
        !infer_check_shape(g, n, 2, upd.rank, upd.shape))
        return -1;
    infer_desc_of(&out[0], infer_in(n, 0));
    return 1;
}

const InferRule infer_gather_rules[OP_COUNT] = {
    [OP_GATHER] = {infer_gather},
    [OP_GATHER_ELEMENTS] = {infer_gather_elements},
    [OP_GATHER_ND] = {infer_gather_nd},
    [OP_SCATTER_ELEMENTS] = {infer_scatter_elements},
    [OP_SCATTER_ND] = {infer_scatter_nd},
};
