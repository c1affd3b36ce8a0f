/* legalize_int64.c - int64 where the target takes only int32 (Chromium 153: pow, div, abs, sign,
 * reduceL1, ... have no int64).  A node whose int64 operands or outputs the target refuses, and
 * which the target accepts with int32 in those places (and no data-type option), is computed in
 * int32: cast(int64 -> int32) on its int64 operands, the op, cast back to int64 on its int64
 * outputs.  Exact for values within the int32 range (indices, positions, lengths, token ids); wider
 * values wrap, as a browser's int64 -> int32 cast does.  Other refusals are left to the final check. */
#include "decompose.h"
#include "legalize.h"
#include "webnn.h"

static bool has_dtype_option(const Node *n) {
    for (int i = 0; i < n->n_attrs; i++)
        if (n->attrs[i].type == AT_DTYPE) return true;
    return false;
}

/* 1: refused with int64 and accepted with int32 instead; 0: leave it. */
static bool wants_int32(const Graph *g, const Node *n, const void *ctx) {
    const ImplLimits *l = ctx;
    const char *op = op_name(n->op);
    bool refused = false;
    for (int s = 0; s < n->n_inputs + n->n_outputs; s++) {
        const Value *v = s < n->n_inputs ? n->inputs[s] : n->outputs[s - n->n_inputs];
        if (!v) continue;
        const char *operand = s < n->n_inputs ? wn_limits_operand_name(n, s) : wn_limits_output_name(l, n, s - n->n_inputs);
        if (wn_limits_accepts(l, op, operand, v->dtype, v->rank)) continue;
        if (v->dtype != DT_I64 || !wn_limits_accepts(l, op, operand, DT_I32, v->rank)) return false;
        refused = true;
    }
    return refused && !has_dtype_option(n);
}

static int compute_in_int32(Dec *d) {
    Node *old = d->ext;
    Node *n = graph_new_node(d->g, old->op, old->origin);
    for (int i = 0; i < old->n_inputs; i++) node_add_input(d->g, n, old->inputs[i] && old->inputs[i]->dtype == DT_I64 ? pass_dc_cast(d, old->inputs[i], DT_I32) : old->inputs[i]);
    n->attrs = old->attrs; /* the arena's; the old node is dropped */
    n->n_attrs = old->n_attrs;
    if (graph_insert_node(d->g, n) < 0) return -1;
    if (n->n_outputs != old->n_outputs) return pass_dc_fail(d, "int32 form has %d outputs, not %d", n->n_outputs, old->n_outputs);
    for (int j = 0; j < n->n_outputs; j++)
        if (pass_dc_result(d, j, pass_dc_cast(d, n->outputs[j], old->outputs[j]->dtype)) < 0) return -1;
    return 0;
}

int pass_legalize_int64(Graph *g, const ImplLimits *l) {
    for (int op = 0; op < OP_COUNT; op++) {
        bool present = false;
        for (int i = 0; i < g->n_nodes && !present; i++) present = !g->nodes[i]->dead && g->nodes[i]->op == (OpId)op;
        if (present && pass_decompose_matching(g, (OpId)op, wants_int32, l, compute_in_int32) < 0) return -1;
    }
    return 0;
}
