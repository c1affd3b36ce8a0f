/* ops_const.c - ONNX ops whose result is known at conversion time: Constant, ConstantOfShape,
 * Shape, Size and Range become IR constants.  With symbolic dims, Shape/Size yield symbolic shape
 * values (shape_expr.c), ConstantOfShape of a symbolic shape becomes expand(scalar constant), and
 * Range with a symbolic start/limit a slice of a constant iota (its upper bound long). */
#include <math.h>
#include <string.h>

#include "import_internal.h"

/* "OpType at node X needs constant inputs" unless every present input is a constant. */
static int need_const_inputs(OnnxCtx *c) {
    for (int i = 0; i < c->n_in; i++)
        if (c->in[i] && !(c->in[i]->flags & VF_CONST))
            return onnx_imp_error(c, "%s at node %s needs constant inputs ('%s' is computed at run time)",
                             c->node->op_type, c->origin, value_display_name(c->in[i]));
    return 0;
}

/* Constant from a TensorProto attribute. */
static Value *tensor_const(OnnxCtx *c, const Onnx__TensorProto *t) {
    OnnxTensorData td;
    if (onnx_tensor_read(c->m, c->g, t, &td) < 0) return NULL;
    return graph_add_const(c->g, "const", td.dtype, td.rank, td.shape, td.data, td.nbytes);
}

/* Constant from a list of numbers (value_float(s), value_int(s)). */
static Value *list_const(OnnxCtx *c, DType dt, int rank, size_t n, const float *f, const int64_t *i) {
    if (n > INT32_MAX) {
        onnx_imp_error(c, "constant too large");
        return NULL;
    }
    int64_t shape[1] = {(int64_t)n};
    void *data;
    Value *v = onnx_const_new(c, dt, rank, shape, &data);
    for (size_t k = 0; v && k < n; k++) onnx_store_elem_f64(dt, data, k, f ? f[k] : 0);
    if (v && i && n) memcpy(data, i, sizeof *i * n);
    return v;
}

int onnx_Constant(OnnxCtx *c) {
    const Onnx__NodeProto *np = c->node;
    if (np->n_attribute != 1 || !np->attribute[0] || !np->attribute[0]->name)
        return onnx_imp_error(c, "Constant needs exactly one value attribute");
    const Onnx__AttributeProto *a = np->attribute[0];
    const char *k = a->name;
    Value *v = NULL;
    if (!strcmp(k, "value") && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR && a->t)
        v = tensor_const(c, a->t);
    else if (!strcmp(k, "value_float") && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT)
        v = list_const(c, DT_F32, 0, 1, &a->f, NULL);
    else if (!strcmp(k, "value_floats") && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS)
        v = list_const(c, DT_F32, 1, a->n_floats, a->floats, NULL);
    else if (!strcmp(k, "value_int") && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)
        v = list_const(c, DT_I64, 0, 1, NULL, &a->i);
    else if (!strcmp(k, "value_ints") && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
        v = list_const(c, DT_I64, 1, a->n_ints, NULL, a->ints);
    else if (!strcmp(k, "sparse_value"))
        return onnx_imp_error(c, "sparse constants are not supported");
    else
        return onnx_imp_error(c, "unsupported Constant attribute '%s'", k);
    return onnx_imp_result(c, v);
}

/* expand(scalar fill, shape) for a shape with symbolic entries. */
static Value *fill_expand(OnnxCtx *c, DType dt, double fill, int rank, const Dim *shape) {
    Value *k = onnx_const_scalar(c, dt, fill);
    if (!k) return NULL;
    Node *e = onnx_imp_node(c, OP_EXPAND);
    node_add_input(c->g, e, k);
    node_set_dims(c->g, e, "newShape", rank, shape);
    return onnx_imp_finish(c, e);
}

int onnx_ConstantOfShape(OnnxCtx *c) {
    Dim dims[WN_MAX_RANK];
    int rank = onnx_imp_shape_dims(c, onnx_in_raw(c, 0), "shape", dims, WN_MAX_RANK);
    if (rank < 0) return -1;
    int64_t shape[WN_MAX_RANK];
    bool dynamic = false;
    for (int i = 0; i < rank; i++) {
        if (!dim_is_static(dims[i])) {
            dynamic = true;
            continue;
        }
        shape[i] = dims[i].v;
        if (shape[i] <= 0) return onnx_imp_error(c, "zero-size tensor (dimension %d = %lld) is not representable in WebNN", i, (long long)shape[i]);
    }
    DType dt = DT_F32;
    double fill = 0;
    const Onnx__AttributeProto *a = onnx_attr_find(c, "value");
    if (a) {
        if (a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR || !a->t) return onnx_imp_error(c, "'value' must be a tensor");
        Value *t = tensor_const(c, a->t);
        if (!t) return -1;
        if (value_max_elements(t) != 1) return onnx_imp_error(c, "'value' must hold one element");
        dt = t->dtype;
        fill = onnx_const_elem_f64(t, 0);
    }
    if (dynamic) return onnx_imp_result(c, fill_expand(c, dt, fill, rank, dims));
    if (onnx_imp_elements(c, rank, shape) < 0) return -1;
    void *data;
    Value *v = onnx_const_new(c, dt, rank, shape, &data);
    if (!v) return -1;
    if (fill != 0) {
        uint64_t n = value_max_elements(v);
        for (uint64_t i = 0; i < n; i++) onnx_store_elem_f64(dt, data, i, fill);
    }
    return onnx_imp_result(c, v);
}

int onnx_Shape(OnnxCtx *c) {
    Value *x = onnx_in_raw(c, 0);
    if (!x) return onnx_imp_error(c, "missing required input 0");
    int64_t start = onnx_attr_int(c, "start", 0), end = onnx_attr_int(c, "end", x->rank);
    if (start < 0) start += x->rank;
    if (end < 0) end += x->rank;
    start = start < 0 ? 0 : start > x->rank ? x->rank : start;
    end = end < start ? start : end > x->rank ? x->rank : end;
    if (end == start) return onnx_imp_error(c, "zero-size tensor (empty shape slice) is not representable in WebNN");
    return onnx_imp_result(c, onnx_sx_new(c, DT_I64, 1, (int)(end - start), x->shape + start));
}

int onnx_Size(OnnxCtx *c) {
    Value *x = onnx_in_raw(c, 0);
    if (!x) return onnx_imp_error(c, "missing required input 0");
    Dim n = onnx_dims_product(c, x, 0, x->rank);
    return onnx_imp_result(c, onnx_sx_new(c, DT_I64, 0, 1, &n));
}

/* Range with a symbolic start or limit: slice(iota * delta (+ start), sizes [count]). */
static int symbolic_range(OnnxCtx *c, Value *s, Value *l, Value *d) {
    Dim start, limit;
    double delta;
    if (onnx_imp_shape_dims(c, s, "start", &start, 1) != 1 || onnx_imp_shape_dims(c, l, "limit", &limit, 1) != 1 ||
        onnx_imp_const_scalar(c, d, "delta", &delta) < 0)
        return -1;
    if (delta != 1) return onnx_imp_error(c, "Range with a symbolic start or limit needs delta 1 (got %g)", delta);
    Dim count = dim_sub(c->g, limit, start);
    char buf[128];
    if (dim_is_static(count) || count.v <= 0 || count.v > INT32_MAX)
        return onnx_imp_error(c, "Range of %s elements has no usable upper bound", dim_format(c->g, count, buf, sizeof buf));
    DType dt = l->dtype;
    int64_t shape[1] = {count.v};
    void *data;
    Value *iota = onnx_const_new(c, dt, 1, shape, &data);
    if (!iota) return -1;
    int64_t base = dim_is_static(start) ? start.v : 0;
    for (int64_t i = 0; i < count.v; i++) onnx_store_elem_f64(dt, data, (uint64_t)i, (double)(base + i));
    Node *sl = onnx_imp_node(c, OP_SLICE);
    node_add_input(c->g, sl, iota);
    int64_t zero[1] = {0};
    node_set_ints(c->g, sl, "starts", 1, zero);
    node_set_dims(c->g, sl, "sizes", 1, &count);
    Value *v = onnx_imp_finish(c, sl);
    if (v && !dim_is_static(start)) v = onnx_emit_binary(c, OP_ADD, v, onnx_in_req(c, 0));
    return onnx_imp_result(c, v);
}

int onnx_Range(OnnxCtx *c) {
    Value *s = onnx_in_raw(c, 0), *l = onnx_in_raw(c, 1), *d = onnx_in_raw(c, 2);
    if (onnx_sx_is_symbolic(s) || onnx_sx_is_symbolic(l)) return symbolic_range(c, s, l, d);
    if (need_const_inputs(c) < 0) return -1;
    s = onnx_in_req(c, 0), l = onnx_in_req(c, 1), d = onnx_in_req(c, 2);
    double start, limit, delta;
    if (!s || !l || !d || onnx_imp_const_scalar(c, s, "start", &start) < 0 || onnx_imp_const_scalar(c, l, "limit", &limit) < 0 ||
        onnx_imp_const_scalar(c, d, "delta", &delta) < 0)
        return -1;
    if (delta == 0 || !isfinite(start) || !isfinite(limit) || !isfinite(delta))
        return onnx_imp_error(c, "Range needs finite start/limit and a nonzero delta");
    double count = ceil((limit - start) / delta);
    if (count <= 0) return onnx_imp_error(c, "zero-size tensor (empty Range) is not representable in WebNN");
    if (count > INT32_MAX) return onnx_imp_error(c, "Range of %.0f elements is too large", count);
    int64_t shape[1] = {(int64_t)count};
    void *data;
    Value *v = onnx_const_new(c, s->dtype, 1, shape, &data);
    if (!v) return -1;
    bool is_int = dtype_is_int(s->dtype);
    int64_t istart = onnx_const_elem_i64(s, 0), idelta = onnx_const_elem_i64(d, 0);
    for (int64_t i = 0; i < shape[0]; i++) {
        /* Unsigned arithmetic: the values lie in [start, limit), the products may not fit. */
        int64_t k = (int64_t)((uint64_t)istart + (uint64_t)i * (uint64_t)idelta);
        if (is_int && s->dtype == DT_I64)
            memcpy((char *)data + 8 * i, &k, 8);
        else
            onnx_store_elem_f64(s->dtype, data, (uint64_t)i, is_int ? (double)k : start + (double)i * delta);
    }
    return onnx_imp_result(c, v);
}
