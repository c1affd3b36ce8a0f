/* shape_expr.c - shape expressions while importing: Shape/Size of a tensor with symbolic dims
 * yields a *symbolic shape value* (a Value outside the graph whose `symval` lists its elements
 * as Dims; no node), and Gather/Slice/Concat/Unsqueeze/Squeeze/Reshape/Cast/Identity/arithmetic/
 * comparisons/Where/ReduceProd/Expand on such values are evaluated with dim arithmetic (onnx_sx_try).
 * Handlers that take shapes (Reshape, Expand, Slice, Range, ConstantOfShape, ...) read them with
 * onnx_imp_shape_dims().  Any other use of a symbolic value as data materializes it lazily
 * (onnx_sx_materialize): static elements become constants, a symbol S becomes
 * reduceMax(slice(iota[1..maxSize(S)], sizes [S])), compound expressions add/sub/mul/div those. */
#include <string.h>

#include "core.h"
#include "eval.h"
#include "import_internal.h"

/* Most elements a symbolic shape value holds (a shape, a few scalars concatenated). */
#define SX_MAX_ELEMS (2 * WN_MAX_RANK)
/* Deepest dim expression materialized (the expressions are hash-consed DAGs of small depth). */
#define SX_MAX_DEPTH 32

typedef struct {
    Value v;     /* first member: a SymValue * is a Value * */
    Value *data; /* materialized form, once needed */
} SymValue;

bool onnx_sx_is_symbolic(const Value *v) { return v && v->symval && !(v->flags & VF_CONST) && v->id < 0; }

Value *onnx_sx_new(OnnxCtx *c, DType dt, int rank, int n, const Dim *vals) {
    if (rank < 0 || rank > 1 || n < 0 || n > SX_MAX_ELEMS || (rank == 0 && n != 1)) {
        onnx_imp_error(c, "shape value of rank %d with %d elements is not supported", rank, n);
        return NULL;
    }
    bool all_static = true;
    for (int i = 0; i < n; i++) all_static &= dim_is_static(vals[i]);
    if (all_static) {
        int64_t shape[1] = {n};
        void *data;
        Value *k = onnx_const_new(c, dt, rank, shape, &data);
        for (int i = 0; k && i < n; i++) onnx_store_elem_f64(dt, data, (uint64_t)i, (double)vals[i].v);
        if (k && dt == DT_I64)
            for (int i = 0; i < n; i++) memcpy((char *)data + 8 * i, &vals[i].v, 8); /* exact beyond 2^53 */
        return k;
    }
    SymValue *s = graph_alloc(c->g, sizeof *s);
    Dim *copy = graph_alloc(c->g, sizeof *copy * (size_t)n);
    memcpy(copy, vals, sizeof *copy * (size_t)n);
    s->v.id = -1;
    s->v.name = graph_strdup(c->g, "shape_value");
    s->v.dtype = dt;
    s->v.rank = rank;
    if (rank) s->v.shape[0] = dim_static(n);
    s->v.symval = copy;
    s->v.symval_len = n;
    return &s->v;
}

/* ---- reading elements ------------------------------------------------------------------------ */

/* Elements of a symbolic value or of a small integer constant of rank <= 1 as Dims; -1 when v is
 * neither (no diagnostic). */
static int elems_of(const Value *v, Dim *out, int max) {
    if (!v) return -1;
    if (onnx_sx_is_symbolic(v)) {
        if (v->symval_len > max) return -1;
        memcpy(out, v->symval, sizeof *out * (size_t)v->symval_len);
        return v->symval_len;
    }
    if (!(v->flags & VF_CONST) || v->rank > 1 || !dtype_is_int(v->dtype)) return -1;
    int64_t n = v->rank ? v->shape[0].v : 1;
    if (n < 0 || n > max || dtype_storage_bytes(v->dtype, (uint64_t)n) > v->nbytes || (n && !v->data)) return -1;
    for (int64_t i = 0; i < n; i++) out[i] = dim_static(onnx_const_elem_i64(v, (uint64_t)i));
    return (int)n;
}

int onnx_imp_shape_dims(OnnxCtx *c, const Value *v, const char *what, Dim *out, int max) {
    if (!v) return onnx_imp_error(c, "%s is missing", what);
    if (!onnx_sx_is_symbolic(v)) {
        int64_t ints[IMP_MAX_INTS];
        int n = onnx_imp_const_ints(c, v, what, ints, max < IMP_MAX_INTS ? max : IMP_MAX_INTS);
        for (int i = 0; i < n; i++) out[i] = dim_static(ints[i]);
        return n;
    }
    if (v->symval_len > max) return onnx_imp_error(c, "%s has %d values (at most %d)", what, v->symval_len, max);
    memcpy(out, v->symval, sizeof *out * (size_t)v->symval_len);
    return v->symval_len;
}

/* ---- deciding comparisons from bounds ----------------------------------------------------------- */

/* Range [lo, hi] a dim can take: symbols and products of them are >= 1, bounded by maxSize. */
static void dim_range(const Graph *g, Dim d, int64_t *lo, int64_t *hi) {
    if (dim_is_static(d)) {
        *lo = *hi = d.v;
        return;
    }
    char k = (d.e > 0 && d.e < g->n_exprs) ? g->exprs[d.e].kind : '?';
    *lo = (k == 's' || k == '*') ? 1 : (k == '/' ? 0 : INT64_MIN);
    *hi = d.v > 0 ? d.v : INT64_MAX;
}

/* a OP b for OP in the comparison family: 1 true, 0 false, -1 undecidable. */
static int decide(Graph *g, OpId op, Dim a, Dim b) {
    if (op == OP_LESSER) return decide(g, OP_GREATER, b, a);
    if (op == OP_LESSER_OR_EQUAL) return decide(g, OP_GREATER_OR_EQUAL, b, a);
    int64_t alo, ahi, blo, bhi;
    Dim diff = dim_sub(g, a, b); /* affine normal form: (S+1) - S == 1 */
    if (dim_is_static(diff)) {
        a = diff;
        b = dim_static(0);
    }
    dim_range(g, a, &alo, &ahi);
    dim_range(g, b, &blo, &bhi);
    bool eq = dim_equal(a, b);
    switch (op) {
    case OP_EQUAL: return eq ? 1 : (ahi < blo || bhi < alo) ? 0 : -1;
    case OP_NOT_EQUAL: return eq ? 0 : (ahi < blo || bhi < alo) ? 1 : -1;
    case OP_GREATER: return eq ? 0 : alo > bhi ? 1 : ahi <= blo ? 0 : -1;
    case OP_GREATER_OR_EQUAL: return eq ? 1 : alo >= bhi ? 1 : ahi < blo ? 0 : -1;
    default: return -1;
    }
}

/* max/min of two dims when decidable; false otherwise. */
bool onnx_sx_dim_extreme(Graph *g, bool want_max, Dim a, Dim b, Dim *out) {
    int ge = decide(g, OP_GREATER_OR_EQUAL, a, b);
    if (ge < 0) {
        int le = decide(g, OP_GREATER_OR_EQUAL, b, a); /* b >= a: a is the smaller */
        if (le < 0) return false;
        ge = le == 1 ? 0 : 1;
    }
    *out = (ge == 1) == want_max ? a : b;
    return true;
}

/* ---- propagation ----------------------------------------------------------------------------------- */

/* Sets output 0; 1 (handled) or -1 when v is NULL (an error was recorded). */
static int sx_done(OnnxCtx *c, Value *v) {
    onnx_imp_set_out(c, 0, v);
    return v ? 1 : -1;
}

/* Binary element-wise ops on shape values; returns 1 done, 0 not representable, -1 error. */
static int sx_binary(OnnxCtx *c, OpId op) {
    Dim a[SX_MAX_ELEMS], b[SX_MAX_ELEMS], r[SX_MAX_ELEMS];
    Value *va = c->in[0], *vb = c->in[1];
    int na = elems_of(va, a, SX_MAX_ELEMS), nb = elems_of(vb, b, SX_MAX_ELEMS);
    if (na < 0 || nb < 0 || (na != nb && na != 1 && nb != 1)) return 0;
    int n = na > nb ? na : nb, rank = va->rank > vb->rank ? va->rank : vb->rank;
    bool cmp = op_info(op)->flags & OPF_COMPARE;
    for (int i = 0; i < n; i++) {
        Dim x = a[na == 1 ? 0 : i], y = b[nb == 1 ? 0 : i];
        switch (op) {
        case OP_ADD: r[i] = dim_add(c->g, x, y); break;
        case OP_SUB: r[i] = dim_sub(c->g, x, y); break;
        case OP_MUL: r[i] = dim_mul(c->g, x, y); break;
        case OP_DIV:
            if (!dim_equal(x, y) && !(dim_is_static(y) && y.v > 0)) return 0;
            r[i] = dim_div(c->g, x, y);
            break;
        case OP_MAX:
        case OP_MIN:
            if (!onnx_sx_dim_extreme(c->g, op == OP_MAX, x, y, &r[i])) return 0;
            break;
        default: {
            int d = cmp ? decide(c->g, op, x, y) : -1;
            if (d < 0) return 0;
            r[i] = dim_static(d);
        }
        }
    }
    return sx_done(c, onnx_sx_new(c, cmp ? DT_U8 : va->dtype, rank, n, r));
}

static int sx_gather(OnnxCtx *c, const Dim *x, int n) {
    Value *idx = c->in[1];
    Dim ids[SX_MAX_ELEMS], r[SX_MAX_ELEMS];
    if (onnx_attr_int(c, "axis", 0) != 0 || c->in[0]->rank != 1 || onnx_sx_is_symbolic(idx)) return 0;
    int k = elems_of(idx, ids, SX_MAX_ELEMS);
    if (k < 0) return 0;
    for (int i = 0; i < k; i++) {
        int64_t j = ids[i].v;
        if (j < -n || j >= n) return onnx_imp_error(c, "index %lld out of range for a shape of %d values", (long long)j, n);
        r[i] = x[j < 0 ? j + n : j];
    }
    return sx_done(c, onnx_sx_new(c, c->in[0]->dtype, idx->rank, k, r));
}

static int64_t clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static int sx_slice(OnnxCtx *c, const Dim *x, int n) {
    int64_t p[4] = {0, 0, 0, 1}; /* starts, ends, axes, steps */
    if (c->opset < 10 || c->n_in < 3) return 0;
    for (int i = 1; i < c->n_in && i <= 4; i++) {
        int64_t one;
        Value *v = c->in[i];
        if (!v) continue;
        if (onnx_sx_is_symbolic(v) || onnx_imp_const_ints(c, v, "slice operand", &one, 1) != 1) return diag_has_error() ? -1 : 0;
        p[i - 1] = one;
    }
    if (p[2] != 0 && p[2] != -1) return onnx_imp_error(c, "axis %lld out of range for a shape value", (long long)p[2]);
    int64_t s = p[0], e = p[1], step = p[3];
    if (step <= 0) return 0;
    if (s < 0) s += n;
    if (e < 0) e += n;
    s = clampi(s, 0, n);
    e = clampi(e, 0, n);
    Dim r[SX_MAX_ELEMS];
    int k = 0;
    for (int64_t i = s; i < e; i += step) r[k++] = x[i];
    if (k == 0) return onnx_imp_error(c, "zero-size tensor (empty slice of a shape) is not representable in WebNN");
    return sx_done(c, onnx_sx_new(c, c->in[0]->dtype, 1, k, r));
}

static int sx_concat(OnnxCtx *c) {
    Dim r[SX_MAX_ELEMS];
    int k = 0;
    for (int i = 0; i < c->n_in; i++) {
        if (!c->in[i] || c->in[i]->rank != 1) return 0;
        int m = elems_of(c->in[i], r + k, SX_MAX_ELEMS - k);
        if (m < 0) return 0;
        k += m;
    }
    return k ? sx_done(c, onnx_sx_new(c, c->in[0]->dtype, 1, k, r)) : 0;
}

/* Unsqueeze/Squeeze/Reshape/Expand/Identity/Cast: same elements, rank 0 or 1 result. */
static int sx_reshaped(OnnxCtx *c, const Dim *x, int n, int rank) {
    if (rank < 0 || rank > 1 || (rank == 0 && n != 1)) return 0;
    return sx_done(c, onnx_sx_new(c, c->in[0]->dtype, rank, n, x));
}

/* Rank of a Reshape/Expand/Unsqueeze/Squeeze result on a value of rank <= 1 with n elements; -1 when
 * it is not a rank <= 1 result. */
static int result_rank(OnnxCtx *c, const char *type, int n) {
    Dim s[WN_MAX_RANK];
    Value *v = c->in[0];
    if (!strcmp(type, "Reshape")) {
        int k = elems_of(c->n_in > 1 ? c->in[1] : NULL, s, WN_MAX_RANK);
        if (k < 0 || k > 1) return -1;
        return k == 0 || s[0].v == -1 || s[0].v == n ? k : -1;
    }
    if (!strcmp(type, "Expand")) {
        int k = elems_of(c->n_in > 1 ? c->in[1] : NULL, s, WN_MAX_RANK);
        if (k < 0 || k > 1 || (k == 1 && s[0].v != 1 && s[0].v != n)) return -1;
        return k > v->rank ? k : v->rank;
    }
    int64_t axes[WN_MAX_RANK];
    int k = -1;
    if (c->opset >= 13 && c->n_in > 1 && c->in[1]) {
        Dim a[WN_MAX_RANK];
        k = elems_of(c->in[1], a, WN_MAX_RANK);
        for (int i = 0; i < k; i++) axes[i] = a[i].v;
    } else if (c->opset < 13) {
        k = onnx_attr_ints(c, "axes", axes, WN_MAX_RANK);
    }
    if (!strcmp(type, "Unsqueeze")) return (k == 1 && v->rank == 0 && (axes[0] == 0 || axes[0] == -1)) ? 1 : -1;
    /* Squeeze: [1] -> scalar. */
    return (v->rank == 1 && n == 1 && (k < 0 || (k == 1 && (axes[0] == 0 || axes[0] == -1)))) ? 0 : -1;
}

static int sx_reduce_prod(OnnxCtx *c, const Dim *x, int n) {
    if (c->in[0]->rank != 1 || (c->n_in > 1 && c->in[1])) return 0; /* only the default axes */
    int64_t axes[1];
    int na = onnx_attr_ints(c, "axes", axes, 1);
    if (na > 0 && axes[0] != 0 && axes[0] != -1) return 0;
    Dim p = dim_static(1);
    for (int i = 0; i < n; i++) p = dim_mul(c->g, p, x[i]);
    bool keep = onnx_attr_int(c, "keepdims", 1) != 0;
    return sx_done(c, onnx_sx_new(c, c->in[0]->dtype, keep ? 1 : 0, 1, &p));
}

static int sx_where(OnnxCtx *c) {
    Dim cond[SX_MAX_ELEMS], a[SX_MAX_ELEMS], b[SX_MAX_ELEMS], r[SX_MAX_ELEMS];
    if (c->n_in != 3 || onnx_sx_is_symbolic(c->in[0])) return 0;
    int nc = elems_of(c->in[0], cond, SX_MAX_ELEMS), na = elems_of(c->in[1], a, SX_MAX_ELEMS),
        nb = elems_of(c->in[2], b, SX_MAX_ELEMS);
    if (nc < 0 || na < 0 || nb < 0) return 0;
    int n = nc > na ? nc : na;
    n = nb > n ? nb : n;
    if ((nc != n && nc != 1) || (na != n && na != 1) || (nb != n && nb != 1)) return 0;
    int rank = 0;
    for (int i = 0; i < 3; i++) rank = c->in[i]->rank > rank ? c->in[i]->rank : rank;
    for (int i = 0; i < n; i++) r[i] = cond[nc == 1 ? 0 : i].v ? a[na == 1 ? 0 : i] : b[nb == 1 ? 0 : i];
    return sx_done(c, onnx_sx_new(c, c->in[1]->dtype, rank, n, r));
}

/* ONNX binary ops evaluated on shape values, with the WebNN op that gives their meaning. */
static const struct {
    const char *type;
    OpId op;
} sx_binaries[] = {
    {"Add", OP_ADD}, {"Sub", OP_SUB}, {"Mul", OP_MUL}, {"Div", OP_DIV}, {"Max", OP_MAX}, {"Min", OP_MIN},
    {"Equal", OP_EQUAL}, {"Greater", OP_GREATER}, {"GreaterOrEqual", OP_GREATER_OR_EQUAL},
    {"Less", OP_LESSER}, {"LessOrEqual", OP_LESSER_OR_EQUAL},
};

int onnx_sx_try(OnnxCtx *c) {
    bool any = false;
    for (int i = 0; i < c->n_in; i++) any |= onnx_sx_is_symbolic(c->in[i]);
    const char *type = c->node->op_type;
    if (!any || !type || (c->domain && strcmp(c->domain, "ai.onnx") != 0)) return 0;
    for (size_t i = 0; i < sizeof sx_binaries / sizeof sx_binaries[0]; i++)
        if (!strcmp(type, sx_binaries[i].type)) return c->n_in == 2 ? sx_binary(c, sx_binaries[i].op) : 0;
    if (!strcmp(type, "Concat")) {
        int64_t axis = onnx_attr_int(c, "axis", 0);
        return axis == 0 || axis == -1 ? sx_concat(c) : 0;
    }
    if (!strcmp(type, "Where")) return sx_where(c);
    Value *x = c->in[0];
    Dim v[SX_MAX_ELEMS];
    int n = onnx_sx_is_symbolic(x) ? elems_of(x, v, SX_MAX_ELEMS) : -1;
    if (n < 0) return 0; /* only input 0 carries the shape value below */
    if (!strcmp(type, "Identity")) return sx_done(c, x);
    if (!strcmp(type, "Cast")) {
        DType to = onnx_elem_dtype((int)onnx_attr_int(c, "to", 0));
        if (to == DT_INVALID || !dtype_is_int(to) || onnx_attr_int(c, "to", 0) == 9) return 0;
        return sx_done(c, onnx_sx_new(c, to, x->rank, n, v));
    }
    if (!strcmp(type, "Gather")) return sx_gather(c, v, n);
    if (!strcmp(type, "Slice")) return sx_slice(c, v, n);
    if (!strcmp(type, "ReduceProd")) return sx_reduce_prod(c, v, n);
    if (!strcmp(type, "Unsqueeze") || !strcmp(type, "Squeeze") || !strcmp(type, "Reshape") || !strcmp(type, "Expand")) {
        for (int i = 1; i < c->n_in; i++)
            if (onnx_sx_is_symbolic(c->in[i])) return 0;
        return sx_reshaped(c, v, n, result_rank(c, type, n));
    }
    return 0;
}

/* ---- materialization -------------------------------------------------------------------------------- */

/* Inserts n (shape inference) and folds it when its operands are constants. */
static Value *insert(Graph *g, Node *n) {
    if (graph_insert_node(g, n) < 0 || eval_fold_node(g, n) < 0) return NULL;
    return n->outputs[0];
}

/* [1, 2, ..., max] of dtype dt. */
static Value *iota1(Graph *g, DType dt, int64_t max) {
    if (max <= 0 || max > INT32_MAX) {
        diag_error("a symbolic dimension without a usable upper bound (%lld) is used as data", (long long)max);
        return NULL;
    }
    uint64_t nbytes = dtype_storage_bytes(dt, (uint64_t)max);
    void *buf = graph_alloc(g, nbytes);
    for (int64_t i = 0; i < max; i++) onnx_store_elem_f64(dt, buf, (uint64_t)i, (double)(i + 1));
    int64_t shape[1] = {max};
    return graph_add_const(g, "iota", dt, 1, shape, buf, nbytes);
}

static Value *scalar_const(Graph *g, DType dt, int64_t v) {
    void *buf = graph_alloc(g, 8);
    onnx_store_elem_f64(dt, buf, 0, (double)v);
    return graph_add_const(g, "dim", dt, 0, NULL, buf, dtype_storage_bytes(dt, 1));
}

/* A scalar of dtype dt holding the run-time value of d. */
static Value *dim_data(Graph *g, const char *origin, DType dt, Dim d, int depth) {
    if (dim_is_static(d)) return scalar_const(g, dt, d.v);
    if (depth > SX_MAX_DEPTH || d.e <= 0 || d.e >= g->n_exprs) {
        diag_error("node %s: shape expression too deep to materialize", origin);
        return NULL;
    }
    const DimExpr e = g->exprs[d.e];
    if (e.kind == 's') {
        Value *iota = iota1(g, dt, d.v);
        if (!iota) return NULL;
        Node *s = graph_new_node(g, OP_SLICE, origin);
        node_add_input(g, s, iota);
        int64_t start[1] = {0};
        node_set_ints(g, s, "starts", 1, start);
        node_set_dims(g, s, "sizes", 1, &d);
        Value *sl = insert(g, s);
        if (!sl) return NULL;
        Node *r = graph_new_node(g, OP_REDUCE_MAX, origin);
        node_add_input(g, r, sl);
        node_set_ints(g, r, "axes", 1, start);
        node_set_bool(g, r, "keepDimensions", false);
        return insert(g, r);
    }
    OpId op = e.kind == '+' ? OP_ADD : e.kind == '-' ? OP_SUB : e.kind == '*' ? OP_MUL : OP_DIV;
    Value *a = dim_data(g, origin, dt, e.a, depth + 1), *b = a ? dim_data(g, origin, dt, e.b, depth + 1) : NULL;
    if (!b) return NULL;
    Node *n = graph_new_node(g, op, origin);
    node_add_input(g, n, a);
    node_add_input(g, n, b);
    return insert(g, n);
}

Value *onnx_sx_materialize(Graph *g, const char *origin, Value *v) {
    if (!onnx_sx_is_symbolic(v)) return v;
    SymValue *s = (SymValue *)v;
    if (s->data) return s->data;
    Value *parts[SX_MAX_ELEMS];
    int n = v->symval_len;
    if (n < 1 || n > SX_MAX_ELEMS) {
        diag_error("internal: symbolic value %s has %d elements", value_display_name(v), n);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        parts[i] = dim_data(g, origin, v->dtype, v->symval[i], 0);
        if (!parts[i]) return NULL;
        if (v->rank == 1) {
            Node *r = graph_new_node(g, OP_RESHAPE, origin);
            node_add_input(g, r, parts[i]);
            Dim one = dim_static(1);
            node_set_dims(g, r, "newShape", 1, &one);
            if (!(parts[i] = insert(g, r))) return NULL;
        }
    }
    Value *out = parts[0];
    if (n > 1) {
        Node *cat = graph_new_node(g, OP_CONCAT, origin);
        for (int i = 0; i < n; i++) node_add_input(g, cat, parts[i]);
        node_set_uint(g, cat, "axis", 0);
        if (!(out = insert(g, cat))) return NULL;
    }
    s->data = out;
    return out;
}
