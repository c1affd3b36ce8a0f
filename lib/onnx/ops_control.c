/* ops_control.c - ONNX If, in the form ORT-GenAI uses for LongRoPE (Phi-3-128k, Phi-4-mini): both
 * branches hold only Constant nodes.  A condition known at conversion time (a constant, e.g.
 * Greater(total_sequence_length, original_max) decided from the dim bounds by shape_expr.c) picks
 * the branch statically; a run-time condition becomes where(cond, then, else) per output when the
 * two constants have the same type.  Any other If is refused with an error naming the node. */
#include <string.h>

#include "import_internal.h"

/* The graph attribute `name`, or NULL with an error. */
static const Onnx__GraphProto *branch(OnnxCtx *c, const char *name) {
    const Onnx__AttributeProto *a = onnx_attr_find(c, name);
    if (!a || a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH || !a->g) {
        onnx_imp_error(c, "missing graph attribute '%s'", name);
        return NULL;
    }
    return a->g;
}

/* Imports a Constant-only branch: out[i] = the constant named by branch output i. */
static int constant_branch(OnnxCtx *c, const char *name, Value **out) {
    const Onnx__GraphProto *b = branch(c, name);
    if (!b) return -1;
    if ((int)b->n_output != c->n_out)
        return onnx_imp_error(c, "%s has %zu outputs, the node %d", name, b->n_output, c->n_out);
    if (b->n_node > 64) return onnx_imp_error(c, "%s has %zu nodes (only small Constant-only branches are supported)", name, b->n_node);
    Value *vals[64];
    for (size_t i = 0; i < b->n_node; i++) {
        const Onnx__NodeProto *np = b->node[i];
        if (!np || !np->op_type || strcmp(np->op_type, "Constant") != 0 || np->n_input || np->n_output != 1)
            return onnx_imp_error(c, "If branch %s holds a %s node; only Constant-only branches are supported", name,
                             np && np->op_type ? np->op_type : "?");
        Value *slot[1] = {NULL};
        OnnxCtx sub = {.g = c->g, .m = c->m, .node = np, .origin = c->origin, .domain = c->domain, .opset = c->opset,
                       .n_in = 0, .in = slot, .n_out = 1, .out = slot, .pf = c->pf};
        if (onnx_Constant(&sub) < 0) return -1;
        vals[i] = slot[0];
    }
    for (int k = 0; k < c->n_out; k++) {
        const char *want = b->output[k] ? b->output[k]->name : NULL;
        out[k] = NULL;
        for (size_t i = 0; want && i < b->n_node; i++)
            if (b->node[i]->output[0] && strcmp(b->node[i]->output[0], want) == 0) out[k] = vals[i];
        if (!out[k]) return onnx_imp_error(c, "%s output %d is not produced by a Constant of the branch", name, k);
    }
    return 0;
}

int onnx_If(OnnxCtx *c) {
    Value *cond = onnx_in_raw(c, 0);
    if (!cond) return onnx_imp_error(c, "missing required input 0");
    if (c->n_out < 1 || c->n_out > 64) return onnx_imp_error(c, "If with %d outputs is not supported", c->n_out);
    Value **then_v = graph_alloc(c->g, sizeof *then_v * (size_t)c->n_out);
    Value **else_v = graph_alloc(c->g, sizeof *else_v * (size_t)c->n_out);
    if (constant_branch(c, "then_branch", then_v) < 0 || constant_branch(c, "else_branch", else_v) < 0) return -1;
    if ((cond->flags & VF_CONST) && value_max_elements(cond) == 1) {
        double t;
        if (onnx_imp_const_scalar(c, cond, "cond", &t) < 0) return -1;
        for (int k = 0; k < c->n_out; k++) onnx_imp_set_out(c, k, t != 0 ? then_v[k] : else_v[k]);
        return 0;
    }
    cond = onnx_in_req(c, 0); /* a run-time condition (materialized if symbolic) */
    if (!cond) return -1;
    if (value_max_elements(cond) != 1 || (cond->rank > 0 && !value_is_static(cond)))
        return onnx_imp_error(c, "the condition must hold one element");
    char a[128], b[128];
    for (int k = 0; k < c->n_out; k++) {
        const Value *x = then_v[k], *y = else_v[k];
        bool same = x->dtype == y->dtype && x->rank == y->rank;
        for (int d = 0; same && d < x->rank; d++) same = dim_equal(x->shape[d], y->shape[d]);
        if (!same)
            return onnx_imp_error(c, "output %d: branches differ (%s vs %s) and the condition is only known at run time", k,
                             value_format_type(c->g, x, a, sizeof a), value_format_type(c->g, y, b, sizeof b));
        Node *w = onnx_imp_node(c, OP_WHERE);
        node_add_input(c->g, w, onnx_emit_reshape(c, cond, 0, NULL));
        node_add_input(c->g, w, then_v[k]);
        node_add_input(c->g, w, else_v[k]);
        Value *v = onnx_imp_finish(c, w);
        if (!v) return -1;
        onnx_imp_set_out(c, k, v);
    }
    return 0;
}
