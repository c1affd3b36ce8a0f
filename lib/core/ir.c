/* ir.c - graph construction and editing: values, nodes, attributes, use replacement, compaction. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "ir.h"

struct Cleanup {
    struct Cleanup *next;
    CleanupFn fn;
    void *ctx;
};

void nameset_free(struct NameSet *set);

Graph *graph_new(const char *name) {
    Arena *a = arena_new();
    Graph *g = arena_alloc(a, sizeof *g);
    g->arena = a;
    g->name = arena_strdup(a, name ? name : "graph");
    g->n_exprs = 1; /* expression 0 means "static" */
    return g;
}

void graph_free(Graph *g) {
    if (!g) return;
    for (struct Cleanup *c = g->cleanups; c; c = c->next) c->fn(c->ctx);
    nameset_free(g->names);
    arena_free(g->arena);
}

void *graph_alloc(Graph *g, size_t size) { return arena_alloc(g->arena, size); }
char *graph_strdup(Graph *g, const char *s) { return arena_strdup(g->arena, s); }

void graph_add_cleanup(Graph *g, CleanupFn fn, void *ctx) {
    struct Cleanup *c = arena_alloc(g->arena, sizeof *c);
    c->fn = fn;
    c->ctx = ctx;
    c->next = g->cleanups;
    g->cleanups = c;
}

/* Appends to a pointer array that lives in the arena, doubling its capacity. */
#define PUSH(g, arr, n, cap, item)                                                        \
    do {                                                                                  \
        if ((n) == (cap)) {                                                               \
            int ncap_ = (cap) ? (cap) * 2 : 64;                                           \
            arr = arena_grow((g)->arena, arr, sizeof *(arr) * (size_t)(cap),              \
                             sizeof *(arr) * (size_t)ncap_);                              \
            (cap) = ncap_;                                                                \
        }                                                                                 \
        (arr)[(n)++] = (item);                                                            \
    } while (0)

static Value *new_value(Graph *g, const char *name, DType dt, int rank, const Dim *shape) {
    Value *v = arena_alloc(g->arena, sizeof *v);
    v->id = g->n_values;
    v->name = graph_unique_name(g, name);
    v->dtype = dt;
    v->rank = rank;
    for (int i = 0; i < rank; i++) v->shape[i] = shape[i];
    PUSH(g, g->values, g->n_values, g->cap_values, v);
    return v;
}

Value *graph_add_input(Graph *g, const char *name, DType dt, int rank, const Dim *shape) {
    Value *v = new_value(g, name, dt, rank, shape);
    v->flags |= VF_INPUT;
    PUSH(g, g->inputs, g->n_inputs, g->cap_inputs, v);
    return v;
}

Value *graph_add_const(Graph *g, const char *name, DType dt, int rank, const int64_t *shape,
                       const void *data, uint64_t nbytes) {
    Dim dims[WN_MAX_RANK];
    for (int i = 0; i < rank; i++) dims[i] = dim_static(shape[i]);
    Value *v = new_value(g, name, dt, rank, dims);
    v->flags |= VF_CONST;
    v->data = data;
    v->nbytes = nbytes;
    return v;
}

Value *graph_add_const_copy(Graph *g, const char *name, DType dt, int rank, const int64_t *shape,
                            const void *data, uint64_t nbytes) {
    void *copy = arena_alloc(g->arena, nbytes ? nbytes : 1);
    if (nbytes) memcpy(copy, data, nbytes);
    return graph_add_const(g, name, dt, rank, shape, copy, nbytes);
}

void graph_add_output(Graph *g, Value *v) {
    v->flags |= VF_OUTPUT;
    PUSH(g, g->outputs, g->n_outputs, g->cap_outputs, v);
}

Node *graph_new_node(Graph *g, OpId op, const char *origin) {
    Node *n = arena_alloc(g->arena, sizeof *n);
    n->op = op;
    n->index = -1;
    n->origin = origin ? arena_strdup(g->arena, origin) : NULL;
    return n;
}

void node_add_input(Graph *g, Node *n, Value *v) {
    Value **in = arena_alloc(g->arena, sizeof *in * (size_t)(n->n_inputs + 1));
    if (n->n_inputs) memcpy(in, n->inputs, sizeof *in * (size_t)n->n_inputs);
    in[n->n_inputs++] = v;
    n->inputs = in;
}

/* Output names requested before insertion are parked in `outputs` with n_outputs < 0. */
void node_set_output_names(Graph *g, Node *n, int count, const char *const *names) {
    Value **slots = arena_alloc(g->arena, sizeof *slots * (size_t)count);
    for (int i = 0; i < count; i++) {
        Value *tmp = arena_alloc(g->arena, sizeof *tmp);
        tmp->name = names[i] ? arena_strdup(g->arena, names[i]) : NULL;
        slots[i] = tmp;
    }
    n->outputs = slots;
    n->n_outputs = -count;
}

int graph_insert_node(Graph *g, Node *n) {
    TensorDesc out[64];
    int requested = n->n_outputs < 0 ? -n->n_outputs : 0;
    Value **names = n->outputs;
    n->n_outputs = 0;
    n->outputs = NULL;
    int count = infer_node(g, n, out, 64);
    if (count < 0) return -1;
    n->outputs = arena_alloc(g->arena, sizeof *n->outputs * (size_t)(count ? count : 1));
    for (int i = 0; i < count; i++) {
        char base[64];
        const char *name = (i < requested && names[i]->name) ? names[i]->name : NULL;
        if (!name) {
            snprintf(base, sizeof base, "%s_%d", op_name(n->op), g->n_values);
            name = base;
        }
        Value *v = new_value(g, name, out[i].dtype, out[i].rank, out[i].shape);
        v->producer = n;
        v->producer_slot = i;
        n->outputs[i] = v;
    }
    n->n_outputs = count;
    if (!n->id) n->id = count == 1 ? n->outputs[0]->name : graph_unique_name(g, op_name(n->op));
    n->index = g->n_nodes;
    PUSH(g, g->nodes, g->n_nodes, g->cap_nodes, n);
    return 0;
}

Value *graph_finish(Graph *g, Node *n) {
    if (graph_insert_node(g, n) < 0) return NULL;
    return n->outputs[0];
}

/* ---- attributes ------------------------------------------------------------------------ */

static Attr *attr_slot(Graph *g, Node *n, const char *key) {
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].key, key) == 0) return &n->attrs[i];
    Attr *a = arena_alloc(g->arena, sizeof *a * (size_t)(n->n_attrs + 1));
    if (n->n_attrs) memcpy(a, n->attrs, sizeof *a * (size_t)n->n_attrs);
    n->attrs = a;
    Attr *slot = &a[n->n_attrs++];
    slot->key = arena_strdup(g->arena, key);
    return slot;
}

void node_set_int(Graph *g, Node *n, const char *key, int64_t v) {
    Attr *a = attr_slot(g, n, key);
    a->type = AT_INT;
    a->u.i = v;
}
void node_set_uint(Graph *g, Node *n, const char *key, int64_t v) {
    Attr *a = attr_slot(g, n, key);
    a->type = AT_UINT;
    a->u.i = v;
}
void node_set_float(Graph *g, Node *n, const char *key, double v) {
    Attr *a = attr_slot(g, n, key);
    a->type = AT_FLOAT;
    a->u.f = v;
}
void node_set_bool(Graph *g, Node *n, const char *key, bool v) {
    Attr *a = attr_slot(g, n, key);
    a->type = AT_BOOL;
    a->u.i = v;
}
void node_set_string(Graph *g, Node *n, const char *key, const char *v) {
    Attr *a = attr_slot(g, n, key);
    a->type = AT_STRING;
    a->u.s = arena_strdup(g->arena, v);
}
void node_set_dtype(Graph *g, Node *n, const char *key, DType v) {
    Attr *a = attr_slot(g, n, key);
    a->type = AT_DTYPE;
    a->u.i = v;
}
void node_set_ints(Graph *g, Node *n, const char *key, int count, const int64_t *v) {
    Attr *a = attr_slot(g, n, key);
    int64_t *copy = arena_alloc(g->arena, sizeof *copy * (size_t)(count ? count : 1));
    if (count) memcpy(copy, v, sizeof *copy * (size_t)count);
    a->type = AT_INTS;
    a->n = count;
    a->u.ints = copy;
}
void node_set_floats(Graph *g, Node *n, const char *key, int count, const double *v) {
    Attr *a = attr_slot(g, n, key);
    double *copy = arena_alloc(g->arena, sizeof *copy * (size_t)(count ? count : 1));
    if (count) memcpy(copy, v, sizeof *copy * (size_t)count);
    a->type = AT_FLOATS;
    a->n = count;
    a->u.floats = copy;
}
void node_set_strings(Graph *g, Node *n, const char *key, int count, const char *const *v) {
    Attr *a = attr_slot(g, n, key);
    const char **copy = arena_alloc(g->arena, sizeof *copy * (size_t)(count ? count : 1));
    for (int i = 0; i < count; i++) copy[i] = arena_strdup(g->arena, v[i]);
    a->type = AT_STRINGS;
    a->n = count;
    a->u.strs = copy;
}
void node_set_dims(Graph *g, Node *n, const char *key, int count, const Dim *v) {
    Attr *a = attr_slot(g, n, key);
    Dim *copy = arena_alloc(g->arena, sizeof *copy * (size_t)(count ? count : 1));
    if (count) memcpy(copy, v, sizeof *copy * (size_t)count);
    a->type = AT_DIMS;
    a->n = count;
    a->u.dims = copy;
}

const Attr *node_attr(const Node *n, const char *key) {
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].key, key) == 0) return &n->attrs[i];
    return NULL;
}

int64_t node_int(const Node *n, const char *key, int64_t def) {
    const Attr *a = node_attr(n, key);
    if (!a) return def;
    if (a->type == AT_FLOAT) return (int64_t)a->u.f;
    if (a->type == AT_INT || a->type == AT_UINT || a->type == AT_BOOL || a->type == AT_DTYPE) return a->u.i;
    return def;
}
double node_float(const Node *n, const char *key, double def) {
    const Attr *a = node_attr(n, key);
    if (!a) return def;
    if (a->type == AT_FLOAT) return a->u.f;
    if (a->type == AT_INT || a->type == AT_UINT) return (double)a->u.i;
    return def;
}
bool node_bool(const Node *n, const char *key, bool def) { return node_int(n, key, def) != 0; }
const char *node_str(const Node *n, const char *key, const char *def) {
    const Attr *a = node_attr(n, key);
    return a && a->type == AT_STRING ? a->u.s : def;
}
DType node_dtype(const Node *n, const char *key, DType def) {
    const Attr *a = node_attr(n, key);
    return a && a->type == AT_DTYPE ? (DType)a->u.i : def;
}
int node_ints(const Node *n, const char *key, const int64_t **out) {
    const Attr *a = node_attr(n, key);
    if (!a || a->type != AT_INTS) return -1;
    *out = a->u.ints;
    return a->n;
}
int node_floats(const Node *n, const char *key, const double **out) {
    const Attr *a = node_attr(n, key);
    if (!a || a->type != AT_FLOATS) return -1;
    *out = a->u.floats;
    return a->n;
}
int node_dims(const Node *n, const char *key, const Dim **out) {
    const Attr *a = node_attr(n, key);
    if (!a || a->type != AT_DIMS) return -1;
    *out = a->u.dims;
    return a->n;
}

/* ---- editing ------------------------------------------------------------------------------ */

void graph_replace_uses(Graph *g, Value *from, Value *to) {
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead) continue;
        for (int j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] == from) n->inputs[j] = to;
    }
    for (int i = 0; i < g->n_outputs; i++) {
        if (g->outputs[i] != from) continue;
        g->outputs[i] = to;
        to->flags |= VF_OUTPUT;
        from->flags &= ~(unsigned)VF_OUTPUT;
    }
}

void graph_compact(Graph *g) {
    int w = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i]->dead) continue;
        g->nodes[i]->index = w;
        g->nodes[w++] = g->nodes[i];
    }
    g->n_nodes = w;
    /* Values still referenced: inputs, outputs, operands and results of live nodes. */
    unsigned char *live = calloc((size_t)g->n_values + 1, 1);
    if (!live) abort();
    for (int i = 0; i < g->n_inputs; i++) live[g->inputs[i]->id] = 1;
    for (int i = 0; i < g->n_outputs; i++) live[g->outputs[i]->id] = 1;
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        for (int j = 0; j < n->n_inputs; j++)
            if (n->inputs[j]) live[n->inputs[j]->id] = 1;
        for (int j = 0; j < n->n_outputs; j++) live[n->outputs[j]->id] = 1;
    }
    int vw = 0;
    for (int i = 0; i < g->n_values; i++) {
        if (!live[i]) continue;
        g->values[i]->id = vw;
        g->values[vw++] = g->values[i];
    }
    g->n_values = vw;
    free(live);
}

int graph_node_count(const Graph *g) {
    int c = 0;
    for (int i = 0; i < g->n_nodes; i++) c += !g->nodes[i]->dead;
    return c;
}

/* ---- value helpers ------------------------------------------------------------------------ */

uint64_t value_max_elements(const Value *v) {
    uint64_t n = 1;
    for (int i = 0; i < v->rank; i++) {
        uint64_t d = (uint64_t)(v->shape[i].v < 0 ? 0 : v->shape[i].v);
        if (d && n > UINT64_MAX / d) return UINT64_MAX;
        n *= d;
    }
    return n;
}

bool value_is_static(const Value *v) {
    for (int i = 0; i < v->rank; i++)
        if (!dim_is_static(v->shape[i])) return false;
    return true;
}

bool value_same_shape(const Value *a, const Value *b) {
    if (a->rank != b->rank) return false;
    for (int d = 0; d < a->rank; d++)
        if (!dim_equal(a->shape[d], b->shape[d])) return false;
    return true;
}

const char *value_format_type(const Graph *g, const Value *v, char *buf, size_t len) {
    size_t o = (size_t)snprintf(buf, len, "%s[", dtype_name(v->dtype));
    for (int i = 0; i < v->rank && o < len; i++) {
        char d[96];
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", dim_format(g, v->shape[i], d, sizeof d));
    }
    if (o < len) snprintf(buf + o, len - o, "]");
    return buf;
}

const char *value_display_name(const Value *v) { return v->origin ? v->origin : v->name; }
const char *node_display_name(const Node *n) { return n->origin ? n->origin : (n->id ? n->id : "?"); }
