/* ops_cast.c - ONNX Cast/CastLike (bool targets become notEqual(x, 0)), Clip -> clamp (bounds as
 * attributes before opset 11, constant inputs after; run-time bounds -> max/min), DequantizeLinear/QuantizeLinear. */
#include <math.h>

#include "import_internal.h"

/* Cast to `to`; ONNX code 9 (bool) yields 0/1 as uint8. */
static int cast_to(OnnxCtx *c, Value *x, int onnx_code, DType to) {
    if (!x) return -1;
    if (onnx_code == 9) /* also for uint8 sources: any nonzero -> 1 */
        return onnx_imp_result(c, onnx_emit_binary(c, OP_NOT_EQUAL, x, onnx_const_scalar(c, x->dtype, 0)));
    if (to == DT_INVALID) return onnx_imp_error(c, "unsupported target type %d", onnx_code);
    return onnx_imp_result(c, onnx_emit_cast(c, x, to));
}

int onnx_Cast(OnnxCtx *c) {
    const Onnx__AttributeProto *a = onnx_attr_find(c, "to");
    if (!a) return onnx_imp_error(c, "missing attribute 'to'");
    int code = (int)onnx_attr_int(c, "to", 0);
    return cast_to(c, onnx_in_req(c, 0), code, onnx_elem_dtype(code));
}

int onnx_CastLike(OnnxCtx *c) {
    Value *like = onnx_in_req(c, 1);
    if (!like) return -1;
    return cast_to(c, onnx_in_req(c, 0), 0, like->dtype);
}

/* Clip = min(max(x, lo), hi).  Constant bounds become clamp options (one clamp node); a constant
 * bound that constrains nothing (min -Infinity, max +Infinity) is dropped, since webnn-graph files
 * cannot spell it; a bound computed at run time (opset >= 11 inputs) becomes an element-wise
 * max/min with the scalar. */
int onnx_Clip(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    static const char *const keys[2] = {"minValue", "maxValue"}, *const what[2] = {"min", "max"};
    static const OpId elementwise[2] = {OP_MAX, OP_MIN};
    static const double unbounded[2] = {-INFINITY, INFINITY};
    Value *run_time[2] = {NULL, NULL};
    double k[2];
    bool has_k[2] = {false, false};
    for (int i = 0; i < 2; i++) {
        if (c->opset < 11) {
            if ((has_k[i] = onnx_attr_find(c, what[i]) != NULL)) k[i] = onnx_attr_float(c, what[i], 0);
            continue;
        }
        Value *b = onnx_in_opt(c, i + 1);
        if (!b) continue;
        if (b->rank > 1 || value_max_elements(b) != 1) return onnx_imp_error(c, "'%s' must be a scalar", what[i]);
        if (!(b->flags & VF_CONST)) {
            if (!(run_time[i] = onnx_emit_reshape(c, b, 0, NULL))) return -1;
        } else if (onnx_imp_const_scalar(c, b, what[i], &k[i]) < 0) {
            return -1;
        } else {
            has_k[i] = true;
        }
    }
    for (int i = 0; i < 2; i++)
        if (has_k[i] && k[i] == unbounded[i]) has_k[i] = false;
    Value *y = x;
    if (run_time[0] && has_k[1]) y = onnx_emit_binary(c, OP_MAX, y, run_time[0]), run_time[0] = NULL;
    if (y && (has_k[0] || has_k[1])) {
        Node *n = onnx_imp_node(c, OP_CLAMP);
        node_add_input(c->g, n, y);
        for (int i = 0; i < 2; i++)
            if (has_k[i]) node_set_float(c->g, n, keys[i], k[i]);
        y = onnx_imp_finish(c, n);
    }
    for (int i = 0; i < 2; i++)
        if (y && run_time[i]) y = onnx_emit_binary(c, elementwise[i], y, run_time[i]);
    return onnx_imp_result(c, y);
}

/* Reshapes a per-axis scale/zero point of length C to broadcast against x along `axis`
 * ([1,..,C,..,1]); scalars become rank-r tensors of ones. */
static Value *align_param(OnnxCtx *c, Value *p, const Value *x) {
    if (!p) return NULL;
    if (p->rank == x->rank) return p; /* blocked form: already full rank */
    if (p->rank > 1) {
        onnx_imp_error(c, "scale/zero point of rank %d does not match input rank %d", p->rank, x->rank);
        return NULL;
    }
    Dim shape[WN_MAX_RANK];
    for (int i = 0; i < x->rank; i++) shape[i] = dim_static(1);
    if (p->rank == 1 && x->rank > 0) {
        int64_t axis;
        if (onnx_imp_axis(c, onnx_attr_int(c, "axis", 1), x->rank, &axis) < 0) return NULL;
        shape[axis] = p->shape[0];
    }
    return onnx_emit_reshape(c, p, x->rank, shape);
}

/* Zero point with the scale's shape, filled with zeros, of dtype dt. */
static Value *zero_point(OnnxCtx *c, const Value *scale, DType dt) {
    int64_t shape[WN_MAX_RANK];
    for (int i = 0; i < scale->rank; i++) {
        if (!dim_is_static(scale->shape[i])) {
            onnx_imp_error(c, "scale must have a static shape");
            return NULL;
        }
        shape[i] = scale->shape[i].v;
    }
    void *data;
    return onnx_const_new(c, dt, scale->rank, shape, &data);
}

static int quant(OnnxCtx *c, OpId op) {
    Value *x = onnx_in_req(c, 0), *scale = onnx_in_req(c, 1), *zp = onnx_in_opt(c, 2);
    if (!x || !scale) return -1;
    if (onnx_attr_int(c, "block_size", 0) != 0) return onnx_imp_error(c, "block_size is not supported");
    if (op == OP_QUANTIZE_LINEAR && onnx_attr_find(c, "output_dtype") && !zp)
        return onnx_imp_error(c, "output_dtype without a zero point is not supported");
    if (!zp) zp = zero_point(c, scale, op == OP_QUANTIZE_LINEAR ? DT_U8 : x->dtype);
    scale = align_param(c, scale, x);
    zp = align_param(c, zp, x);
    if (!scale || !zp) return -1;
    Node *n = onnx_imp_node(c, op);
    node_add_input(c->g, n, x);
    node_add_input(c->g, n, scale);
    node_add_input(c->g, n, zp);
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}

int onnx_DequantizeLinear(OnnxCtx *c) { return quant(c, OP_DEQUANTIZE_LINEAR); }
int onnx_QuantizeLinear(OnnxCtx *c) { return quant(c, OP_QUANTIZE_LINEAR); }
