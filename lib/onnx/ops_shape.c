/* ops_shape.c - ONNX shape manipulation lowered to WebNN reshape/transpose/concat/split/slice/
 * expand/tile/pad: Reshape (0 and -1, allowzero), Squeeze/Unsqueeze/Flatten (as reshape),
 * Slice (clamped starts/ends, negative steps via reverse), Split (sizes or num_outputs), Identity,
 * Dropout (inference: identity, mask all true), Pad (constant/edge/reflect).  Shape operands are constants or symbolic
 * shape values (shape_expr.c): Reshape/Expand/Slice take symbolic entries as Dims. */
#include <string.h>

#include "core.h"
#include "import_internal.h"

/* Axes from the attribute (opset < input_opset) or from optional constant input 1. -1 on error;
 * the count otherwise (0 when absent). */
static int axes_operand(OnnxCtx *c, int64_t input_opset, int64_t *axes) {
    if (c->opset >= input_opset) {
        Value *a = onnx_in_opt(c, 1);
        return a ? onnx_imp_const_ints(c, a, "axes", axes, WN_MAX_RANK) : 0;
    }
    int n = onnx_attr_ints(c, "axes", axes, WN_MAX_RANK);
    return n < 0 ? (diag_has_error() ? -1 : 0) : n;
}

/* Static product and symbolic factors (sorted by expression number) of dims [0, n); false when a
 * dim is a non-positive static or the product overflows. */
static bool factorize(const Dim *d, int n, int64_t *prod, Dim *syms, int *nsyms) {
    *prod = 1;
    *nsyms = 0;
    for (int i = 0; i < n; i++) {
        if (dim_is_static(d[i])) {
            if (d[i].v <= 0 || __builtin_mul_overflow(*prod, d[i].v, prod)) return false;
            continue;
        }
        int k = (*nsyms)++;
        while (k > 0 && syms[k - 1].e > d[i].e) {
            syms[k] = syms[k - 1];
            k--;
        }
        syms[k] = d[i];
    }
    return true;
}

/* The -1 entry of a reshape: (input elements) / (product of the other entries), cancelling
 * symbolic factors the two sides share.  false when not decidable. */
static bool infer_minus_one(OnnxCtx *c, const Value *x, const Dim *known, int n_known, Dim *out) {
    int64_t pin, pk;
    Dim sin[WN_MAX_RANK], sk[WN_MAX_RANK];
    int nin, nk;
    if (!factorize(x->shape, x->rank, &pin, sin, &nin) || !factorize(known, n_known, &pk, sk, &nk)) return false;
    Dim rest = dim_static(1);
    int j = 0;
    for (int i = 0; i < nin; i++) {
        if (j < nk && dim_equal(sin[i], sk[j])) {
            j++;
            continue;
        }
        rest = dim_mul(c->g, rest, sin[i]);
    }
    if (j != nk || pk <= 0) return false; /* a symbolic factor of the shape is not in the input */
    if (pin % pk == 0) {
        *out = dim_mul(c->g, rest, dim_static(pin / pk));
        return true;
    }
    *out = dim_div(c->g, dim_mul(c->g, rest, dim_static(pin)), dim_static(pk));
    return !dim_is_static(*out) || out->v > 0;
}

int onnx_Reshape(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    Dim s[WN_MAX_RANK];
    int n = onnx_imp_shape_dims(c, onnx_in_raw(c, 1), "shape", s, WN_MAX_RANK);
    if (!x || n < 0) return -1;
    bool allowzero = onnx_attr_int(c, "allowzero", 0) != 0;
    Dim out[WN_MAX_RANK], known[WN_MAX_RANK];
    int minus = -1, n_known = 0;
    for (int i = 0; i < n; i++) {
        if (!dim_is_static(s[i])) {
            out[i] = s[i];
        } else if (s[i].v == -1) {
            if (minus >= 0) return onnx_imp_error(c, "shape has more than one -1");
            minus = i;
            continue;
        } else if (s[i].v == 0 && !allowzero) {
            if (i >= x->rank) return onnx_imp_error(c, "shape[%d] = 0 copies a dimension the input does not have", i);
            out[i] = x->shape[i];
        } else if (s[i].v <= 0 || s[i].v > INT32_MAX) {
            return onnx_imp_error(c, "shape[%d] = %lld is not representable in WebNN (zero-size or invalid)", i, (long long)s[i].v);
        } else {
            out[i] = s[i];
        }
        known[n_known++] = out[i];
    }
    Dim total = onnx_dims_product(c, x, 0, x->rank), kprod = onnx_dims_product_of(c, known, n_known);
    if (minus >= 0) {
        if (dim_is_static(kprod) && dim_is_static(total)) {
            if (kprod.v <= 0 || total.v % kprod.v) return onnx_imp_error(c, "cannot infer -1: %lld elements do not divide by %lld", (long long)total.v, (long long)kprod.v);
            out[minus] = dim_static(total.v / kprod.v);
        } else if (!infer_minus_one(c, x, known, n_known, &out[minus])) {
            char a[128], b[128];
            return onnx_imp_error(c, "cannot infer -1: %s elements divided by %s", dim_format(c->g, total, a, sizeof a),
                             dim_format(c->g, kprod, b, sizeof b));
        }
    } else if (dim_is_static(kprod) && dim_is_static(total) && kprod.v != total.v) {
        return onnx_imp_error(c, "cannot reshape %lld elements into %lld", (long long)total.v, (long long)kprod.v);
    }
    return onnx_imp_result(c, onnx_emit_reshape(c, x, n, out));
}

int onnx_Transpose(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    int64_t perm[WN_MAX_RANK];
    int n = onnx_attr_ints(c, "perm", perm, WN_MAX_RANK);
    if (n < 0) {
        for (int i = 0; i < x->rank; i++) perm[i] = x->rank - 1 - i;
        n = x->rank;
    }
    unsigned seen = 0;
    if (n != x->rank) return onnx_imp_error(c, "perm has %d entries for rank %d", n, x->rank);
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || (seen & (1u << perm[i]))) return onnx_imp_error(c, "perm is not a permutation");
        seen |= 1u << perm[i];
    }
    return onnx_imp_result(c, onnx_emit_transpose(c, x, perm));
}

int onnx_Squeeze(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    int64_t axes[WN_MAX_RANK];
    int n = axes_operand(c, 13, axes);
    if (!x || n < 0 || onnx_imp_axes(c, axes, n, x->rank) < 0) return -1;
    unsigned drop = 0;
    for (int i = 0; i < n; i++) {
        if (!dim_is_static(x->shape[axes[i]]) || x->shape[axes[i]].v != 1)
            return onnx_imp_error(c, "cannot squeeze axis %lld (size is not 1)", (long long)axes[i]);
        drop |= 1u << axes[i];
    }
    if (n == 0)
        for (int i = 0; i < x->rank; i++)
            if (dim_is_static(x->shape[i]) && x->shape[i].v == 1) drop |= 1u << i;
    Dim out[WN_MAX_RANK];
    int r = 0;
    for (int i = 0; i < x->rank; i++)
        if (!(drop & (1u << i))) out[r++] = x->shape[i];
    return onnx_imp_result(c, onnx_emit_reshape(c, x, r, out));
}

int onnx_Unsqueeze(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    int64_t axes[WN_MAX_RANK];
    int n = axes_operand(c, 13, axes);
    if (!x || n < 0) return -1;
    if (n == 0) return onnx_imp_error(c, "axes are required");
    int r = x->rank + n;
    if (r > WN_MAX_RANK) return onnx_imp_error(c, "result rank %d exceeds %d", r, WN_MAX_RANK);
    if (onnx_imp_axes(c, axes, n, r) < 0) return -1;
    unsigned ins = 0;
    for (int i = 0; i < n; i++) ins |= 1u << axes[i];
    Dim out[WN_MAX_RANK];
    for (int i = 0, k = 0; i < r; i++) out[i] = (ins & (1u << i)) ? dim_static(1) : x->shape[k++];
    return onnx_imp_result(c, onnx_emit_reshape(c, x, r, out));
}

int onnx_Flatten(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    int64_t axis = onnx_attr_int(c, "axis", 1);
    if (axis < -(int64_t)x->rank || axis > x->rank) return onnx_imp_error(c, "axis %lld out of range", (long long)axis);
    if (axis < 0) axis += x->rank;
    Dim out[2] = {onnx_dims_product(c, x, 0, (int)axis), onnx_dims_product(c, x, (int)axis, x->rank)};
    return onnx_imp_result(c, onnx_emit_reshape(c, x, 2, out));
}

int onnx_Concat(OnnxCtx *c) {
    Value *first = onnx_in_req(c, 0);
    if (!first) return -1;
    int64_t axis;
    if (!onnx_attr_find(c, "axis")) return onnx_imp_error(c, "missing attribute 'axis'");
    if (onnx_imp_axis(c, onnx_attr_int(c, "axis", 0), first->rank, &axis) < 0) return -1;
    Node *n = onnx_imp_node(c, OP_CONCAT);
    Value *last = NULL;
    int count = 0;
    for (int i = 0; i < c->n_in; i++) {
        Value *v = onnx_in_req(c, i);
        if (!v) return -1;
        if ((v->flags & VF_CONST) && value_max_elements(v) == 0) continue; /* empty piece */
        node_add_input(c->g, n, v);
        last = v;
        count++;
    }
    if (count == 0) return onnx_imp_error(c, "zero-size tensor (all inputs are empty) is not representable in WebNN");
    if (count == 1) return onnx_imp_result(c, last);
    node_set_uint(c->g, n, "axis", axis);
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}

int onnx_Split(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    int64_t axis;
    if (onnx_imp_axis(c, onnx_attr_int(c, "axis", 0), x->rank, &axis) < 0) return -1;
    int outs = (int)c->node->n_output;
    int64_t sizes[64];
    int n;
    if (c->opset < 13) {
        n = onnx_attr_ints(c, "split", sizes, 64);
    } else {
        Value *s = onnx_in_opt(c, 1);
        n = s ? onnx_imp_const_ints(c, s, "split", sizes, 64) : -1;
    }
    if (diag_has_error()) return -1;
    Dim d = x->shape[axis];
    if (!dim_is_static(d)) return onnx_imp_error(c, "cannot split dynamic dimension %lld", (long long)axis);
    if (n < 0) {
        int64_t parts = c->opset >= 18 && onnx_attr_find(c, "num_outputs") ? onnx_attr_int(c, "num_outputs", 0) : outs;
        if (parts <= 0 || parts > 64 || parts != outs) return onnx_imp_error(c, "num_outputs %lld does not match %d outputs", (long long)parts, outs);
        int64_t each = (d.v + parts - 1) / parts;
        for (int i = 0; i < parts; i++) sizes[i] = i < parts - 1 ? each : d.v - each * (parts - 1);
        n = (int)parts;
    }
    if (n != outs) return onnx_imp_error(c, "%d split sizes for %d outputs", n, outs);
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] <= 0 || sizes[i] > d.v) return onnx_imp_error(c, "zero-size or invalid split size %lld is not representable in WebNN", (long long)sizes[i]);
        sum += sizes[i];
    }
    if (sum != d.v) return onnx_imp_error(c, "split sizes add up to %lld, dimension is %lld", (long long)sum, (long long)d.v);
    Node *node = onnx_imp_node(c, OP_SPLIT);
    node_add_input(c->g, node, x);
    node_set_ints(c->g, node, "splits", n, sizes);
    node_set_uint(c->g, node, "axis", axis);
    if (onnx_imp_insert(c, node) < 0) return -1;
    if (node->n_outputs != n) return onnx_imp_error(c, "split produced %d outputs, expected %d", node->n_outputs, n);
    for (int i = 0; i < n; i++) onnx_imp_set_out(c, i, node->outputs[i]);
    return 0;
}

/* ---- Slice ------------------------------------------------------------------------------------------- */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

typedef struct {
    int64_t start[WN_MAX_RANK], stride[WN_MAX_RANK];
    Dim size[WN_MAX_RANK];
    int64_t reverse[WN_MAX_RANK];
    int n_reverse;
} SliceSpec;

/* Size of [s, e) on a dynamic axis d with step 1 (ends may be symbolic: min(e, d) - s). */
static int dynamic_axis(OnnxCtx *c, int axis, Dim d, int64_t s, Dim e, int64_t step, SliceSpec *sp) {
    char buf[64], eb[64];
    if (dim_is_static(e) && e.v < 0 && e.v >= -(int64_t)INT32_MAX) e = dim_add(c->g, d, e); /* from the end */
    else if (dim_is_static(e) && d.v > 0 && e.v >= d.v) e = d; /* open end */
    Dim end;
    if (step != 1 || s < 0 || !onnx_sx_dim_extreme(c->g, false, e, d, &end))
        return onnx_imp_error(c, "slice [%lld, %s) step %lld of dynamic dimension %s on axis %d is not supported", (long long)s,
                         dim_format(c->g, e, eb, sizeof eb), (long long)step, dim_format(c->g, d, buf, sizeof buf), axis);
    sp->start[axis] = s;
    sp->size[axis] = dim_sub(c->g, end, dim_static(s));
    if (dim_is_static(sp->size[axis]) && sp->size[axis].v <= 0)
        return onnx_imp_error(c, "zero-size tensor (empty slice on axis %d) is not representable in WebNN", axis);
    return 0;
}

/* Fills the spec for one axis following ONNX clamping rules. */
static int slice_axis(OnnxCtx *c, const Value *x, int axis, Dim sd, Dim ed, int64_t step, SliceSpec *sp) {
    Dim d = x->shape[axis];
    if (step == 0) return onnx_imp_error(c, "slice step is 0");
    if (!dim_is_static(sd)) return onnx_imp_error(c, "slice start on axis %d must be known at conversion time", axis);
    int64_t s = sd.v;
    step = clamp64(step, -((int64_t)1 << 32), (int64_t)1 << 32);
    if (!dim_is_static(d) || !dim_is_static(ed)) return dynamic_axis(c, axis, d, s, ed, step, sp);
    int64_t D = d.v, count, e = ed.v;
    if (s < 0) s += D;
    if (e < 0) e += D;
    if (step > 0) {
        s = clamp64(s, 0, D);
        e = clamp64(e, 0, D);
        count = e > s ? (e - s) / step + ((e - s) % step != 0) : 0;
    } else {
        s = clamp64(s, 0, D - 1);
        e = clamp64(e, -1, D - 1);
        count = s > e ? (s - e) / -step + ((s - e) % -step != 0) : 0;
        sp->reverse[sp->n_reverse++] = axis;
        s = D - 1 - s;
        step = -step;
    }
    if (count <= 0) return onnx_imp_error(c, "zero-size tensor (empty slice on axis %d) is not representable in WebNN", axis);
    sp->start[axis] = s;
    sp->stride[axis] = step;
    sp->size[axis] = dim_static(count);
    return 0;
}

int onnx_Slice(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    int64_t starts[WN_MAX_RANK], ends[WN_MAX_RANK], axes[WN_MAX_RANK], steps[WN_MAX_RANK];
    Dim sd[WN_MAX_RANK], ed[WN_MAX_RANK];
    int n, ne, na = -1, ns = -1;
    if (c->opset < 10) {
        n = onnx_attr_ints(c, "starts", starts, WN_MAX_RANK);
        ne = onnx_attr_ints(c, "ends", ends, WN_MAX_RANK);
        na = onnx_attr_ints(c, "axes", axes, WN_MAX_RANK);
        for (int i = 0; i < n && i < WN_MAX_RANK; i++) sd[i] = dim_static(starts[i]);
        for (int i = 0; i < ne && i < WN_MAX_RANK; i++) ed[i] = dim_static(ends[i]);
    } else {
        n = onnx_imp_shape_dims(c, onnx_in_raw(c, 1), "starts", sd, WN_MAX_RANK);
        ne = onnx_imp_shape_dims(c, onnx_in_raw(c, 2), "ends", ed, WN_MAX_RANK);
        if (onnx_in_raw(c, 3)) na = onnx_imp_const_ints(c, onnx_in_opt(c, 3), "axes", axes, WN_MAX_RANK);
        if (onnx_in_raw(c, 4)) ns = onnx_imp_const_ints(c, onnx_in_opt(c, 4), "steps", steps, WN_MAX_RANK);
    }
    if (diag_has_error()) return -1;
    if (n < 0 || ne != n) return onnx_imp_error(c, "starts and ends must have the same length");
    if (na < 0) {
        for (int i = 0; i < n; i++) axes[i] = i;
    } else if (na != n) {
        return onnx_imp_error(c, "axes must have as many entries as starts");
    }
    if (ns < 0) {
        for (int i = 0; i < n; i++) steps[i] = 1;
    } else if (ns != n) {
        return onnx_imp_error(c, "steps must have as many entries as starts");
    }
    if (onnx_imp_axes(c, axes, n, x->rank) < 0) return -1;
    SliceSpec sp = {.n_reverse = 0};
    for (int i = 0; i < x->rank; i++) {
        sp.start[i] = 0;
        sp.stride[i] = 1;
        sp.size[i] = x->shape[i];
    }
    for (int i = 0; i < n; i++)
        if (slice_axis(c, x, (int)axes[i], sd[i], ed[i], steps[i], &sp) < 0) return -1;
    Value *v = x;
    if (sp.n_reverse) {
        Node *r = onnx_imp_node(c, OP_REVERSE);
        node_add_input(c->g, r, v);
        node_set_ints(c->g, r, "axes", sp.n_reverse, sp.reverse);
        if (!(v = onnx_imp_finish(c, r))) return -1;
    }
    bool full = true, strided = false;
    for (int i = 0; i < x->rank; i++) {
        if (sp.start[i] || sp.stride[i] != 1 || !dim_equal(sp.size[i], x->shape[i])) full = false;
        if (sp.stride[i] != 1) strided = true;
    }
    if (full) return onnx_imp_result(c, v);
    Node *s = onnx_imp_node(c, OP_SLICE);
    node_add_input(c->g, s, v);
    node_set_ints(c->g, s, "starts", x->rank, sp.start);
    node_set_dims(c->g, s, "sizes", x->rank, sp.size);
    if (strided) node_set_ints(c->g, s, "strides", x->rank, sp.stride);
    return onnx_imp_result(c, onnx_imp_finish(c, s));
}

/* ---- Expand, Tile, Identity, Dropout, Pad --------------------------------------------------------------- */

int onnx_Expand(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    Dim s[WN_MAX_RANK];
    int n = onnx_imp_shape_dims(c, onnx_in_raw(c, 1), "shape", s, WN_MAX_RANK);
    if (!x || n < 0) return -1;
    int r = n > x->rank ? n : x->rank;
    Dim out[WN_MAX_RANK];
    bool same = r == x->rank;
    for (int i = 0; i < r; i++) {
        int xi = i - (r - x->rank), si = i - (r - n);
        Dim a = xi >= 0 ? x->shape[xi] : dim_static(1);
        Dim b = si >= 0 ? s[si] : dim_static(1);
        if (dim_is_static(b) && (b.v <= 0 || b.v > INT32_MAX))
            return onnx_imp_error(c, "shape[%d] = %lld is not representable in WebNN", si, (long long)b.v);
        if ((dim_is_static(b) && b.v == 1) || dim_equal(a, b))
            out[i] = a;
        else if (dim_is_static(a) && a.v == 1)
            out[i] = b;
        else {
            char buf[128];
            return onnx_imp_error(c, "cannot broadcast dimension %d of '%s' to %s", i, value_display_name(x),
                             dim_format(c->g, b, buf, sizeof buf));
        }
        if (xi < 0 || !dim_equal(out[i], x->shape[xi])) same = false;
    }
    if (same) return onnx_imp_result(c, x);
    Node *e = onnx_imp_node(c, OP_EXPAND);
    node_add_input(c->g, e, x);
    node_set_dims(c->g, e, "newShape", r, out);
    return onnx_imp_result(c, onnx_imp_finish(c, e));
}

int onnx_Tile(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    int64_t reps[WN_MAX_RANK];
    int n = onnx_imp_const_ints(c, onnx_in_req(c, 1), "repeats", reps, WN_MAX_RANK);
    if (!x || n < 0) return -1;
    if (n != x->rank) return onnx_imp_error(c, "repeats has %d entries for rank %d", n, x->rank);
    for (int i = 0; i < n; i++)
        if (reps[i] <= 0 || reps[i] > INT32_MAX) return onnx_imp_error(c, "repeats[%d] = %lld is not representable in WebNN", i, (long long)reps[i]);
    Node *t = onnx_imp_node(c, OP_TILE);
    node_add_input(c->g, t, x);
    node_set_ints(c->g, t, "repetitions", n, reps);
    return onnx_imp_result(c, onnx_imp_finish(c, t));
}

int onnx_Identity(OnnxCtx *c) { return onnx_imp_result(c, onnx_in_req(c, 0)); }

int onnx_Dropout(OnnxCtx *c) {
    Value *training = onnx_in_opt(c, 2);
    if (training) {
        double t;
        if (onnx_imp_const_scalar(c, training, "training_mode", &t) < 0) return -1;
        if (t != 0) return onnx_imp_error(c, "training_mode=true is not supported");
    }
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    if (onnx_imp_wants_out(c, 1)) { /* inference keeps every element: mask = all true, x's shape */
        Node *e = onnx_imp_node(c, OP_EXPAND);
        node_add_input(c->g, e, onnx_const_scalar(c, DT_U8, 1));
        node_set_dims(c->g, e, "newShape", x->rank, x->shape);
        Value *mask = onnx_imp_finish(c, e);
        if (!mask) return -1;
        onnx_imp_set_out(c, 1, mask);
    }
    return onnx_imp_result(c, x);
}

int onnx_Pad(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x) return -1;
    const char *mode = onnx_attr_string(c, "mode", "constant");
    const char *wn_mode = !strcmp(mode, "constant") ? "constant" : !strcmp(mode, "edge") ? "edge"
                        : !strcmp(mode, "reflect") ? "reflection" : NULL;
    if (!wn_mode) return onnx_imp_error(c, "pad mode '%s' is not supported", mode);
    int64_t pads[IMP_MAX_INTS], axes[WN_MAX_RANK];
    double value = 0;
    int np, na = -1;
    if (c->opset < 11) {
        np = onnx_attr_ints(c, "pads", pads, IMP_MAX_INTS);
        value = onnx_attr_float(c, "value", 0);
    } else {
        np = onnx_imp_const_ints(c, onnx_in_req(c, 1), "pads", pads, IMP_MAX_INTS);
        if (onnx_in_opt(c, 2) && onnx_imp_const_scalar(c, onnx_in_opt(c, 2), "constant_value", &value) < 0) return -1;
        if (onnx_in_opt(c, 3)) na = onnx_imp_const_ints(c, onnx_in_opt(c, 3), "axes", axes, WN_MAX_RANK);
    }
    if (diag_has_error()) return -1;
    if (na < 0) {
        na = x->rank;
        for (int i = 0; i < na; i++) axes[i] = i;
    } else if (onnx_imp_axes(c, axes, na, x->rank) < 0) {
        return -1;
    }
    if (np != 2 * na) return onnx_imp_error(c, "pads has %d entries, expected %d", np, 2 * na);
    int64_t begin[WN_MAX_RANK] = {0}, end[WN_MAX_RANK] = {0};
    bool any = false;
    for (int i = 0; i < na; i++) {
        int64_t b = pads[i], e = pads[i + na];
        if (b < 0 || e < 0 || b > INT32_MAX || e > INT32_MAX) return onnx_imp_error(c, "negative or huge pads are not supported");
        begin[axes[i]] = b;
        end[axes[i]] = e;
        any |= b || e;
    }
    if (!any) return onnx_imp_result(c, x);
    Node *p = onnx_imp_node(c, OP_PAD);
    node_add_input(c->g, p, x);
    node_set_ints(c->g, p, "beginningPadding", x->rank, begin);
    node_set_ints(c->g, p, "endingPadding", x->rank, end);
    node_set_string(c->g, p, "mode", wn_mode);
    if (!strcmp(wn_mode, "constant")) node_set_float(c->g, p, "value", value);
    return onnx_imp_result(c, onnx_imp_finish(c, p));
}
