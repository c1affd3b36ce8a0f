/* ops_const.c - ONNX ops whose result is known at conversion time: Constant, ConstantOfShape,
 * Shape, Size and Range become IR constants (an error when their operands are not constant). */
#include <math.h>
#include <string.h>

#include "import_internal.h"

/* "OpType at node X needs constant inputs" unless every present input is a constant. */
static int need_const_inputs(OnnxCtx *c) {
    for (int i = 0; i < c->n_in; i++)
        if (c->in[i] && !(c->in[i]->flags & VF_CONST))
            return imp_error(c, "%s at node %s needs constant inputs ('%s' is computed at run time)",
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
        imp_error(c, "constant too large");
        return NULL;
    }
    int64_t shape[1] = {(int64_t)n};
    void *data;
    Value *v = const_new(c, dt, rank, shape, &data);
    for (size_t k = 0; v && k < n; k++) store_elem_f64(dt, data, k, f ? f[k] : 0);
    if (v && i && n) memcpy(data, i, sizeof *i * n);
    return v;
}

int onnx_Constant(OnnxCtx *c) {
    const Onnx__NodeProto *np = c->node;
    if (np->n_attribute != 1 || !np->attribute[0] || !np->attribute[0]->name)
        return imp_error(c, "Constant needs exactly one value attribute");
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
        return imp_error(c, "sparse constants are not supported");
    else
        return imp_error(c, "unsupported Constant attribute '%s'", k);
    return imp_result(c, v);
}

int onnx_ConstantOfShape(OnnxCtx *c) {
    if (need_const_inputs(c) < 0) return -1;
    int64_t shape[WN_MAX_RANK];
    int rank = imp_const_ints(c, in_req(c, 0), "shape", shape, WN_MAX_RANK);
    if (rank < 0) return -1;
    for (int i = 0; i < rank; i++)
        if (shape[i] <= 0) return imp_error(c, "zero-size tensor (dimension %d = %lld) is not representable in WebNN", i, (long long)shape[i]);
    DType dt = DT_F32;
    double fill = 0;
    const Onnx__AttributeProto *a = onnx_attr_find(c, "value");
    if (a) {
        if (a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR || !a->t) return imp_error(c, "'value' must be a tensor");
        Value *t = tensor_const(c, a->t);
        if (!t) return -1;
        if (value_max_elements(t) != 1) return imp_error(c, "'value' must hold one element");
        dt = t->dtype;
        fill = const_elem_f64(t, 0);
    }
    if (imp_elements(c, rank, shape) < 0) return -1;
    void *data;
    Value *v = const_new(c, dt, rank, shape, &data);
    if (!v) return -1;
    if (fill != 0) {
        uint64_t n = value_max_elements(v);
        for (uint64_t i = 0; i < n; i++) store_elem_f64(dt, data, i, fill);
    }
    return imp_result(c, v);
}

int onnx_Shape(OnnxCtx *c) {
    Value *x = in_req(c, 0);
    if (!x) return -1;
    int64_t start = onnx_attr_int(c, "start", 0), end = onnx_attr_int(c, "end", x->rank);
    if (start < 0) start += x->rank;
    if (end < 0) end += x->rank;
    start = start < 0 ? 0 : start > x->rank ? x->rank : start;
    end = end < start ? start : end > x->rank ? x->rank : end;
    int64_t dims[WN_MAX_RANK];
    for (int64_t i = start; i < end; i++) {
        if (!dim_is_static(x->shape[i])) {
            char buf[64];
            return imp_error(c, "Shape at node %s needs a static input shape (dimension %lld of '%s' is %s)", c->origin,
                             (long long)i, value_display_name(x), dim_format(c->g, x->shape[i], buf, sizeof buf));
        }
        dims[i - start] = x->shape[i].v;
    }
    if (end == start) return imp_error(c, "zero-size tensor (empty shape slice) is not representable in WebNN");
    return imp_result(c, const_i64(c, (int)(end - start), dims));
}

int onnx_Size(OnnxCtx *c) {
    Value *x = in_req(c, 0);
    if (!x) return -1;
    if (!value_is_static(x)) return imp_error(c, "Size at node %s needs a static input shape", c->origin);
    return imp_result(c, const_scalar(c, DT_I64, (double)value_max_elements(x)));
}

int onnx_Range(OnnxCtx *c) {
    if (need_const_inputs(c) < 0) return -1;
    Value *s = in_req(c, 0), *l = in_req(c, 1), *d = in_req(c, 2);
    double start, limit, delta;
    if (!s || !l || !d || imp_const_scalar(c, s, "start", &start) < 0 || imp_const_scalar(c, l, "limit", &limit) < 0 ||
        imp_const_scalar(c, d, "delta", &delta) < 0)
        return -1;
    if (delta == 0 || !isfinite(start) || !isfinite(limit) || !isfinite(delta))
        return imp_error(c, "Range needs finite start/limit and a nonzero delta");
    double count = ceil((limit - start) / delta);
    if (count <= 0) return imp_error(c, "zero-size tensor (empty Range) is not representable in WebNN");
    if (count > INT32_MAX) return imp_error(c, "Range of %.0f elements is too large", count);
    int64_t shape[1] = {(int64_t)count};
    void *data;
    Value *v = const_new(c, s->dtype, 1, shape, &data);
    if (!v) return -1;
    bool is_int = dtype_is_int(s->dtype);
    int64_t istart = const_elem_i64(s, 0), idelta = const_elem_i64(d, 0);
    for (int64_t i = 0; i < shape[0]; i++) {
        /* Unsigned arithmetic: the values lie in [start, limit), the products may not fit. */
        int64_t k = (int64_t)((uint64_t)istart + (uint64_t)i * (uint64_t)idelta);
        if (is_int && s->dtype == DT_I64)
            memcpy((char *)data + 8 * i, &k, 8);
        else
            store_elem_f64(s->dtype, data, (uint64_t)i, is_int ? (double)k : start + (double)i * delta);
    }
    return imp_result(c, v);
}
