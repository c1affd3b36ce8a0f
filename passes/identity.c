/* identity.c - removes nodes that do not change their operand: identity, and reshape / expand /
 * cast / transpose whose output has the input's dtype and shape (transpose only with the identity
 * permutation).  Uses are rewired to the operand; a node producing a graph output is kept so the
 * output keeps its name.  A graph output that constant folding turned into a constant becomes
 * identity(constant) again, under its own name: WebNN graph outputs must be operation results. */
#include "pass.h"

static bool same_type(const Value *a, const Value *b) {
    if (a->dtype != b->dtype || a->rank != b->rank) return false;
    for (int i = 0; i < a->rank; i++)
        if (!dim_equal(a->shape[i], b->shape[i])) return false;
    return true;
}

static bool identity_permutation(const Node *n, int rank) {
    const int64_t *perm;
    int count = node_ints(n, "permutation", &perm);
    if (count < 0) return rank <= 1; /* default: reversed axes */
    if (count != rank) return false;
    for (int i = 0; i < count; i++)
        if (perm[i] != i) return false;
    return true;
}

static bool is_noop(const Node *n) {
    if (n->n_inputs < 1 || !n->inputs[0] || n->n_outputs != 1) return false;
    const Value *in = n->inputs[0], *out = n->outputs[0];
    if (!same_type(in, out)) return false;
    switch (n->op) {
    case OP_IDENTITY:
    case OP_RESHAPE:
    case OP_EXPAND:
    case OP_CAST: return true;
    case OP_TRANSPOSE: return identity_permutation(n, in->rank);
    default: return false;
    }
}

/* Graph output v is a constant: v keeps its data under a new name, the output (with v's name) is
 * identity(v). */
static int output_from_constant(Graph *g, int i) {
    Value *v = g->outputs[i];
    Node *n = graph_new_node(g, OP_IDENTITY, v->origin);
    node_add_input(g, n, v);
    const char *base[1] = {v->name};
    node_set_output_names(g, n, 1, base); /* NAME_1: the constant's new name after the swap */
    if (graph_insert_node(g, n) < 0) return -1;
    Value *out = n->outputs[0];
    const char *name = v->name;
    v->name = out->name;
    out->name = name;
    out->origin = v->origin;
    out->flags |= VF_OUTPUT;
    v->flags &= ~(unsigned)VF_OUTPUT;
    g->outputs[i] = out;
    return 0;
}

int pass_identity(Graph *g, const PassOptions *opt) {
    (void)opt;
    for (int i = 0; i < g->n_outputs; i++) {
        const Value *v = g->outputs[i];
        if ((v->flags & VF_CONST) && !(v->flags & VF_INPUT) && output_from_constant(g, i) < 0) return -1;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead || !is_noop(n) || (n->outputs[0]->flags & VF_OUTPUT)) continue;
        graph_replace_uses(g, n->outputs[0], n->inputs[0]);
        n->dead = true;
    }
    graph_compact(g);
    return 0;
}
