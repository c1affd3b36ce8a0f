/* ops_scatter_reduce.c - ONNX ScatterND / ScatterElements with reduction add, mul, max or min.
 *
 * WebNN's scatters leave duplicate indices unspecified (one update wins), so a reduction is lowered
 * exactly as ONNX defines it: the updates are applied one after another in index order,
 *   out = where(position == target_j, out OP update_j, out)   for j = 0 .. N-1,
 * which accumulates duplicates in the reference's order (bit-exact float rounding).  Targets are
 * linear positions computed in the graph from the (possibly run-time) indices, negative indices
 * counting from the end.  N (the number of update tuples or elements) is bounded by
 * SCATTER_REDUCE_MAX_UPDATES since every update costs a handful of nodes. */
#include <string.h>

#include "import_internal.h"

#define SCATTER_REDUCE_MAX_UPDATES 64

/* The element-wise op of a reduction name; -1 (with an error) for an unknown one, 0 for "none". */
static int reduction_op(OnnxCtx *c, OpId *op) {
    const char *r = onnx_attr_string(c, "reduction", "none");
    static const struct {
        const char *name;
        OpId op;
    } ops[] = {{"add", OP_ADD}, {"mul", OP_MUL}, {"max", OP_MAX}, {"min", OP_MIN}};
    if (!strcmp(r, "none")) return 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(r, ops[i].name)) {
            *op = ops[i].op;
            return 1;
        }
    return onnx_imp_error(c, "reduction '%s' is not supported", r);
}

static bool static_shape(OnnxCtx *c, const Value *v, const char *what, int64_t *shape) {
    for (int i = 0; i < v->rank; i++) {
        if (!dim_is_static(v->shape[i])) {
            onnx_imp_error(c, "reduction needs a static %s shape", what);
            return false;
        }
        shape[i] = v->shape[i].v;
    }
    return true;
}

/* int32 constant of `rank` dims holding iota(0 .. n) (shape given). */
static Value *iota_i32(OnnxCtx *c, int rank, const int64_t *shape) {
    void *data;
    Value *v = onnx_const_new(c, DT_I32, rank, shape, &data);
    if (!v) return NULL;
    uint64_t n = value_max_elements(v);
    for (uint64_t i = 0; i < n; i++) ((int32_t *)data)[i] = (int32_t)i;
    return v;
}

/* idx (cast to int32) with negative entries + dims (broadcast), i.e. counted from the end. */
static Value *wrap_negative(OnnxCtx *c, Value *idx, Value *dims) {
    idx = onnx_emit_cast(c, idx, DT_I32);
    if (!idx || !dims) return NULL;
    Node *w = onnx_imp_node(c, OP_WHERE);
    node_add_input(c->g, w, onnx_emit_binary(c, OP_LESSER, idx, onnx_const_scalar(c, DT_I32, 0)));
    node_add_input(c->g, w, onnx_emit_binary(c, OP_ADD, idx, dims));
    node_add_input(c->g, w, idx);
    return onnx_imp_finish(c, w);
}

/* Element j of a 1-D or [N, S...] value along axis 0, reshaped to `rank` dims `shape`. */
static Value *take(OnnxCtx *c, Value *v, int64_t j, int rank, const Dim *shape) {
    if (!v) return NULL;
    int64_t starts[WN_MAX_RANK] = {0};
    Dim sizes[WN_MAX_RANK];
    starts[0] = j;
    sizes[0] = dim_static(1);
    for (int i = 1; i < v->rank; i++) sizes[i] = v->shape[i];
    Node *s = onnx_imp_node(c, OP_SLICE);
    node_add_input(c->g, s, v);
    node_set_ints(c->g, s, "starts", v->rank, starts);
    node_set_dims(c->g, s, "sizes", v->rank, sizes);
    return onnx_emit_reshape(c, onnx_imp_finish(c, s), rank, shape);
}

/* The sequential application shared by both ops.  x: data [M, S...] (flattened positions first);
 * targets: int32 [N] linear positions in [0, M); updates: [N, S...]. */
static Value *apply_in_order(OnnxCtx *c, OpId op, Value *x, Value *targets, Value *updates) {
    if (!x || !targets || !updates) return NULL;
    int64_t m = x->shape[0].v;
    Dim ps[WN_MAX_RANK];
    ps[0] = x->shape[0];
    for (int i = 1; i < x->rank; i++) ps[i] = dim_static(1);
    Value *pos = onnx_emit_reshape(c, iota_i32(c, 1, &m), x->rank, ps); /* [M, 1, ...]: position numbers */
    Value *out = x;
    int64_t n = targets->shape[0].v;
    for (int64_t j = 0; j < n && out && pos; j++) {
        Value *hit = onnx_emit_binary(c, OP_EQUAL, pos, take(c, targets, j, 0, NULL));
        Value *u = take(c, updates, j, x->rank - 1, x->shape + 1);
        Node *w = onnx_imp_node(c, OP_WHERE);
        node_add_input(c->g, w, hit);
        node_add_input(c->g, w, onnx_emit_binary(c, op, out, u));
        node_add_input(c->g, w, out);
        out = hit && u ? onnx_imp_finish(c, w) : NULL;
    }
    return out;
}

static bool too_many(OnnxCtx *c, int64_t n) {
    if (n <= SCATTER_REDUCE_MAX_UPDATES) return false;
    onnx_imp_error(c, "reduction over %lld updates (more than %d) is not supported", (long long)n, SCATTER_REDUCE_MAX_UPDATES);
    return true;
}

/* ScatterND: indices [I..., k] address the first k data dims; updates [I..., data dims k..]. */
static int scatter_nd_reduce(OnnxCtx *c, OpId op) {
    Value *x = onnx_in_req(c, 0), *idx = onnx_in_req(c, 1), *upd = onnx_in_req(c, 2);
    if (!x || !idx || !upd) return -1;
    int64_t xs[WN_MAX_RANK], is[WN_MAX_RANK];
    if (idx->rank < 1) return onnx_imp_error(c, "indices must have rank >= 1");
    if (!static_shape(c, x, "data", xs) || !static_shape(c, idx, "indices", is)) return -1;
    int64_t k = is[idx->rank - 1];
    if (k < 1 || k > x->rank) return onnx_imp_error(c, "indices' last dimension %lld must be in [1, %d]", (long long)k, x->rank);
    int64_t n = onnx_imp_elements(c, idx->rank - 1, is);
    if (n < 0 || too_many(c, n)) return -1;
    int32_t dims[WN_MAX_RANK], strides[WN_MAX_RANK];
    int64_t m = 1;
    for (int64_t d = k - 1; d >= 0; d--) {
        dims[d] = (int32_t)xs[d];
        strides[d] = (int32_t)m;
        m *= xs[d]; /* <= the data's element count, which inference bounds to 2^31 */
    }
    int64_t kshape[1] = {k};
    void *dd, *sd;
    Value *dv = onnx_const_new(c, DT_I32, 1, kshape, &dd), *sv = onnx_const_new(c, DT_I32, 1, kshape, &sd);
    if (!dv || !sv) return -1;
    memcpy(dd, dims, sizeof(int32_t) * (size_t)k);
    memcpy(sd, strides, sizeof(int32_t) * (size_t)k);
    int64_t last = idx->rank - 1;
    Value *lin = onnx_emit_reduce(c, OP_REDUCE_SUM, onnx_emit_binary(c, OP_MUL, wrap_negative(c, idx, dv), sv), 1, &last, false);
    Dim flat[WN_MAX_RANK];
    flat[0] = dim_static(m);
    for (int i = (int)k; i < x->rank; i++) flat[1 + i - k] = x->shape[i];
    int r = 1 + x->rank - (int)k;
    Value *xr = onnx_emit_reshape(c, x, r, flat);
    flat[0] = dim_static(n);
    Value *ur = onnx_emit_reshape(c, upd, r, flat);
    Value *y = apply_in_order(c, op, xr, onnx_emit_reshape(c, lin, 1, (Dim[]){dim_static(n)}), ur);
    return onnx_imp_result(c, onnx_emit_reshape(c, y, x->rank, x->shape));
}

/* ScatterElements: element e of indices replaces coordinate `axis` of its own position. */
static int scatter_elements_reduce(OnnxCtx *c, OpId op) {
    Value *x = onnx_in_req(c, 0), *idx = onnx_in_req(c, 1), *upd = onnx_in_req(c, 2);
    if (!x || !idx || !upd) return -1;
    int64_t xs[WN_MAX_RANK], is[WN_MAX_RANK], axis;
    if (!static_shape(c, x, "data", xs) || !static_shape(c, idx, "indices", is)) return -1;
    if (idx->rank != x->rank || x->rank < 1) return onnx_imp_error(c, "indices must have the data's rank (>= 1)");
    if (onnx_imp_axis(c, onnx_attr_int(c, "axis", 0), x->rank, &axis) < 0) return -1;
    int64_t n = onnx_imp_elements(c, idx->rank, is), m = onnx_imp_elements(c, x->rank, xs);
    if (n < 0 || m < 0 || too_many(c, n)) return -1;
    int64_t xst[WN_MAX_RANK];
    for (int64_t d = x->rank - 1, s = 1; d >= 0; d--) xst[d] = s, s *= xs[d];
    /* base[e] = linear position of e's coordinates with the axis coordinate 0 */
    void *bd;
    Value *base = onnx_const_new(c, DT_I32, idx->rank, is, &bd);
    if (!base) return -1;
    for (int64_t e = 0; e < n; e++) {
        int64_t rest = e, off = 0;
        for (int d = idx->rank - 1; d >= 0; d--) {
            int64_t coord = rest % is[d];
            rest /= is[d];
            if (d == axis) continue;
            if (coord >= xs[d]) return onnx_imp_error(c, "indices dimension %d (%lld) exceeds the data's (%lld)", d,
                                                 (long long)is[d], (long long)xs[d]);
            off += coord * xst[d];
        }
        ((int32_t *)bd)[e] = (int32_t)off;
    }
    Value *k = wrap_negative(c, idx, onnx_const_scalar(c, DT_I32, (double)xs[axis]));
    Value *lin = onnx_emit_binary(c, OP_ADD, base, onnx_emit_binary(c, OP_MUL, k, onnx_const_scalar(c, DT_I32, (double)xst[axis])));
    Value *y = apply_in_order(c, op, onnx_emit_reshape(c, x, 1, (Dim[]){dim_static(m)}),
                              onnx_emit_reshape(c, lin, 1, (Dim[]){dim_static(n)}), onnx_emit_reshape(c, upd, 1, (Dim[]){dim_static(n)}));
    return onnx_imp_result(c, onnx_emit_reshape(c, y, x->rank, x->shape));
}

/* 0: no reduction (the caller emits a plain scatter); else the handler's result. */
int onnx_scatter_reduce(OnnxCtx *c, bool nd) {
    OpId op = OP_ADD;
    int r = reduction_op(c, &op);
    if (r <= 0) return r;
    int rc = nd ? scatter_nd_reduce(c, op) : scatter_elements_reduce(c, op);
    return rc < 0 ? -1 : 1;
}
