/* ops_gather.c - ONNX indexing ops: Gather (negative constant indices normalized), GatherElements,
 * GatherND (batch_dims via prepended batch coordinates), ScatterND, ScatterElements (reductions in
 * ops_scatter_reduce.c), Where, Trilu -> triangular, CumSum -> cumulativeSum. */
#include "import_internal.h"

/* A node op(inputs...) with an optional "axis" option normalized against input 0's rank. */
static int indexed(OnnxCtx *c, OpId op, int n_inputs, bool has_axis, Value *indices) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    Node *n = onnx_imp_node(c, op);
    node_add_input(c->g, n, x);
    for (int i = 1; i < n_inputs; i++) {
        Value *v = (i == 1 && indices) ? indices : onnx_in_req(c, i);
        if (!v) return -1;
        node_add_input(c->g, n, v);
    }
    if (has_axis) {
        int64_t axis;
        if (onnx_imp_axis(c, onnx_attr_int(c, "axis", 0), x->rank, &axis) < 0) return -1;
        node_set_uint(c->g, n, "axis", axis);
    }
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}

/* Constant indices with negative entries -> a copy counting from the end (range-checked). */
static Value *normalize_indices(OnnxCtx *c, Value *idx, Dim d) {
    if (!idx || !(idx->flags & VF_CONST) || !dtype_is_signed(idx->dtype) || !dim_is_static(d)) return idx;
    uint64_t n = value_max_elements(idx);
    if (dtype_storage_bytes(idx->dtype, n) > idx->nbytes) {
        onnx_imp_error(c, "indices constant is too short");
        return NULL;
    }
    bool neg = false;
    for (uint64_t i = 0; i < n; i++) {
        int64_t k = onnx_const_elem_i64(idx, i);
        if (k < -d.v || k >= d.v) {
            onnx_imp_error(c, "index %lld out of range for dimension %lld", (long long)k, (long long)d.v);
            return NULL;
        }
        neg |= k < 0;
    }
    if (!neg) return idx;
    int64_t shape[WN_MAX_RANK];
    for (int i = 0; i < idx->rank; i++) shape[i] = idx->shape[i].v;
    void *data;
    Value *v = onnx_const_new(c, idx->dtype, idx->rank, shape, &data);
    for (uint64_t i = 0; v && i < n; i++) {
        int64_t k = onnx_const_elem_i64(idx, i);
        onnx_store_elem_f64(idx->dtype, data, i, (double)(k < 0 ? k + d.v : k));
    }
    return v;
}

int onnx_Gather(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0), *idx = onnx_in_req(c, 1);
    if (!x || !idx) return -1;
    int64_t axis;
    if (onnx_imp_axis(c, onnx_attr_int(c, "axis", 0), x->rank, &axis) < 0) return -1;
    idx = normalize_indices(c, idx, x->shape[axis]);
    if (!idx) return -1;
    return indexed(c, OP_GATHER, 2, true, idx);
}

int onnx_GatherElements(OnnxCtx *c) { return indexed(c, OP_GATHER_ELEMENTS, 2, true, NULL); }

/* GatherND with batch_dims = nb > 0: the batch coordinates are prepended to every index tuple
 * (a constant of shape indices[:-1] + [nb], concatenated on the last axis), which makes it a plain
 * gatherND over the whole data tensor with the same output shape. */
static Value *batch_indices(OnnxCtx *c, const Value *x, Value *idx, int64_t nb) {
    int r = idx->rank;
    if (nb < 0 || nb >= r || nb >= x->rank) {
        onnx_imp_error(c, "batch_dims %lld must be below the ranks of data and indices", (long long)nb);
        return NULL;
    }
    int64_t shape[WN_MAX_RANK];
    for (int i = 0; i < r; i++) {
        if (!dim_is_static(idx->shape[i]) || (i < nb && !dim_equal(idx->shape[i], x->shape[i]))) {
            onnx_imp_error(c, "batch_dims needs static indices dims equal to the data's batch dims");
            return NULL;
        }
        shape[i] = idx->shape[i].v;
    }
    shape[r - 1] = nb;
    void *data;
    Value *coords = onnx_const_new(c, idx->dtype, r, shape, &data);
    if (!coords) return NULL;
    uint64_t tuples = value_max_elements(coords) / (uint64_t)nb;
    for (uint64_t t = 0; t < tuples; t++) { /* t in row-major order over indices[:-1] */
        uint64_t rest = t;
        for (int d = r - 2; d >= 0; d--) {
            uint64_t coord = rest % (uint64_t)shape[d];
            rest /= (uint64_t)shape[d];
            if (d < nb) onnx_store_elem_f64(idx->dtype, data, t * (uint64_t)nb + (uint64_t)d, (double)coord);
        }
    }
    Node *n = onnx_imp_node(c, OP_CONCAT);
    node_add_input(c->g, n, coords);
    node_add_input(c->g, n, idx);
    node_set_uint(c->g, n, "axis", (uint64_t)(r - 1));
    return onnx_imp_finish(c, n);
}

int onnx_GatherND(OnnxCtx *c) {
    int64_t nb = onnx_attr_int(c, "batch_dims", 0);
    if (nb == 0) return indexed(c, OP_GATHER_ND, 2, false, NULL);
    Value *x = onnx_in_req(c, 0), *idx = onnx_in_req(c, 1);
    if (!x || !idx) return -1;
    if (idx->dtype != DT_I64 && idx->dtype != DT_I32) return onnx_imp_error(c, "indices must be int32 or int64");
    idx = batch_indices(c, x, idx, nb);
    return idx ? indexed(c, OP_GATHER_ND, 2, false, idx) : -1;
}

int onnx_ScatterND(OnnxCtx *c) {
    int r = onnx_scatter_reduce(c, true);
    return r ? (r < 0 ? -1 : 0) : indexed(c, OP_SCATTER_ND, 3, false, NULL);
}

int onnx_ScatterElements(OnnxCtx *c) {
    int r = onnx_scatter_reduce(c, false);
    return r ? (r < 0 ? -1 : 0) : indexed(c, OP_SCATTER_ELEMENTS, 3, true, NULL);
}

int onnx_Where(OnnxCtx *c) { return indexed(c, OP_WHERE, 3, false, NULL); }

int onnx_Trilu(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    double k = 0;
    if (onnx_in_opt(c, 1) && onnx_imp_const_scalar(c, onnx_in_opt(c, 1), "k", &k) < 0) return -1;
    if (k < INT32_MIN || k > INT32_MAX) return onnx_imp_error(c, "k = %.0f out of range", k);
    Node *n = onnx_imp_node(c, OP_TRIANGULAR);
    node_add_input(c->g, n, x);
    node_set_bool(c->g, n, "upper", onnx_attr_int(c, "upper", 1) != 0);
    node_set_int(c->g, n, "diagonal", (int64_t)k);
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}

int onnx_CumSum(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    double a;
    int64_t axis;
    if (!x || onnx_imp_const_scalar(c, onnx_in_req(c, 1), "axis", &a) < 0) return -1;
    if (a < -WN_MAX_RANK || a > WN_MAX_RANK || onnx_imp_axis(c, (int64_t)a, x->rank, &axis) < 0)
        return onnx_imp_error(c, "axis %.0f out of range", a);
    Node *n = onnx_imp_node(c, OP_CUMULATIVE_SUM);
    node_add_input(c->g, n, x);
    node_set_uint(c->g, n, "axis", axis);
    node_set_bool(c->g, n, "exclusive", onnx_attr_int(c, "exclusive", 0) != 0);
    node_set_bool(c->g, n, "reversed", onnx_attr_int(c, "reverse", 0) != 0);
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}
