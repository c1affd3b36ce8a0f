/* onnx_import.c - ONNX graph -> IR: graph inputs (with --fix / --dim for symbolic dims),
 * initializers as constants, a topological sort of the nodes (with cycle and dangling-input
 * detection), dispatch of each node to its handler from onnx_ops.def (shape arithmetic on symbolic
 * shape values first goes to shape_expr.c), and graph outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "import_internal.h"

/* ---- string -> pointer map (open addressing; keys are borrowed) ------------------------------- */

typedef struct {
    const char **keys;
    void **vals;
    size_t cap, count;
} NameMap;

static uint64_t hash_name(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void *map_get(const NameMap *m, const char *key) {
    if (!m->cap) return NULL;
    for (size_t i = hash_name(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i]) return NULL;
        if (strcmp(m->keys[i], key) == 0) return m->vals[i];
    }
}

/* Inserts or replaces; returns -1 when out of memory. */
static int map_put(NameMap *m, const char *key, void *val) {
    if ((m->count + 1) * 2 > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 256;
        const char **nk = calloc(ncap, sizeof *nk);
        void **nv = calloc(ncap, sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free(nv);
            diag_error("out of memory");
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->keys[i]) continue;
            size_t j = hash_name(m->keys[i]) & (ncap - 1);
            while (nk[j]) j = (j + 1) & (ncap - 1);
            nk[j] = m->keys[i];
            nv[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = ncap;
    }
    size_t i = hash_name(key) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & (m->cap - 1);
    if (!m->keys[i]) m->count++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

static void map_free(NameMap *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- importer state ------------------------------------------------------------------------------ */

typedef struct {
    Graph *g;
    OnnxModel *m;
    const Onnx__GraphProto *gp;
    const ImportOptions *opt;
    NameMap values; /* ONNX tensor name -> Value* */
    PrefixShadows *pf;
} Importer;

static bool empty(const char *s) { return !s || !s[0]; }

static const char *node_label(Graph *g, const Onnx__NodeProto *np, size_t index) {
    if (!empty(np->name)) return np->name;
    char buf[160];
    snprintf(buf, sizeof buf, "%s_%zu", empty(np->op_type) ? "node" : np->op_type, index);
    return graph_strdup(g, buf);
}

/* Records v as the value of ONNX tensor `name`; fresh values take the ONNX name. */
static int bind_value(Importer *im, const char *name, Value *v) {
    if (map_get(&im->values, name)) {
        diag_error("tensor '%s' is defined more than once", name);
        return -1;
    }
    if (!v->origin && !(v->flags & VF_INPUT)) {
        const char *old = v->name;
        v->origin = graph_strdup(im->g, name);
        v->name = graph_unique_name(im->g, name);
        if (v->producer && v->producer->id == old) v->producer->id = v->name;
    }
    return map_put(&im->values, name, v);
}

/* ---- initializers and inputs ------------------------------------------------------------------- */

static int import_initializers(Importer *im) {
    const Onnx__GraphProto *gp = im->gp;
    if (gp->n_sparse_initializer) {
        diag_error("sparse initializers are not supported (%zu in graph)", gp->n_sparse_initializer);
        return -1;
    }
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *t = gp->initializer[i];
        if (!t || empty(t->name)) {
            diag_error("initializer %zu has no name", i);
            return -1;
        }
        OnnxTensorData td;
        if (onnx_tensor_read(im->m, im->g, t, &td) < 0) return -1;
        Value *v = graph_add_const(im->g, t->name, td.dtype, td.rank, td.shape, td.data, td.nbytes);
        v->origin = graph_strdup(im->g, t->name);
        if (bind_value(im, t->name, v) < 0) return -1;
    }
    return 0;
}

static const DimSetting *find_setting(const DimSetting *s, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (s[i].name && strcmp(s[i].name, name) == 0) return &s[i];
    return NULL;
}

static int input_dim(Importer *im, const char *input, int axis, const Onnx__TensorShapeProto__Dimension *d,
                     Dim *out) {
    const ImportOptions *opt = im->opt;
    if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
        if (d->dim_value <= 0 || d->dim_value > INT32_MAX) {
            diag_error("input %s: dimension %d has size %lld (zero-size or too large tensors are not representable in WebNN)",
                       input, axis, (long long)d->dim_value);
            return -1;
        }
        *out = dim_static(d->dim_value);
        return 0;
    }
    if (!d || d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM || empty(d->dim_param)) {
        diag_error("input %s: dimension %d has neither a size nor a name", input, axis);
        return -1;
    }
    const char *sym = d->dim_param;
    const DimSetting *s = opt ? find_setting(opt->fix, opt->n_fix, sym) : NULL;
    if (s) {
        if (s->value <= 0 || s->value > INT32_MAX) {
            diag_error("--fix %s=%lld: size must be positive", sym, (long long)s->value);
            return -1;
        }
        *out = dim_static(s->value);
        return 0;
    }
    s = opt ? find_setting(opt->bound, opt->n_bound, sym) : NULL;
    if (s) {
        if (s->value <= 0 || s->value > INT32_MAX) {
            diag_error("--dim %s=%lld: maximum size must be positive", sym, (long long)s->value);
            return -1;
        }
        *out = dim_symbol(im->g, sym, s->value);
        return 0;
    }
    diag_error("input %s: dimension '%s' is dynamic; use --fix %s=N or --dim %s=MAX", input, sym, sym, sym);
    return -1;
}

static int import_inputs(Importer *im) {
    const Onnx__GraphProto *gp = im->gp;
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi || empty(vi->name)) {
            diag_error("graph input %zu has no name", i);
            return -1;
        }
        Value *prev = map_get(&im->values, vi->name);
        if (prev && (prev->flags & VF_CONST)) continue; /* initializer listed as input (IR < 4) */
        const Onnx__TypeProto *tp = vi->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
            diag_error("input %s: only tensor inputs are supported", vi->name);
            return -1;
        }
        const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
        DType dt = onnx_elem_dtype(tt->elem_type);
        if (dt == DT_INVALID) {
            diag_error("input %s: unsupported element type %d", vi->name, (int)tt->elem_type);
            return -1;
        }
        if (!tt->shape) {
            diag_error("input %s has no shape", vi->name);
            return -1;
        }
        if (tt->shape->n_dim > WN_MAX_RANK) {
            diag_error("input %s: rank %zu exceeds %d", vi->name, tt->shape->n_dim, WN_MAX_RANK);
            return -1;
        }
        Dim dims[WN_MAX_RANK];
        for (size_t d = 0; d < tt->shape->n_dim; d++)
            if (input_dim(im, vi->name, (int)d, tt->shape->dim[d], &dims[d]) < 0) return -1;
        Value *v = graph_add_input(im->g, vi->name, dt, (int)tt->shape->n_dim, dims);
        v->origin = graph_strdup(im->g, vi->name);
        if (bind_value(im, vi->name, v) < 0) return -1;
    }
    return 0;
}

/* ---- topological order ---------------------------------------------------------------------------- */

/* Fills order[] with node indices such that producers come first; keeps the file order when
 * it is already topological.  Iterative DFS (no recursion). */
static int topo_sort(Importer *im, size_t *order) {
    const Onnx__GraphProto *gp = im->gp;
    size_t n = gp->n_node;
    NameMap producer = {0};
    unsigned char *state = calloc(n ? n : 1, 1); /* 0 new, 1 on stack, 2 done */
    size_t *stack = malloc(sizeof *stack * (n ? n : 1));
    size_t *next_in = calloc(n ? n : 1, sizeof *next_in);
    int rc = -1;
    if (!state || !stack || !next_in) {
        diag_error("out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        if (!np) {
            diag_error("node %zu is empty", i);
            goto out;
        }
        for (size_t k = 0; k < np->n_output; k++) {
            const char *o = np->output[k];
            if (empty(o)) continue;
            if (map_get(&producer, o) || map_get(&im->values, o)) {
                diag_error("node %s: output '%s' is already defined", node_label(im->g, np, i), o);
                goto out;
            }
            if (map_put(&producer, o, (void *)(uintptr_t)(i + 1)) < 0) goto out;
        }
    }
    size_t done = 0;
    for (size_t root = 0; root < n; root++) {
        if (state[root]) continue;
        size_t sp = 0;
        stack[sp++] = root;
        state[root] = 1;
        while (sp) {
            size_t cur = stack[sp - 1];
            const Onnx__NodeProto *np = gp->node[cur];
            if (next_in[cur] < np->n_input) {
                const char *name = np->input[next_in[cur]++];
                if (empty(name)) continue;
                uintptr_t p = (uintptr_t)map_get(&producer, name);
                if (!p) {
                    if (map_get(&im->values, name)) continue;
                    diag_error("node %s: input '%s' is not produced by any node, input or initializer",
                               node_label(im->g, np, cur), name);
                    goto out;
                }
                size_t j = p - 1;
                if (state[j] == 1) {
                    diag_error("cycle through node %s", node_label(im->g, gp->node[j], j));
                    goto out;
                }
                if (state[j] == 0) {
                    state[j] = 1;
                    stack[sp++] = j;
                }
                continue;
            }
            state[cur] = 2;
            order[done++] = cur;
            sp--;
        }
    }
    rc = 0;
out:
    map_free(&producer);
    free(state);
    free(stack);
    free(next_in);
    return rc;
}

/* ---- node dispatch ------------------------------------------------------------------------------------ */

typedef struct {
    const char *type;
    const char *domain;
    int64_t min_opset;
    OnnxHandler fn;
} OnnxOpEntry;

static const OnnxOpEntry onnx_ops[] = {
#define ONNX_OP(TYPE, DOMAIN, MIN_OPSET, HANDLER) {#TYPE, DOMAIN, MIN_OPSET, HANDLER},
#include "onnx_ops.def"
#undef ONNX_OP
};

static bool default_domain(const char *d) { return empty(d) || strcmp(d, "ai.onnx") == 0; }

/* The table entry for np, or NULL with "unsupported op Foo (ai.onnx, opset 17) at node NAME". */
static const OnnxOpEntry *find_handler(Importer *im, const Onnx__NodeProto *np, size_t index, int64_t *opset) {
    const char *label = node_label(im->g, np, index);
    if (empty(np->op_type)) {
        diag_error("node %s has no op_type", label);
        return NULL;
    }
    bool dflt = default_domain(np->domain);
    *opset = onnx_model_opset(im->m, dflt ? "" : np->domain);
    for (size_t i = 0; i < sizeof onnx_ops / sizeof onnx_ops[0]; i++) {
        const OnnxOpEntry *e = &onnx_ops[i];
        if (strcmp(e->type, np->op_type) == 0 && (dflt ? default_domain(e->domain) : strcmp(e->domain, np->domain) == 0) &&
            *opset >= e->min_opset)
            return e;
    }
    diag_error("unsupported op %s (%s, opset %lld) at node %s", np->op_type, dflt ? "ai.onnx" : np->domain,
               (long long)*opset, label);
    return NULL;
}

/* Reports the first unsupported node (file order) before anything else, so that such models fail
 * with that message rather than with a complaint about their inputs. */
static int check_supported(Importer *im) {
    int64_t opset;
    for (size_t i = 0; i < im->gp->n_node; i++)
        if (!im->gp->node[i] || !find_handler(im, im->gp->node[i], i, &opset)) {
            if (!diag_has_error()) diag_error("node %zu is empty", i);
            return -1;
        }
    return 0;
}

static int import_node(Importer *im, const Onnx__NodeProto *np, size_t index) {
    Graph *g = im->g;
    const char *label = node_label(g, np, index);
    bool dflt = default_domain(np->domain);
    int64_t opset = 0;
    const OnnxOpEntry *entry = find_handler(im, np, index, &opset);
    if (!entry) return -1;
    OnnxCtx c = {.g = g, .m = im->m, .node = np, .origin = label, .domain = dflt ? "ai.onnx" : np->domain,
                 .opset = opset, .pf = im->pf};
    if (np->n_input > 64) return onnx_imp_error(&c, "too many inputs (%zu)", np->n_input);
    if (np->n_output > 64) return onnx_imp_error(&c, "too many outputs (%zu)", np->n_output);
    c.n_in = (int)np->n_input;
    c.in = graph_alloc(g, sizeof *c.in * (size_t)(c.n_in + 1));
    for (int i = 0; i < c.n_in; i++)
        c.in[i] = empty(np->input[i]) ? NULL : map_get(&im->values, np->input[i]);
    c.n_out = (int)np->n_output;
    while (c.n_out > 0 && empty(np->output[c.n_out - 1])) c.n_out--;
    c.out = graph_alloc(g, sizeof *c.out * (size_t)(c.n_out + 1));
    int shaped = onnx_sx_try(&c); /* shape arithmetic on symbolic shape values (shape_expr.c) */
    if (shaped < 0 || (shaped == 0 && entry->fn(&c) < 0) || diag_has_error()) {
        if (!diag_has_error()) onnx_imp_error(&c, "import failed");
        return -1;
    }
    for (int i = 0; i < c.n_out; i++) {
        if (empty(np->output[i])) continue;
        if (!c.out[i]) return onnx_imp_error(&c, "output %d ('%s') is not supported", i, np->output[i]);
        if (bind_value(im, np->output[i], c.out[i]) < 0) return -1;
    }
    return 0;
}

/* ---- outputs ----------------------------------------------------------------------------------------- */

static int import_outputs(Importer *im) {
    const Onnx__GraphProto *gp = im->gp;
    if (!gp->n_output) {
        diag_error("graph has no outputs");
        return -1;
    }
    for (size_t i = 0; i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        if (!vi || empty(vi->name)) {
            diag_error("graph output %zu has no name", i);
            return -1;
        }
        Value *v = map_get(&im->values, vi->name);
        if (!v) {
            diag_error("graph output '%s' is not produced by any node", vi->name);
            return -1;
        }
        if (!(v = onnx_sx_materialize(im->g, vi->name, v)) || !(v = onnx_pf_materialize(im->pf, im->g, v))) return -1;
        bool passthrough = (v->flags & (VF_INPUT | VF_CONST | VF_OUTPUT)) || !v->origin ||
                           strcmp(v->origin, vi->name) != 0;
        if (passthrough) { /* outputs must be node results with their own name */
            Node *n = graph_new_node(im->g, OP_IDENTITY, vi->name);
            node_add_input(im->g, n, v);
            const char *names[1] = {vi->name};
            node_set_output_names(im->g, n, 1, names);
            if (graph_insert_node(im->g, n) < 0) return -1;
            Value *out = n->outputs[0];
            out->origin = graph_strdup(im->g, vi->name);
            if (!(v->flags & (VF_INPUT | VF_OUTPUT)) && v->origin && strcmp(v->origin, vi->name) == 0) {
                /* a constant named after this output: the output keeps the name, the constant takes the suffix */
                const char *name = v->name;
                v->name = out->name;
                out->name = name;
            }
            v = out;
        }
        graph_add_output(im->g, v);
    }
    return 0;
}

/* ---- entry point ------------------------------------------------------------------------------------- */

Graph *onnx_import(OnnxModel *m, const ImportOptions *opt) {
    if (!m || !m->proto || !m->proto->graph) {
        diag_error("model has no graph");
        return NULL;
    }
    const Onnx__GraphProto *gp = m->proto->graph;
    Importer im = {.m = m, .gp = gp, .opt = opt, .pf = onnx_pf_new()};
    im.g = graph_new(empty(gp->name) ? "graph" : gp->name);
    if (m->path) im.g->source = graph_strdup(im.g, m->path);
    size_t *order = malloc(sizeof *order * (gp->n_node ? gp->n_node : 1));
    int rc = -1;
    if (!order || !im.pf) {
        diag_error("out of memory");
        goto out;
    }
    if (check_supported(&im) < 0 || import_initializers(&im) < 0 || import_inputs(&im) < 0 || topo_sort(&im, order) < 0) goto out;
    for (size_t i = 0; i < gp->n_node; i++) {
        progress_update("importing", i, gp->n_node);
        if (import_node(&im, gp->node[order[i]], order[i]) < 0) goto out;
    }
    progress_done();
    if (import_outputs(&im) < 0) goto out;
    rc = 0;
out:
    free(order);
    onnx_pf_free(im.pf);
    map_free(&im.values);
    if (rc < 0) {
        graph_free(im.g);
        return NULL;
    }
    onnx_model_attach(im.g, m);
    return im.g;
}
