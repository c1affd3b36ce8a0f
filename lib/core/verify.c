/* verify.c - IR verifier: graph membership of every operand, single assignment, topological
 * order, producer links, per-op rules (re-running shape inference against the stored types),
 * valid dims and element counts, constant byte sizes, unique identifiers, and the optional
 * spec-only / webnn-graph-exportable restrictions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "infer_internal.h"

enum { UNDEFINED = 0, DEFINED = 1 };

static bool owned(const Graph *g, const Value *v) {
    return v && v->id >= 0 && v->id < g->n_values && g->values[v->id] == v;
}

static bool valid_identifier(const char *s) {
    if (!s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return false;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
    return true;
}

/* Rank, dims (> 0, < 2^31, known expressions), element count, exportability. */
static bool check_value_type(Graph *g, const Value *v, unsigned flags, uint64_t *elements) {
    const char *name = value_display_name(v);
    if (v->dtype < 0 || v->dtype >= DT_COUNT || v->rank < 0 || v->rank > WN_MAX_RANK) {
        diag_error("value %s: invalid dtype or rank %d", name, v->rank);
        return false;
    }
    *elements = 1;
    for (int i = 0; i < v->rank; i++) {
        Dim d = v->shape[i];
        if (dim_is_static(d) ? (d.v <= 0 || d.v >= INFER_LIMIT) : (d.e < 0 || d.e >= g->n_exprs || d.v >= INFER_LIMIT)) {
            diag_error("value %s: dimension %d is invalid (%" PRId64 "; WebNN dims must be > 0 and < 2^31)", name, i, d.v);
            return false;
        }
        if (!dim_is_static(d) && (flags & VERIFY_EXPORTABLE) && !dim_symbol_name(g, d)) {
            char buf[128];
            diag_error("value %s: dimension %s is not expressible in webnn-graph JSON", name,
                       dim_format(g, d, buf, sizeof buf));
            return false;
        }
        if (dim_is_static(d) && !checked_mul_u64(*elements, (uint64_t)d.v, elements)) *elements = UINT64_MAX;
    }
    if (*elements >= (uint64_t)INFER_LIMIT) {
        diag_error("value %s: element count is 2^31 or more", name);
        return false;
    }
    return true;
}

static bool check_value(Graph *g, const Value *v, unsigned flags) {
    uint64_t elements;
    if (!valid_identifier(v->name)) {
        diag_error("value %s: name \"%s\" is not a valid identifier", value_display_name(v), v->name ? v->name : "");
        return false;
    }
    if (!check_value_type(g, v, flags, &elements)) return false;
    if ((v->flags & (VF_INPUT | VF_CONST)) && v->producer) {
        diag_error("value %s: an input or constant cannot also be a node output", value_display_name(v));
        return false;
    }
    if ((v->flags & VF_INPUT) && (v->flags & VF_CONST)) {
        diag_error("value %s: both an input and a constant", value_display_name(v));
        return false;
    }
    if (v->flags & VF_CONST) {
        if (!value_is_static(v)) {
            diag_error("value %s: constant with a dynamic shape", value_display_name(v));
            return false;
        }
        uint64_t want = dtype_storage_bytes(v->dtype, elements);
        if (v->nbytes != want || (want && !v->data)) {
            diag_error("value %s: constant holds %" PRIu64 " bytes, expected %" PRIu64, value_display_name(v), v->nbytes, want);
            return false;
        }
    }
    return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Value names unique among values, node ids unique among nodes. */
static bool check_unique(const char **names, int count, const char *what) {
    qsort(names, (size_t)count, sizeof *names, cmp_str);
    for (int i = 1; i < count; i++) {
        if (strcmp(names[i - 1], names[i]) == 0) {
            diag_error("%s name \"%s\" is used more than once", what, names[i]);
            return false;
        }
    }
    return true;
}

static bool check_names(const Graph *g) {
    int cap = g->n_values > g->n_nodes ? g->n_values : g->n_nodes;
    const char **names = malloc(sizeof *names * (size_t)(cap ? cap : 1));
    if (!names) abort();
    int count = 0;
    for (int i = 0; i < g->n_values; i++) names[count++] = g->values[i]->name;
    bool ok = check_unique(names, count, "value");
    count = 0;
    for (int i = 0; ok && i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->id) names[count++] = g->nodes[i]->id;
    ok = ok && check_unique(names, count, "node");
    free(names);
    return ok;
}

static bool same_type(const TensorDesc *d, const Value *v) {
    if (d->dtype != v->dtype || d->rank != v->rank) return false;
    for (int i = 0; i < d->rank; i++)
        if (!dim_equal(d->shape[i], v->shape[i])) return false;
    return true;
}

/* Operands defined earlier, outputs defined exactly once here, stored types = inferred types. */
static bool check_node(Graph *g, Node *n, int index, unsigned char *state, unsigned flags) {
    const OpInfo *info = op_info(n->op);
    if (!info) {
        diag_error("node %d has an invalid op id %d", index, (int)n->op);
        return false;
    }
    if ((flags & VERIFY_SPEC_ONLY) && !(info->flags & OPF_SPEC)) {
        diag_node_error(n, "op '%s' is not a WebNN spec op", info->name);
        return false;
    }
    if (n->index != index) {
        diag_node_error(n, "stored index %d differs from its position %d", n->index, index);
        return false;
    }
    for (int j = 0; j < n->n_inputs; j++) {
        const Value *v = n->inputs[j];
        if (!v) continue;
        if (!owned(g, v)) {
            diag_node_error(n, "operand %d is not a value of the graph (dangling)", j);
            return false;
        }
        if (state[v->id] != DEFINED) {
            diag_node_error(n, "operand %d (%s) is used before it is defined", j, value_display_name(v));
            return false;
        }
    }
    for (int j = 0; j < n->n_outputs; j++) {
        Value *v = n->outputs[j];
        if (!owned(g, v)) {
            diag_node_error(n, "output %d is not a value of the graph", j);
            return false;
        }
        if (v->producer != n || v->producer_slot != j) {
            diag_node_error(n, "output %d (%s) does not name this node as its producer", j, value_display_name(v));
            return false;
        }
        if (state[v->id] == DEFINED) {
            diag_node_error(n, "output %d (%s) is assigned more than once", j, value_display_name(v));
            return false;
        }
        state[v->id] = DEFINED;
    }
    TensorDesc out[64];
    int count = infer_node(g, n, out, 64);
    if (count < 0) return false;
    if (count != n->n_outputs) {
        diag_node_error(n, "has %d outputs, shape inference gives %d", n->n_outputs, count);
        return false;
    }
    for (int j = 0; j < count; j++) {
        const Value *v = n->outputs[j];
        if (same_type(&out[j], v)) continue;
        char have[256], want[256];
        diag_node_error(n, "output %d (%s) is stored as %s, shape inference gives %s%s", j, value_display_name(v),
                        value_format_type(g, v, have, sizeof have), dtype_name(out[j].dtype),
                        infer_shape_str(g, out[j].rank, out[j].shape, want, sizeof want));
        return false;
    }
    return true;
}

int graph_verify(Graph *g, unsigned flags) {
    if (!g) {
        diag_error("no graph to verify");
        return -1;
    }
    if (g->n_outputs < 1) {
        diag_error("graph %s has no outputs", g->name ? g->name : "?");
        return -1;
    }
    for (int i = 0; i < g->n_values; i++) {
        if (!g->values[i] || g->values[i]->id != i) {
            diag_error("value table entry %d is inconsistent", i);
            return -1;
        }
        if (!check_value(g, g->values[i], flags)) return -1;
    }
    if (!check_names(g)) return -1;
    unsigned char *state = calloc((size_t)g->n_values + 1, 1);
    if (!state) abort();
    int rc = -1;
    for (int i = 0; i < g->n_values; i++)
        if (g->values[i]->flags & (VF_INPUT | VF_CONST)) state[i] = DEFINED;
    for (int i = 0; i < g->n_inputs; i++) {
        if (!owned(g, g->inputs[i]) || !(g->inputs[i]->flags & VF_INPUT)) {
            diag_error("graph input %d is not an input value of the graph", i);
            goto done;
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        if (!g->nodes[i]) {
            diag_error("node table entry %d is empty", i);
            goto done;
        }
        if (!g->nodes[i]->dead && !check_node(g, g->nodes[i], i, state, flags)) goto done;
    }
    /* A produced value must be listed by a live node of this graph. */
    for (int i = 0; i < g->n_values; i++) {
        const Value *v = g->values[i];
        const Node *p = v->producer;
        if (p && (p->index < 0 || p->index >= g->n_nodes || g->nodes[p->index] != p || p->dead ||
                  v->producer_slot < 0 || v->producer_slot >= p->n_outputs || p->outputs[v->producer_slot] != v)) {
            diag_error("value %s: its producer is not a live node of the graph listing it", value_display_name(v));
            goto done;
        }
    }
    for (int i = 0; i < g->n_outputs; i++) {
        const Value *v = g->outputs[i];
        if (!owned(g, v) || state[v->id] != DEFINED) {
            diag_error("graph output %d (%s) is not a defined value of the graph", i, v ? value_display_name(v) : "null");
            goto done;
        }
    }
    rc = 0;
done:
    free(state);
    return rc;
}
