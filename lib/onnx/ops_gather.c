/* ops_gather.c - ONNX indexing ops: Gather (negative constant indices normalized), GatherElements,
 * GatherND, ScatterND, ScatterElements, Where, Trilu -> triangular, CumSum -> cumulativeSum. */
#include <string.h>

#include "import_internal.h"

/* A node op(inputs...) with an optional "axis" option normalized against input 0's rank. */
static int indexed(OnnxCtx *c, OpId op, int n_inputs, bool has_axis, Value *indices) {
    Value *x = in_req(c, 0);
    if (!x) return -1;
    Node *n = imp_node(c, op);
    node_add_input(c->g, n, x);
    for (int i = 1; i < n_inputs; i++) {
        Value *v = (i == 1 && indices) ? indices : in_req(c, i);
        if (!v) return -1;
        node_add_input(c->g, n, v);
    }
    if (has_axis) {
        int64_t axis;
        if (imp_axis(c, onnx_attr_int(c, "axis", 0), x->rank, &axis) < 0) return -1;
        node_set_uint(c->g, n, "axis", axis);
    }
    return imp_result(c, imp_finish(c, n));
}

/* Constant indices with negative entries -> a copy counting from the end (range-checked). */
static Value *normalize_indices(OnnxCtx *c, Value *idx, Dim d) {
    if (!idx || !(idx->flags & VF_CONST) || !dtype_is_signed(idx->dtype) || !dim_is_static(d)) return idx;
    uint64_t n = value_max_elements(idx);
    if (dtype_storage_bytes(idx->dtype, n) > idx->nbytes) {
        imp_error(c, "indices constant is too short");
        return NULL;
    }
    bool neg = false;
    for (uint64_t i = 0; i < n; i++) {
        int64_t k = const_elem_i64(idx, i);
        if (k < -d.v || k >= d.v) {
            imp_error(c, "index %lld out of range for dimension %lld", (long long)k, (long long)d.v);
            return NULL;
        }
        neg |= k < 0;
    }
    if (!neg) return idx;
    int64_t shape[WN_MAX_RANK];
    for (int i = 0; i < idx->rank; i++) shape[i] = idx->shape[i].v;
    void *data;
    Value *v = const_new(c, idx->dtype, idx->rank, shape, &data);
    for (uint64_t i = 0; v && i < n; i++) {
        int64_t k = const_elem_i64(idx, i);
        store_elem_f64(idx->dtype, data, i, (double)(k < 0 ? k + d.v : k));
    }
    return v;
}

int onnx_Gather(OnnxCtx *c) {
    Value *x = in_req(c, 0), *idx = in_req(c, 1);
    if (!x || !idx) return -1;
    int64_t axis;
    if (imp_axis(c, onnx_attr_int(c, "axis", 0), x->rank, &axis) < 0) return -1;
    idx = normalize_indices(c, idx, x->shape[axis]);
    if (!idx) return -1;
    return indexed(c, OP_GATHER, 2, true, idx);
}

int onnx_GatherElements(OnnxCtx *c) { return indexed(c, OP_GATHER_ELEMENTS, 2, true, NULL); }

int onnx_GatherND(OnnxCtx *c) {
    if (onnx_attr_int(c, "batch_dims", 0) != 0) return imp_error(c, "batch_dims != 0 is not supported");
    return indexed(c, OP_GATHER_ND, 2, false, NULL);
}

static int no_reduction(OnnxCtx *c) {
    const char *r = onnx_attr_string(c, "reduction", "none");
    return strcmp(r, "none") ? imp_error(c, "reduction '%s' is not supported", r) : 0;
}

int onnx_ScatterND(OnnxCtx *c) {
    if (no_reduction(c) < 0) return -1;
    return indexed(c, OP_SCATTER_ND, 3, false, NULL);
}

int onnx_ScatterElements(OnnxCtx *c) {
    if (no_reduction(c) < 0) return -1;
    return indexed(c, OP_SCATTER_ELEMENTS, 3, true, NULL);
}

int onnx_Where(OnnxCtx *c) { return indexed(c, OP_WHERE, 3, false, NULL); }

int onnx_Trilu(OnnxCtx *c) {
    Value *x = in_req(c, 0);
    if (!x) return -1;
    double k = 0;
    if (in_opt(c, 1) && imp_const_scalar(c, in_opt(c, 1), "k", &k) < 0) return -1;
    if (k < INT32_MIN || k > INT32_MAX) return imp_error(c, "k = %.0f out of range", k);
    Node *n = imp_node(c, OP_TRIANGULAR);
    node_add_input(c->g, n, x);
    node_set_bool(c->g, n, "upper", onnx_attr_int(c, "upper", 1) != 0);
    node_set_int(c->g, n, "diagonal", (int64_t)k);
    return imp_result(c, imp_finish(c, n));
}

int onnx_CumSum(OnnxCtx *c) {
    Value *x = in_req(c, 0);
    double a;
    int64_t axis;
    if (!x || imp_const_scalar(c, in_req(c, 1), "axis", &a) < 0) return -1;
    if (a < -WN_MAX_RANK || a > WN_MAX_RANK || imp_axis(c, (int64_t)a, x->rank, &axis) < 0)
        return imp_error(c, "axis %.0f out of range", a);
    Node *n = imp_node(c, OP_CUMULATIVE_SUM);
    node_add_input(c->g, n, x);
    node_set_uint(c->g, n, "axis", axis);
    node_set_bool(c->g, n, "exclusive", onnx_attr_int(c, "exclusive", 0) != 0);
    node_set_bool(c->g, n, "reversed", onnx_attr_int(c, "reverse", 0) != 0);
    return imp_result(c, imp_finish(c, n));
}
