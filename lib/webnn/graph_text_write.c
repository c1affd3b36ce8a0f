/* graph_text_write.c - the .webnn text form (webnn-graph DSL) of a graph.
 *
 * Same content and order as the JSON (graph_json_write.c).  Layout: header
 * `webnn_graph "name" v2 [@quantized] {`, then the blocks inputs, consts, nodes (each only when
 * non-empty) and outputs (always), two-space indentation, one declaration per line.  Dynamic
 * input dims are `dyn("name", maxSize)`; dims inside options are object literals.  Floats use
 * the NUMBER grammar (wn_tb_double: "0.5", "1.0", "1e-05"); non-finite floats are an error.
 * Strings are written with JSON escapes (the grammar itself only knows \" and \\). */
#include "graph_form.h"
#include "writers.h"

static int emit_type(TextBuf *b, const Graph *g, const Value *v) {
    wn_tb_puts(b, dtype_text_name(v->dtype));
    return wn_form_shape(b, g, v, FORM_TEXT);
}

static int emit_node(TextBuf *b, const Graph *g, const Node *n) {
    NodeForm f;
    if (wn_node_form(n, &f) || wn_form_check_attrs(n)) return -1;
    const OpInfo *info = op_info(n->op);
    wn_tb_puts(b, "    ");
    if ((info->flags & OPF_MULTI) || n->n_outputs != 1) {
        wn_tb_puts(b, "[");
        for (int i = 0; i < n->n_outputs; i++) wn_tb_printf(b, i ? ", %s" : "%s", n->outputs[i]->name);
        wn_tb_puts(b, "]");
    } else {
        wn_tb_puts(b, n->outputs[0]->name);
    }
    wn_tb_printf(b, " = %s(", info->name);
    int k = 0;
    for (int i = 0; i < f.n_pos; i++) wn_tb_printf(b, k++ ? ", %s" : "%s", f.pos[i]->name);
    for (int i = 0; i < f.n_opt; i++) wn_tb_printf(b, k++ ? ", %s=%s" : "%s=%s", f.opt_key[i], f.opt_val[i]->name);
    for (int i = 0; i < info->n_options; i++) {
        const Attr *a = node_attr(n, info->options[i].key);
        if (!a) continue;
        wn_tb_printf(b, k++ ? ", %s=" : "%s=", a->key);
        if (wn_form_option_value(b, g, n, &info->options[i], a, FORM_TEXT)) return -1;
    }
    wn_tb_puts(b, ");\n");
    return 0;
}

int wn_graph_text_emit(const Graph *g, const WritePlan *p, TextBuf *b) {
    wn_tb_puts(b, "webnn_graph ");
    wn_tb_json_string(b, g->name ? g->name : "graph");
    wn_tb_puts(b, g->quantized ? " v2 @quantized {\n" : " v2 {\n");
    if (p->n_inputs) {
        wn_tb_puts(b, "  inputs {\n");
        for (int i = 0; i < p->n_inputs; i++) {
            wn_tb_printf(b, "    %s: ", p->inputs[i]->name);
            if (emit_type(b, g, p->inputs[i])) return -1;
            wn_tb_puts(b, ";\n");
        }
        wn_tb_puts(b, "  }\n");
    }
    if (p->n_consts) {
        wn_tb_puts(b, "  consts {\n");
        for (int i = 0; i < p->n_consts; i++) {
            const PlannedConst *c = &p->consts[i];
            wn_tb_printf(b, "    %s: ", c->v->name);
            if (emit_type(b, g, c->v)) return -1;
            if (c->kind == CONST_SCALAR) {
                wn_tb_puts(b, " @scalar(");
                wn_form_scalar(b, c->v->dtype, c->scalar);
                wn_tb_puts(b, ");\n");
            } else if (c->kind == CONST_INLINE) {
                wn_tb_puts(b, " @bytes(");
                wn_form_const_bytes(b, c->v, value_max_elements(c->v));
                wn_tb_puts(b, ");\n");
            } else {
                wn_tb_puts(b, " @weights(");
                wn_tb_json_string(b, p->tensors[c->tensor].v->name);
                wn_tb_puts(b, ");\n");
            }
        }
        wn_tb_puts(b, "  }\n");
    }
    bool any = false;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i]->dead) continue;
        if (!any) wn_tb_puts(b, "  nodes {\n");
        any = true;
        if (emit_node(b, g, g->nodes[i])) return -1;
    }
    if (any) wn_tb_puts(b, "  }\n");
    wn_tb_puts(b, "  outputs {");
    for (int i = 0; i < p->n_outputs; i++) wn_tb_printf(b, " %s;", p->outputs[i]->name);
    wn_tb_puts(b, " }\n}\n");
    return 0;
}
