/* ops_common.c - helpers shared by the ONNX op handlers: inputs/outputs and errors of the node
 * being imported, axis normalization, reading constant operands (bounds-checked), making constants,
 * and emitting IR nodes (inserted with shape inference, then constant-folded when possible, also
 * through symbolic dims: prefix_fold.c). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "import_internal.h"

/* ---- inputs, outputs, errors ------------------------------------------------------------------ */

int onnx_imp_error(const OnnxCtx *c, const char *fmt, ...) {
    char prefix[512];
    snprintf(prefix, sizeof prefix, "node %s (%s): ", c->origin, c->node->op_type ? c->node->op_type : "?");
    va_list ap;
    va_start(ap, fmt);
    diag_verror(prefix, fmt, ap);
    va_end(ap);
    return -1;
}

Value *onnx_in_raw(const OnnxCtx *c, int i) { return (i >= 0 && i < c->n_in) ? c->in[i] : NULL; }

Value *onnx_in_opt(const OnnxCtx *c, int i) {
    Value *v = onnx_in_raw(c, i);
    if (onnx_sx_is_symbolic(v)) v = c->in[i] = onnx_sx_materialize(c->g, c->origin, v);
    return v;
}

Value *onnx_in_req(const OnnxCtx *c, int i) {
    Value *v = onnx_in_opt(c, i);
    if (!v) onnx_imp_error(c, "missing required input %d", i);
    return v;
}

bool onnx_imp_wants_out(const OnnxCtx *c, int i) {
    return i >= 0 && i < c->n_out && c->node->output[i] && c->node->output[i][0];
}

int onnx_imp_set_out(OnnxCtx *c, int i, Value *v) {
    if (i >= 0 && i < c->n_out) c->out[i] = v;
    return 0;
}

int onnx_imp_result(OnnxCtx *c, Value *v) {
    onnx_imp_set_out(c, 0, v);
    return v ? 0 : -1;
}

DType onnx_elem_dtype(int code) {
    if (code == 9) return DT_U8;   /* bool */
    if (code == 16) return DT_F32; /* bfloat16 loads as float32 */
    return dtype_from_onnx(code);
}

int onnx_imp_axis(const OnnxCtx *c, int64_t axis, int rank, int64_t *out) {
    if (axis < -(int64_t)rank || axis >= rank)
        return onnx_imp_error(c, "axis %lld out of range for rank %d", (long long)axis, rank);
    *out = axis < 0 ? axis + rank : axis;
    return 0;
}

int onnx_imp_axes(const OnnxCtx *c, int64_t *axes, int n, int rank) {
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        if (onnx_imp_axis(c, axes[i], rank, &axes[i]) < 0) return -1;
        if (seen & (1u << axes[i])) return onnx_imp_error(c, "axis %lld repeated", (long long)axes[i]);
        seen |= 1u << axes[i];
    }
    return 0;
}

/* ---- constant element access (the evaluator's element codecs, so rounding matches folding) ---- */

static Ten view(const Value *v, void *data) {
    Ten t = {.dt = v->dtype, .rank = 0, .count = 0, .data = data};
    return t;
}

double onnx_const_elem_f64(const Value *v, uint64_t i) {
    Ten t = view(v, (void *)v->data);
    return ten_getf(&t, (int64_t)i);
}

int64_t onnx_const_elem_i64(const Value *v, uint64_t i) {
    Ten t = view(v, (void *)v->data);
    if (v->dtype == DT_U64) {
        uint64_t x = (uint64_t)ten_geti(&t, (int64_t)i);
        return x > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)x;
    }
    return ten_geti(&t, (int64_t)i);
}

void onnx_store_elem_f64(DType dt, void *buf, uint64_t i, double x) {
    Ten t = {.dt = dt, .data = buf};
    ten_setf(&t, (int64_t)i, x);
}

/* ---- reading constant operands ---------------------------------------------------------------- */

/* Checks that v is a constant of rank <= 1 with at most max elements; returns the count. */
static int64_t const_count(const OnnxCtx *c, const Value *v, const char *what, int64_t max) {
    if (!v) return onnx_imp_error(c, "%s is missing", what);
    if (!(v->flags & VF_CONST) || (!v->data && v->nbytes))
        return onnx_imp_error(c, "%s must be a constant (computed at conversion time), got tensor '%s'", what,
                         value_display_name(v));
    if (v->rank > 1) return onnx_imp_error(c, "%s must be a scalar or 1-D, got rank %d", what, v->rank);
    int64_t n = v->rank ? v->shape[0].v : 1;
    if (n < 0 || n > max) return onnx_imp_error(c, "%s has %lld values (at most %lld)", what, (long long)n, (long long)max);
    if (dtype_storage_bytes(v->dtype, (uint64_t)n) > v->nbytes)
        return onnx_imp_error(c, "%s: constant data is too short", what);
    return n;
}

int onnx_imp_const_ints(const OnnxCtx *c, const Value *v, const char *what, int64_t *out, int max) {
    int64_t n = const_count(c, v, what, max);
    if (n < 0) return -1;
    if (!dtype_is_int(v->dtype)) return onnx_imp_error(c, "%s must be an integer tensor, got %s", what, dtype_name(v->dtype));
    for (int64_t i = 0; i < n; i++) out[i] = onnx_const_elem_i64(v, (uint64_t)i);
    return (int)n;
}

int onnx_imp_const_scalar(const OnnxCtx *c, const Value *v, const char *what, double *out) {
    int64_t n = const_count(c, v, what, 1);
    if (n < 0) return -1;
    if (n != 1) return onnx_imp_error(c, "%s must hold one value", what);
    *out = onnx_const_elem_f64(v, 0);
    return 0;
}

/* ---- constants ---------------------------------------------------------------------------------- */

int64_t onnx_imp_elements(const OnnxCtx *c, int rank, const int64_t *shape) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0 || (shape[i] && n > INT32_MAX / shape[i]))
            return onnx_imp_error(c, "tensor shape too large or negative (dimension %d = %lld)", i, (long long)shape[i]);
        n *= shape[i];
    }
    return n;
}

Value *onnx_const_new(OnnxCtx *c, DType dt, int rank, const int64_t *shape, void **data) {
    if (rank < 0 || rank > WN_MAX_RANK) {
        onnx_imp_error(c, "constant rank %d exceeds %d", rank, WN_MAX_RANK);
        return NULL;
    }
    int64_t n = onnx_imp_elements(c, rank, shape);
    if (n < 0) return NULL;
    uint64_t nbytes = dtype_storage_bytes(dt, (uint64_t)n);
    void *buf = graph_alloc(c->g, nbytes ? nbytes : 1);
    *data = buf;
    return graph_add_const(c->g, "const", dt, rank, shape, buf, nbytes);
}

Value *onnx_const_scalar(OnnxCtx *c, DType dt, double x) {
    void *data;
    Value *v = onnx_const_new(c, dt, 0, NULL, &data);
    if (v) onnx_store_elem_f64(dt, data, 0, x);
    return v;
}

Value *onnx_const_i64(OnnxCtx *c, int n, const int64_t *vals) {
    int64_t shape[1] = {n};
    void *data;
    Value *v = onnx_const_new(c, DT_I64, 1, shape, &data);
    if (v && n) memcpy(data, vals, sizeof *vals * (size_t)n);
    return v;
}

Dim onnx_dims_product_of(OnnxCtx *c, const Dim *dims, int n) {
    Dim d = dim_static(1);
    for (int i = 0; i < n; i++) d = dim_mul(c->g, d, dims[i]);
    return d;
}

Dim onnx_dims_product(OnnxCtx *c, const Value *x, int from, int to) {
    if (to > x->rank) to = x->rank;
    return from < to ? onnx_dims_product_of(c, x->shape + from, to - from) : dim_static(1);
}

/* ---- emitting ------------------------------------------------------------------------------------ */

Node *onnx_imp_node(OnnxCtx *c, OpId op) { return graph_new_node(c->g, op, c->origin); }

int onnx_imp_insert(OnnxCtx *c, Node *n) {
    int twin = onnx_pf_prepare(c->pf, c->g, n);
    if (twin < 0) return -1;
    if (graph_insert_node(c->g, n) < 0) {
        if (!diag_has_error()) onnx_imp_error(c, "cannot build %s", op_name(n->op));
        return -1;
    }
    int folded = eval_fold_node(c->g, n);
    if (folded < 0) return -1;
    if (!folded && twin && onnx_pf_twin(c->pf, c->g, n) < 0) return -1;
    for (int i = 0; i < n->n_outputs; i++) {
        const Value *v = n->outputs[i];
        for (int d = 0; d < v->rank; d++)
            if (dim_is_static(v->shape[d]) && v->shape[d].v <= 0 && !(v->flags & VF_CONST)) {
                char buf[160];
                return onnx_imp_error(c, "zero-size tensor %s is not representable in WebNN",
                                 value_format_type(c->g, v, buf, sizeof buf));
            }
    }
    return 0;
}

Value *onnx_imp_finish(OnnxCtx *c, Node *n) { return onnx_imp_insert(c, n) < 0 ? NULL : n->outputs[0]; }

Value *onnx_emit_unary(OnnxCtx *c, OpId op, Value *x) {
    if (!x) return NULL;
    Node *n = onnx_imp_node(c, op);
    node_add_input(c->g, n, x);
    return onnx_imp_finish(c, n);
}

Value *onnx_emit_binary(OnnxCtx *c, OpId op, Value *a, Value *b) {
    if (!a || !b) return NULL;
    Node *n = onnx_imp_node(c, op);
    node_add_input(c->g, n, a);
    node_add_input(c->g, n, b);
    return onnx_imp_finish(c, n);
}

Value *onnx_emit_cast(OnnxCtx *c, Value *x, DType dt) {
    if (!x) return NULL;
    if (x->dtype == dt) return x;
    Node *n = onnx_imp_node(c, OP_CAST);
    node_add_input(c->g, n, x);
    node_set_dtype(c->g, n, "to", dt);
    return onnx_imp_finish(c, n);
}

Value *onnx_emit_reshape(OnnxCtx *c, Value *x, int rank, const Dim *shape) {
    if (!x) return NULL;
    if (rank < 0 || rank > WN_MAX_RANK) {
        onnx_imp_error(c, "reshape to rank %d exceeds %d", rank, WN_MAX_RANK);
        return NULL;
    }
    bool same = rank == x->rank, stat = true;
    for (int i = 0; i < rank; i++) {
        if (i < x->rank && !dim_equal(shape[i], x->shape[i])) same = false;
        if (!dim_is_static(shape[i])) stat = false;
    }
    if (same) return x;
    if ((x->flags & VF_CONST) && stat) {
        int64_t s[WN_MAX_RANK];
        for (int i = 0; i < rank; i++) s[i] = shape[i].v;
        int64_t n = onnx_imp_elements(c, rank, s);
        if (n < 0) return NULL;
        if (dtype_storage_bytes(x->dtype, (uint64_t)n) != dtype_storage_bytes(x->dtype, value_max_elements(x))) {
            onnx_imp_error(c, "cannot reshape %s (%llu elements) to %lld elements", value_display_name(x),
                      (unsigned long long)value_max_elements(x), (long long)n);
            return NULL;
        }
        return graph_add_const(c->g, x->name, x->dtype, rank, s, x->data, x->nbytes);
    }
    Node *n = onnx_imp_node(c, OP_RESHAPE);
    node_add_input(c->g, n, x);
    node_set_dims(c->g, n, "newShape", rank, shape);
    return onnx_imp_finish(c, n);
}

Value *onnx_emit_transpose(OnnxCtx *c, Value *x, const int64_t *perm) {
    if (!x) return NULL;
    bool ident = true;
    for (int i = 0; i < x->rank; i++)
        if (perm[i] != i) ident = false;
    if (ident) return x;
    Node *n = onnx_imp_node(c, OP_TRANSPOSE);
    node_add_input(c->g, n, x);
    node_set_ints(c->g, n, "permutation", x->rank, perm);
    return onnx_imp_finish(c, n);
}

Value *onnx_emit_reduce(OnnxCtx *c, OpId op, Value *x, int n_axes, const int64_t *axes, bool keep) {
    if (!x) return NULL;
    Node *n = onnx_imp_node(c, op);
    node_add_input(c->g, n, x);
    node_set_ints(c->g, n, "axes", n_axes, axes);
    node_set_bool(c->g, n, "keepDimensions", keep);
    return onnx_imp_finish(c, n);
}
