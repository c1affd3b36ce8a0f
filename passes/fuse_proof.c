/* fuse_proof.c - matching a fusion candidate by re-decomposing it in a scratch graph and comparing
 * the result with the real graph node by node (fuse_proof.h). */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fuse_proof.h"
#include "pass.h"

#define FP_MAX_DEPTH 256 /* bound of the backward comparison (a decomposition is ~60 nodes deep at most) */

int pass_fp_begin(FuseProof *p, const Graph *g, OpId op) {
    memset(p, 0, sizeof *p);
    p->s = graph_new("fusion-candidate");
    if (!p->s) {
        diag_error("out of memory in fusion");
        return -1;
    }
    Graph *s = p->s;
    if (g->exprs && g->n_exprs > 0) { /* same symbolic dims: copy the tables verbatim so Dim indices agree */
        s->exprs = graph_alloc(s, sizeof *s->exprs * (size_t)g->n_exprs);
        memcpy(s->exprs, g->exprs, sizeof *s->exprs * (size_t)g->n_exprs);
        s->n_exprs = s->cap_exprs = g->n_exprs;
    }
    if (g->symbols && g->n_symbols > 0) {
        s->symbols = graph_alloc(s, sizeof *s->symbols * (size_t)g->n_symbols);
        memcpy(s->symbols, g->symbols, sizeof *s->symbols * (size_t)g->n_symbols);
        s->n_symbols = s->cap_symbols = g->n_symbols;
    }
    p->cand = graph_new_node(s, op, "candidate");
    return 0;
}

static Value *mirror(FuseProof *p, Value *real) {
    for (int i = 0; i < p->n; i++)
        if (p->outer[i] == real && p->inner[i]) return p->inner[i];
    if (pass_fm_is_const(real) && value_is_static(real)) {
        int64_t shape[WN_MAX_RANK];
        for (int i = 0; i < real->rank; i++) shape[i] = real->shape[i].v;
        return graph_add_const(p->s, real->name, real->dtype, real->rank, shape, real->data, real->nbytes);
    }
    return graph_add_input(p->s, real->name, real->dtype, real->rank, real->shape);
}

void pass_fp_operand(FuseProof *p, Value *real) {
    if (p->n >= WN_MAX_INPUT_SLOTS) {
        p->overflow = true;
        return;
    }
    Value *in = real ? mirror(p, real) : NULL;
    p->outer[p->n] = real;
    p->inner[p->n++] = in;
    node_add_input(p->s, p->cand, in);
}

/* ---- options --------------------------------------------------------------------------------- */

void pass_fm_copy_attrs(Graph *g, Node *to, const Node *from) {
    for (int i = 0; i < from->n_attrs; i++) {
        const Attr *a = &from->attrs[i];
        switch (a->type) {
        case AT_INT: node_set_int(g, to, a->key, a->u.i); break;
        case AT_UINT: node_set_uint(g, to, a->key, a->u.i); break;
        case AT_BOOL: node_set_bool(g, to, a->key, a->u.i != 0); break;
        case AT_DTYPE: node_set_dtype(g, to, a->key, (DType)a->u.i); break;
        case AT_FLOAT: node_set_float(g, to, a->key, a->u.f); break;
        case AT_STRING: node_set_string(g, to, a->key, a->u.s); break;
        case AT_INTS: node_set_ints(g, to, a->key, a->n, a->u.ints); break;
        case AT_FLOATS: node_set_floats(g, to, a->key, a->n, a->u.floats); break;
        case AT_STRINGS: node_set_strings(g, to, a->key, a->n, a->u.strs); break;
        case AT_DIMS: node_set_dims(g, to, a->key, a->n, a->u.dims); break;
        default: break;
        }
    }
}

static bool attr_equal(const Attr *a, const Attr *b) {
    if (a->type != b->type) return false;
    switch (a->type) {
    case AT_FLOAT: return a->u.f == b->u.f;
    case AT_STRING: return strcmp(a->u.s, b->u.s) == 0;
    case AT_INTS: return a->n == b->n && (a->n == 0 || memcmp(a->u.ints, b->u.ints, sizeof(int64_t) * (size_t)a->n) == 0);
    case AT_FLOATS:
        if (a->n != b->n) return false;
        for (int i = 0; i < a->n; i++)
            if (a->u.floats[i] != b->u.floats[i]) return false;
        return true;
    case AT_STRINGS:
        if (a->n != b->n) return false;
        for (int i = 0; i < a->n; i++)
            if (strcmp(a->u.strs[i], b->u.strs[i]) != 0) return false;
        return true;
    case AT_DIMS:
        if (a->n != b->n) return false;
        for (int i = 0; i < a->n; i++)
            if (!dim_equal(a->u.dims[i], b->u.dims[i])) return false;
        return true;
    default: return a->u.i == b->u.i;
    }
}

static int counted_attrs(const Node *n) {
    int c = 0;
    for (int i = 0; i < n->n_attrs; i++) c += strcmp(n->attrs[i].key, "label") != 0;
    return c;
}

bool pass_fm_same_attrs(const Node *a, const Node *b) {
    if (counted_attrs(a) != counted_attrs(b)) return false;
    for (int i = 0; i < a->n_attrs; i++) {
        if (strcmp(a->attrs[i].key, "label") == 0) continue;
        const Attr *o = node_attr(b, a->attrs[i].key);
        if (!o || !attr_equal(&a->attrs[i], o)) return false;
    }
    return true;
}

/* ---- the comparison --------------------------------------------------------------------------- */

typedef struct {
    FuseProof *p;
    FuseMatch *m;
    Value *bound[WN_MAX_INPUT_SLOTS];
} Cmp;

static bool same_const(const Value *s, const Value *r) {
    if (!pass_fm_is_const(r) || r->producer || s->nbytes != r->nbytes) return false;
    return s->data == r->data || memcmp(s->data, r->data, (size_t)s->nbytes) == 0;
}

static bool cmp_value(Cmp *c, Value *sv, Value *rv, int depth) {
    if (!sv || !rv) return sv == rv;
    if (depth > FP_MAX_DEPTH || sv->dtype != rv->dtype || !pass_fm_same_shape(sv, rv)) return false;
    if (sv->flags & VF_INPUT) {
        for (int i = 0; i < c->p->n; i++)
            if (c->p->inner[i] == sv) {
                if (c->bound[i] && c->bound[i] != rv) return false;
                c->bound[i] = rv;
                return true;
            }
        return false;
    }
    Node *sn = sv->producer;
    if (!sn) return same_const(sv, rv);
    Node *rn = rv->producer;
    if (!rn || rn->dead || rn->op != sn->op || rv->producer_slot != sv->producer_slot || rn->n_inputs != sn->n_inputs ||
        rn->n_outputs != sn->n_outputs || sn->index < 0 || sn->index >= c->p->n_map || !pass_fm_same_attrs(sn, rn))
        return false;
    Node **slot = &c->p->map[sn->index];
    if (*slot) return *slot == rn;
    if (pass_fm_has(c->m, rn)) return false; /* two scratch nodes on one real node */
    *slot = rn;
    pass_fm_add(c->m, rn);
    for (int j = 0; j < sn->n_inputs; j++)
        if (!cmp_value(c, sn->inputs[j], rn->inputs[j], depth + 1)) return false;
    return true;
}

/* One comparison of the scratch outputs with the exits; restores m on failure. */
static bool compare(FuseProof *p, Value *const *exits, int n_exits, FuseMatch *m) {
    FuseMatch before = *m;
    Cmp c = {.p = p, .m = m};
    free(p->map);
    p->n_map = p->s->n_nodes;
    p->map = calloc((size_t)p->n_map + 1, sizeof *p->map);
    bool ok = p->map != NULL;
    for (int i = 0; ok && i < n_exits && i < p->s->n_outputs; i++)
        if (exits[i]) ok = cmp_value(&c, p->s->outputs[i], exits[i], 0);
    for (int i = 0; ok && i < p->n; i++) ok = !c.bound[i] || c.bound[i] == p->outer[i];
    if (!ok || m->overflow) *m = before;
    return ok && !m->overflow;
}

int pass_fp_prove(FuseProof *p, FuseMap *fm, const char *decompose, Value *const *exits, int n_exits, FuseMatch *m) {
    (void)fm;
    if (p->overflow || graph_insert_node(p->s, p->cand) < 0) {
        diag_clear(); /* an impossible guess: no match, not an error */
        return 0;
    }
    for (int i = 0; i < p->cand->n_outputs; i++) graph_add_output(p->s, p->cand->outputs[i]);
    const char *unfolded[] = {decompose, "identity", "dce"}, *folded[] = {"fold_constants", "identity", "dce"};
    if (pass_run_list(p->s, unfolded, 3, NULL) < 0) {
        diag_clear();
        return 0;
    }
    if (compare(p, exits, n_exits, m)) return 1;
    if (pass_run_list(p->s, folded, 3, NULL) < 0) {
        diag_clear();
        return 0;
    }
    return compare(p, exits, n_exits, m) ? 1 : 0;
}

Node *pass_fp_emit(FuseProof *p, FuseMap *fm, const Node *anchor) {
    Node *f = pass_fm_emit_begin(fm, p->cand->op, anchor);
    for (int i = 0; i < p->n; i++) node_add_input(fm->g, f, p->outer[i]);
    pass_fm_copy_attrs(fm->g, f, p->cand);
    return f;
}

void pass_fp_end(FuseProof *p) {
    free(p->map);
    if (p->s) graph_free(p->s);
    memset(p, 0, sizeof *p);
}
