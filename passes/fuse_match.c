/* fuse_match.c - the shared machinery of the fusion passes (fuse_match.h): the use/consumer map,
 * bounded producer walks, constant checks, the interior-value check of a match, the commit of a
 * fused node and the stable topological re-sort run after a fusion pass. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "fuse_match.h"

/* ---- the use map ------------------------------------------------------------------------------ */

void pass_fm_free(FuseMap *fm) {
    free(fm->uses);
    free(fm->first);
    free(fm->cons);
    fm->uses = fm->first = NULL;
    fm->cons = NULL;
    fm->n_values = 0;
}

static bool value_ok(const FuseMap *fm, const Value *v) { return v && v->id >= 0 && v->id < fm->n_values; }

int pass_fm_build(FuseMap *fm, Graph *g) {
    pass_fm_free(fm);
    fm->g = g;
    fm->n_values = g->n_values;
    size_t nv = (size_t)g->n_values + 1;
    fm->uses = calloc(nv, sizeof *fm->uses);
    fm->first = calloc(nv + 1, sizeof *fm->first);
    size_t slots = 1;
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead) slots += (size_t)g->nodes[i]->n_inputs;
    fm->cons = calloc(slots, sizeof *fm->cons);
    if (!fm->uses || !fm->first || !fm->cons) {
        pass_fm_free(fm);
        diag_error("out of memory in fusion");
        return -1;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead) continue;
        for (int j = 0; j < n->n_inputs; j++)
            if (value_ok(fm, n->inputs[j])) fm->first[n->inputs[j]->id + 1]++;
    }
    for (int v = 0; v < g->n_values; v++) fm->first[v + 1] += fm->first[v];
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead) continue;
        for (int j = 0; j < n->n_inputs; j++)
            if (value_ok(fm, n->inputs[j])) {
                int id = n->inputs[j]->id;
                fm->cons[fm->first[id] + fm->uses[id]++] = n;
            }
    }
    for (int i = 0; i < g->n_outputs; i++)
        if (value_ok(fm, g->outputs[i])) fm->uses[g->outputs[i]->id]++;
    return 0;
}

int pass_fm_uses(const FuseMap *fm, const Value *v) { return value_ok(fm, v) ? fm->uses[v->id] : 0; }

Node *const *pass_fm_consumers(const FuseMap *fm, const Value *v, int *count) {
    *count = 0;
    if (!value_ok(fm, v)) return NULL;
    *count = fm->first[v->id + 1] - fm->first[v->id];
    return fm->cons + fm->first[v->id];
}

Node *pass_fm_sole_consumer(const FuseMap *fm, const Value *v) {
    int c;
    Node *const *cs = pass_fm_consumers(fm, v, &c);
    if (c != 1 || pass_fm_uses(fm, v) != 1 || (v->flags & VF_OUTPUT)) return NULL;
    return cs[0];
}

Node *pass_fm_consumer_op(const FuseMap *fm, const Value *v, OpId op) {
    int c;
    Node *const *cs = pass_fm_consumers(fm, v, &c);
    for (int i = 0; i < c; i++)
        if (cs[i]->op == op && !cs[i]->dead) return cs[i];
    return NULL;
}

/* ---- producer walks ---------------------------------------------------------------------------- */

Node *pass_fm_prod(const Value *v, OpId op) {
    if (!v || !v->producer || v->producer->dead || v->producer->op != op) return NULL;
    return v->producer;
}

Value *pass_fm_skip(Value *v, OpId through, FuseMatch *m) {
    for (int d = 0; d < FM_MAX_DEPTH && v; d++) {
        Node *p = pass_fm_prod(v, through);
        if (!p || p->n_inputs < 1 || !p->inputs[0]) return v;
        if (m) pass_fm_add(m, p);
        v = p->inputs[0];
    }
    return v;
}

Value *pass_fm_other(const Node *n, const Value *v) {
    if (!n || n->n_inputs != 2) return NULL;
    if (n->inputs[0] == v) return n->inputs[1];
    if (n->inputs[1] == v) return n->inputs[0];
    return NULL;
}

bool pass_fm_reaches(const Value *from, const Value *v) {
    for (int d = 0; d < FM_MAX_DEPTH && from; d++) {
        if (from == v) return true;
        if (!from->producer || from->producer->n_inputs < 1) return false;
        from = from->producer->inputs[0];
    }
    return false;
}

/* ---- constants --------------------------------------------------------------------------------- */

bool pass_fm_is_const(const Value *v) { return v && (v->flags & VF_CONST) && v->data; }

bool pass_fm_const_scalar(const Value *v, double *x) {
    if (!pass_fm_is_const(v) || !value_is_static(v)) return false;
    uint64_t count = value_max_elements(v);
    if (count < 1 || count > (1u << 20) || v->nbytes < dtype_storage_bytes(v->dtype, count)) return false;
    Ten t = {.dt = v->dtype, .rank = v->rank, .count = (int64_t)count, .data = (void *)v->data};
    double first = ten_getf(&t, 0);
    for (uint64_t i = 1; i < count; i++)
        if (ten_getf(&t, (int64_t)i) != first) return false;
    *x = first;
    return true;
}

bool pass_fm_const_scalar_cast(const Value *v, double *x) {
    if (pass_fm_const_scalar(v, x)) return true;
    Node *c = pass_fm_prod(v, OP_CAST);
    return c && c->n_inputs == 1 && pass_fm_const_scalar(c->inputs[0], x);
}

bool pass_fm_near(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(1.0, fabs(b)); }

Node *pass_fm_prod_const(const Value *v, OpId op, double want, double tol, Value **other) {
    Node *n = pass_fm_prod(v, op);
    if (!n || n->n_inputs != 2) return NULL;
    for (int i = op == OP_DIV ? 1 : 0; i < 2; i++) {
        double c;
        if (pass_fm_const_scalar(n->inputs[i], &c) && pass_fm_near(c, want, tol)) {
            *other = n->inputs[1 - i];
            return n;
        }
    }
    return NULL;
}

bool pass_fm_shape_is(const Value *v, int rank, const int64_t *dims) {
    if (!v || v->rank != rank) return false;
    for (int i = 0; i < rank; i++)
        if (!dim_is_static(v->shape[i]) || v->shape[i].v != dims[i]) return false;
    return true;
}

bool pass_fm_same_shape(const Value *a, const Value *b) {
    if (!a || !b || a->rank != b->rank) return false;
    for (int i = 0; i < a->rank; i++)
        if (!dim_equal(a->shape[i], b->shape[i])) return false;
    return true;
}

bool pass_fm_ints_are(const Node *n, const char *key, int count, const int64_t *want) {
    const int64_t *v;
    if (node_ints(n, key, &v) != count) return false;
    for (int i = 0; i < count; i++)
        if (v[i] != want[i]) return false;
    return true;
}

/* ---- the match --------------------------------------------------------------------------------- */

bool pass_fm_has(const FuseMatch *m, const Node *n) {
    for (int i = 0; i < m->n; i++)
        if (m->nodes[i] == n) return true;
    return false;
}

void pass_fm_add(FuseMatch *m, Node *n) {
    if (!n || pass_fm_has(m, n)) return;
    if (m->n >= FM_MAX_NODES) {
        m->overflow = true;
        return;
    }
    m->nodes[m->n++] = n;
}

static bool is_exit(const Value *v, Value *const *exits, int n_exits) {
    for (int i = 0; i < n_exits; i++)
        if (exits[i] == v) return true;
    return false;
}

bool pass_fm_interior_ok(const FuseMap *fm, const FuseMatch *m, Value *const *exits, int n_exits) {
    if (m->overflow || m->n == 0) return false;
    for (int i = 0; i < m->n; i++) {
        const Node *n = m->nodes[i];
        if (n->dead) return false;
        for (int k = 0; k < n->n_outputs; k++) {
            const Value *v = n->outputs[k];
            if (is_exit(v, exits, n_exits)) continue;
            if (v->flags & VF_OUTPUT) return false;
            int c;
            Node *const *cs = pass_fm_consumers(fm, v, &c);
            for (int j = 0; j < c; j++)
                if (!pass_fm_has(m, cs[j])) return false;
        }
    }
    return true;
}

/* ---- rewriting --------------------------------------------------------------------------------- */

Node *pass_fm_emit_begin(FuseMap *fm, OpId op, const Node *anchor) {
    return graph_new_node(fm->g, op, anchor ? anchor->origin : NULL);
}

Value *pass_fm_const(Graph *g, const char *base, DType dt, int rank, const int64_t *shape, const void *data,
                uint64_t nbytes) {
    return graph_add_const_copy(g, base, dt, rank, shape, data, nbytes);
}

Value *pass_fm_const_as(Graph *g, Value *v, DType to) {
    if (!pass_fm_is_const(v) || !value_is_static(v) || !dtype_is_float(v->dtype) || !dtype_is_float(to)) return NULL;
    if (v->dtype == to) return v;
    uint64_t count = value_max_elements(v);
    if (count > (1u << 24) || v->nbytes < dtype_storage_bytes(v->dtype, count)) return NULL;
    uint64_t bytes = dtype_storage_bytes(to, count);
    Ten src = {.dt = v->dtype, .rank = 1, .count = (int64_t)count, .data = (void *)v->data};
    Ten dst = {.dt = to, .rank = 1, .count = (int64_t)count, .data = graph_alloc(g, (size_t)(bytes ? bytes : 1))};
    src.shape[0] = dst.shape[0] = (int64_t)count;
    for (int64_t i = 0; i < (int64_t)count; i++) {
        double x = ten_getf(&src, i);
        if (x != x || ten_round_to_dtype(to, x) != x) return NULL; /* NaN or not exact in `to` */
        ten_setf(&dst, i, x);
    }
    int64_t shape[WN_MAX_RANK];
    for (int i = 0; i < v->rank; i++) shape[i] = v->shape[i].v;
    return graph_add_const(g, v->name, to, v->rank, shape, dst.data, bytes);
}

/* The fused output takes over the exit's name (graph outputs and later readers keep it). */
static void take_name(Value *exit, Value *v) {
    const char *name = v->name;
    v->name = exit->name;
    v->origin = exit->origin;
    exit->name = name;
    if (v->producer && v->producer->n_outputs == 1) v->producer->id = v->name;
}

int pass_fm_insert_commit(FuseMap *fm, FuseMatch *m, Node *fused, Value *const *exits, int n_exits) {
    if (graph_insert_node(fm->g, fused) < 0) return -1;
    return pass_fm_commit(fm, m, fused, exits, n_exits) < 0 ? -1 : 1;
}

int pass_fm_commit(FuseMap *fm, FuseMatch *m, Node *fused, Value *const *exits, int n_exits) {
    if (n_exits > fused->n_outputs) {
        diag_node_error(fused, "internal: fused node has %d outputs for %d exits", fused->n_outputs, n_exits);
        return -1;
    }
    for (int i = 0; i < n_exits; i++) {
        if (!exits[i]) continue;
        Value *o = fused->outputs[i];
        if (o->dtype != exits[i]->dtype || !pass_fm_same_shape(o, exits[i])) {
            diag_node_error(fused, "internal: fused output %d differs from %s", i, value_display_name(exits[i]));
            return -1;
        }
    }
    for (int i = 0; i < m->n; i++) m->nodes[i]->dead = true;
    for (int i = 0; i < n_exits; i++) {
        if (!exits[i]) continue;
        graph_replace_uses(fm->g, exits[i], fused->outputs[i]);
        take_name(exits[i], fused->outputs[i]);
    }
    return pass_fm_build(fm, fm->g);
}

int pass_fm_toposort(Graph *g) {
    int n = g->n_nodes;
    Node **order = malloc(sizeof *order * (size_t)(n + 1));
    int *stack = malloc(sizeof *stack * (size_t)(n + 1));
    unsigned char *state = calloc((size_t)n + 1, 1); /* 0 new, 1 on stack, 2 placed */
    if (!order || !stack || !state) {
        free(order), free(stack), free(state);
        diag_error("out of memory in fusion");
        return -1;
    }
    for (int i = 0; i < n; i++) g->nodes[i]->index = i;
    int w = 0, rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (state[i] || g->nodes[i]->dead) continue;
        int sp = 0;
        stack[sp++] = i;
        state[i] = 1;
        while (sp > 0 && rc == 0) {
            Node *top = g->nodes[stack[sp - 1]];
            int next = -1;
            for (int j = 0; j < top->n_inputs && next < 0; j++) {
                const Value *v = top->inputs[j];
                Node *p = v ? v->producer : NULL;
                if (!p || p->dead || p->index < 0 || p->index >= n || state[p->index] == 2) continue;
                if (state[p->index] == 1) rc = -1; /* cycle */
                next = p->index;
            }
            if (rc) break;
            if (next >= 0) {
                state[next] = 1;
                stack[sp++] = next;
            } else {
                state[stack[sp - 1]] = 2;
                order[w++] = top;
                sp--;
            }
        }
    }
    if (rc == 0) {
        for (int i = 0; i < n; i++)
            if (g->nodes[i]->dead) order[w++] = g->nodes[i];
        memcpy(g->nodes, order, sizeof *order * (size_t)n);
        for (int i = 0; i < n; i++) g->nodes[i]->index = i;
        graph_compact(g);
    } else {
        diag_error("fusion produced a cycle in the graph");
    }
    free(order), free(stack), free(state);
    return rc;
}

int fuse_each(Graph *g, int anchor_op, FuseFn fn) {
    FuseMap fm = {0};
    if (pass_fm_build(&fm, g) < 0) return -1;
    int fused = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead || (anchor_op >= 0 && (int)n->op != anchor_op)) continue;
        int r = fn(&fm, n);
        if (r < 0) {
            pass_fm_free(&fm);
            return -1;
        }
        fused += r;
    }
    pass_fm_free(&fm);
    if (fused && pass_fm_toposort(g) < 0) return -1;
    return fused;
}
