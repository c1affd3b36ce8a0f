/* legalize_rank.c - element-wise nodes of a rank above the target's range (Chromium 153: div, pow,
 * where, comparisons and logical ops up to rank 5, add/sub/mul up to 6).  When every shape is
 * static, the node is computed on flat tensors: operands broadcast to the output shape with expand
 * (when smaller), reshaped to [N], the op, the result reshaped back.  Exact (element-wise ops do not
 * care about the shape); other refusals are left to the final check. */
#include "decompose.h"
#include "legalize.h"
#include "webnn.h"

static bool elementwise(OpId op) {
    unsigned f = op_info(op)->flags;
    return (f & (OPF_ELTWISE_UNARY | OPF_ELTWISE_BINARY | OPF_COMPARE | OPF_LOGICAL)) || op == OP_WHERE;
}

static bool wants_flat(const Graph *g, const Node *n, const void *ctx) {
    const ImplLimits *l = ctx;
    if (!elementwise(n->op) || n->n_outputs != 1 || !value_is_static(n->outputs[0])) return false;
    bool refused = false;
    for (int s = 0; s < n->n_inputs + 1; s++) {
        const Value *v = s < n->n_inputs ? n->inputs[s] : n->outputs[0];
        const char *operand = s < n->n_inputs ? wn_limits_operand_name(n, s) : wn_limits_output_name(l, n, 0);
        if (!v || !value_is_static(v)) return false;
        if (wn_limits_accepts(l, op_name(n->op), operand, v->dtype, v->rank)) continue;
        if (!wn_limits_accepts(l, op_name(n->op), operand, v->dtype, 1)) return false;
        refused = true;
    }
    return refused;
}

static int compute_flat(Dec *d) {
    Node *old = d->ext;
    const Value *out = old->outputs[0];
    Node *n = graph_new_node(d->g, old->op, old->origin);
    Dim flat = dim_static((int64_t)value_max_elements(out));
    for (int i = 0; i < old->n_inputs; i++) {
        Value *v = old->inputs[i];
        bool same = v->rank == out->rank;
        for (int k = 0; same && k < v->rank; k++) same = dim_equal(v->shape[k], out->shape[k]);
        if (!same) v = pass_dc_expand(d, v, out->rank, out->shape);
        node_add_input(d->g, n, pass_dc_reshape(d, v, 1, &flat));
    }
    n->attrs = old->attrs; /* the arena's; the old node is dropped */
    n->n_attrs = old->n_attrs;
    if (graph_insert_node(d->g, n) < 0) return -1;
    return pass_dc_result(d, 0, pass_dc_reshape(d, n->outputs[0], out->rank, out->shape));
}

int pass_legalize_rank(Graph *g, const ImplLimits *l) {
    for (int op = 0; op < OP_COUNT; op++) {
        bool present = false;
        for (int i = 0; i < g->n_nodes && !present; i++) present = !g->nodes[i]->dead && g->nodes[i]->op == (OpId)op;
        if (present && elementwise((OpId)op) && pass_decompose_matching(g, (OpId)op, wants_flat, l, compute_flat) < 0) return -1;
    }
    return 0;
}
