/* prefix_fold.c - constant folding through symbolic dims ("prefix constants").
 *
 * A tensor whose elements are a function of their index only (Range over a symbolic limit, an
 * expand of a constant, and anything computed from those) is, at run time, the leading corner of
 * the same computation done at the dims' upper bounds.  While importing, every node whose operands
 * are all constants or such tensors and whose op maps in-range output indices to the same input
 * indices whatever the extents (element-wise ops, casts, where, transpose, triangular, gathers,
 * slices, forward cumulative sums, reductions over static axes, concat after static pieces,
 * reshapes that keep the one symbolic dim with the same static neighbours) gets a *twin* evaluated
 * at the upper bounds: its constant result is the value's shadow.  Static results become constants;
 * a consumer outside that set reads slice(shadow, 0, real dims) instead (onnx_pf_materialize), so the
 * run-time chain (which may carry compound dims such as (1+S)) becomes dead and DCE removes it.
 * This is how the torch-dynamo causal-mask subgraph folds to one sliced constant. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "import_internal.h"

struct PrefixShadows {
    Value **full;  /* indexed by value id: the constant at the upper bounds */
    Value **data;  /* materialized slice, once needed */
    int cap;
};

PrefixShadows *onnx_pf_new(void) { return calloc(1, sizeof(PrefixShadows)); }

void onnx_pf_free(PrefixShadows *pf) {
    if (!pf) return;
    free(pf->full);
    free(pf->data);
    free(pf);
}

static Value *shadow_of(const PrefixShadows *pf, const Value *v) {
    return (pf && v && v->id >= 0 && v->id < pf->cap) ? pf->full[v->id] : NULL;
}

static int set_shadow(PrefixShadows *pf, const Value *v, Value *full) {
    if (v->id >= pf->cap) {
        int ncap = pf->cap ? pf->cap : 256;
        while (ncap <= v->id) ncap *= 2;
        Value **f = realloc(pf->full, sizeof *f * (size_t)ncap), **d = f ? realloc(pf->data, sizeof *d * (size_t)ncap) : NULL;
        if (f) pf->full = f;
        if (!f || !d) {
            diag_error("out of memory");
            return -1;
        }
        pf->data = d;
        memset(pf->full + pf->cap, 0, sizeof *f * (size_t)(ncap - pf->cap));
        memset(pf->data + pf->cap, 0, sizeof *d * (size_t)(ncap - pf->cap));
        pf->cap = ncap;
    }
    pf->full[v->id] = full;
    return 0;
}

/* ---- which nodes keep in-range indices -------------------------------------------------------- */

/* The single symbolic dim of a shape with static products before/after it; false otherwise. */
static bool one_symbolic(int rank, const Dim *s, Dim *sym, int64_t *before, int64_t *after) {
    int k = -1;
    *before = *after = 1;
    for (int i = 0; i < rank; i++) {
        if (dim_is_static(s[i])) continue;
        if (k >= 0) return false;
        k = i;
    }
    if (k < 0) return false;
    for (int i = 0; i < rank; i++) {
        if (i == k) continue;
        if (__builtin_mul_overflow(i < k ? *before : *after, s[i].v, i < k ? before : after)) return false;
    }
    *sym = s[k];
    return true;
}

static bool reshape_keeps_prefix(const Node *n) {
    const Value *x = n->inputs[0];
    const Dim *shape;
    int rank = node_dims(n, "newShape", &shape);
    Dim a, b;
    int64_t ba, aa, bb, ab;
    if (rank < 0 || value_is_static(x)) return rank >= 0;
    return one_symbolic(x->rank, x->shape, &a, &ba, &aa) && one_symbolic(rank, shape, &b, &bb, &ab) && dim_equal(a, b) &&
           ba == bb && aa == ab;
}

static bool static_axes(const Node *n, const char *key) {
    const Value *x = n->inputs[0];
    const int64_t *axes;
    int na = node_ints(n, key, &axes);
    if (na < 0) return value_is_static(x); /* all axes */
    for (int i = 0; i < na; i++)
        if (axes[i] < 0 || axes[i] >= x->rank || !dim_is_static(x->shape[axes[i]])) return false;
    return true;
}

static bool keeps_prefix(const Node *n) {
    const OpInfo *info = op_info(n->op);
    if (n->n_inputs < 1 || !n->inputs[0]) return false;
    if (info->flags & (OPF_ELTWISE_UNARY | OPF_ELTWISE_BINARY | OPF_COMPARE | OPF_LOGICAL)) return true;
    if (info->flags & OPF_REDUCE) return static_axes(n, "axes");
    const Value *x = n->inputs[0];
    switch (n->op) {
    case OP_CAST:
    case OP_WHERE:
    case OP_TRANSPOSE:
    case OP_TRIANGULAR:
    case OP_GATHER:
    case OP_GATHER_ND:
    case OP_GATHER_ELEMENTS:
    case OP_SLICE:
    case OP_EXPAND: return true;
    case OP_RESHAPE: return reshape_keeps_prefix(n);
    case OP_CUMULATIVE_SUM: {
        int64_t axis = node_int(n, "axis", 0);
        return axis >= 0 && axis < x->rank && (dim_is_static(x->shape[axis]) || !node_bool(n, "reversed", false));
    }
    case OP_CONCAT: {
        int64_t axis = node_int(n, "axis", 0);
        for (int i = 0; i + 1 < n->n_inputs; i++)
            if (!n->inputs[i] || axis < 0 || axis >= n->inputs[i]->rank || !dim_is_static(n->inputs[i]->shape[axis]))
                return false;
        return true;
    }
    default: return false;
    }
}

/* ---- materializing a shadow ---------------------------------------------------------------------- */

Value *onnx_pf_materialize(PrefixShadows *pf, Graph *g, Value *v) {
    Value *full = shadow_of(pf, v);
    if (!full) return v;
    if (pf->data[v->id]) return pf->data[v->id];
    Node *s = graph_new_node(g, OP_SLICE, v->origin);
    node_add_input(g, s, full);
    int64_t zeros[WN_MAX_RANK] = {0};
    node_set_ints(g, s, "starts", v->rank, zeros);
    node_set_dims(g, s, "sizes", v->rank, v->shape);
    if (graph_insert_node(g, s) < 0) return NULL;
    return pf->data[v->id] = s->outputs[0];
}

/* ---- hooks around node insertion (onnx_imp_insert) ------------------------------------------------------ */

int onnx_pf_prepare(PrefixShadows *pf, Graph *g, Node *n) {
    if (!pf) return 0;
    bool any = false, all = true;
    for (int i = 0; i < n->n_inputs; i++) {
        Value *v = n->inputs[i];
        if (!v) continue;
        if (shadow_of(pf, v)) any = true;
        else if (!(v->flags & VF_CONST)) all = false;
    }
    if (all && keeps_prefix(n)) return 1;
    if (!any) return 0;
    for (int i = 0; i < n->n_inputs; i++) {
        if (!shadow_of(pf, n->inputs[i])) continue;
        if (!(n->inputs[i] = onnx_pf_materialize(pf, g, n->inputs[i]))) return -1;
    }
    return 0;
}

/* The upper bound of every dim in a dims option (sizes, newShape). */
static void bound_dims(Graph *g, Attr *a) {
    Dim *d = graph_alloc(g, sizeof *d * (size_t)(a->n ? a->n : 1));
    for (int i = 0; i < a->n; i++) d[i] = dim_static(dim_max(a->u.dims[i]));
    a->u.dims = d;
}

int onnx_pf_twin(PrefixShadows *pf, Graph *g, Node *n) {
    if (!pf || n->dead || n->n_outputs != 1) return 0;
    Value *out = n->outputs[0];
    Node *t = graph_new_node(g, n->op, n->origin);
    for (int i = 0; i < n->n_inputs; i++) {
        Value *v = n->inputs[i], *full = shadow_of(pf, v);
        node_add_input(g, t, full ? full : v);
    }
    t->n_attrs = n->n_attrs;
    t->attrs = graph_alloc(g, sizeof *t->attrs * (size_t)(n->n_attrs ? n->n_attrs : 1));
    if (n->n_attrs) memcpy(t->attrs, n->attrs, sizeof *t->attrs * (size_t)n->n_attrs);
    for (int i = 0; i < t->n_attrs; i++) {
        if (t->attrs[i].type != AT_DIMS) continue;
        for (int k = 0; k < t->attrs[i].n; k++)
            if (dim_max(t->attrs[i].u.dims[k]) <= 0) return 0; /* unknown bound: keep the run-time node */
        bound_dims(g, &t->attrs[i]);
    }
    if (n->op == OP_SLICE) { /* a window reaching past a bounded input stays inside the full one */
        const int64_t *starts;
        int ns = node_ints(t, "starts", &starts);
        const Value *src = t->inputs[0];
        for (int i = 0; i < t->n_attrs; i++)
            if (!strcmp(t->attrs[i].key, "sizes") && ns == t->attrs[i].n && ns == src->rank) {
                Dim *d = (Dim *)t->attrs[i].u.dims;
                for (int k = 0; k < ns; k++)
                    if (starts[k] + d[k].v > src->shape[k].v) d[k].v = src->shape[k].v - starts[k];
            }
    }
    /* Failures only mean "no shadow": the run-time node stays. */
    bool had_error = diag_has_error();
    if (graph_insert_node(g, t) < 0) {
        if (!had_error) diag_clear();
        return 0;
    }
    int folded = eval_fold_node(g, t);
    if (folded < 0 && !had_error) diag_clear();
    if (folded <= 0) {
        t->dead = true;
        return 0;
    }
    Value *full = t->outputs[0];
    if (value_is_static(out)) { /* the real result is the whole twin: it is a constant */
        if (full->rank != out->rank) return 0;
        for (int i = 0; i < out->rank; i++)
            if (full->shape[i].v != out->shape[i].v) return 0;
        out->flags |= VF_CONST;
        out->data = full->data;
        out->nbytes = full->nbytes;
        out->producer = NULL;
        out->producer_slot = 0;
        n->dead = true;
        return 0;
    }
    return set_shadow(pf, out, full);
}
