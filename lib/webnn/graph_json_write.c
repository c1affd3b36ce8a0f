/* graph_json_write.c - the webnn-graph JSON (format "webnn-graph-json", version 2) of a graph.
 *
 * Layout (byte-stable): two-space indented top level in the order format, version, name,
 * quantized (only when true), inputs, consts, nodes, outputs; one map entry or node per line.
 * Node keys: id, op, inputs, options, outputs (outputs only for OPF_MULTI ops or nodes whose
 * output count is not 1; otherwise id is the output's name).  Options: operand-valued options
 * (`?@` slots) first in slot order, then the op's schema options in schema order.  Map order
 * and constant storage follow write_plan.h.  Outputs are written key == value. */
#include <stdlib.h>

#include "diag.h"
#include "graph_form.h"
#include "graph_json_kv.h"
#include "writers.h"

static int emit_input(TextBuf *b, const Graph *g, const Value *v) {
    tb_puts(b, "    ");
    tb_json_string(b, v->name);
    tb_puts(b, ": {\"dataType\": ");
    tb_json_string(b, dtype_name(v->dtype));
    tb_puts(b, ", \"shape\": ");
    if (form_shape(b, g, v, FORM_JSON)) return -1;
    tb_puts(b, "}");
    return 0;
}

static int emit_const(TextBuf *b, const Graph *g, const WritePlan *p, const PlannedConst *c) {
    tb_puts(b, "    ");
    tb_json_string(b, c->v->name);
    tb_puts(b, ": {\"dataType\": ");
    tb_json_string(b, dtype_name(c->v->dtype));
    tb_puts(b, ", \"shape\": ");
    if (form_shape(b, g, c->v, FORM_JSON)) return -1;
    tb_puts(b, ", \"init\": {\"kind\": ");
    switch (c->kind) {
    case CONST_SCALAR:
        tb_puts(b, "\"scalar\", \"value\": ");
        form_scalar(b, c->v->dtype, c->scalar);
        break;
    case CONST_INLINE:
        tb_puts(b, "\"inlineBytes\", \"bytes\": ");
        form_const_bytes(b, c->v, value_max_elements(c->v));
        break;
    case CONST_WEIGHTS:
        tb_puts(b, "\"weights\", \"ref\": ");
        tb_json_string(b, p->tensors[c->tensor].v->name);
        break;
    }
    tb_puts(b, "}}");
    return 0;
}

static bool writes_outputs(const Node *n) { return (op_info(n->op)->flags & OPF_MULTI) || n->n_outputs != 1; }

static int emit_node(TextBuf *b, const Graph *g, const Node *n) {
    NodeForm f;
    if (node_form(n, &f) || form_check_attrs(n)) return -1;
    const OpInfo *info = op_info(n->op);
    bool multi = writes_outputs(n);
    tb_puts(b, "    {\"id\": ");
    tb_json_string(b, multi ? n->id : n->outputs[0]->name);
    tb_puts(b, ", \"op\": ");
    tb_json_string(b, info->name);
    tb_puts(b, ", \"inputs\": [");
    for (int i = 0; i < f.n_pos; i++) {
        if (i) tb_puts(b, ", ");
        tb_json_string(b, f.pos[i]->name);
    }
    tb_puts(b, "], \"options\": {");
    int k = 0;
    for (int i = 0; i < f.n_opt; i++, k++) {
        tb_puts(b, k ? ", " : "");
        tb_json_string(b, f.opt_key[i]);
        tb_puts(b, ": ");
        tb_json_string(b, f.opt_val[i]->name);
    }
    for (int i = 0; i < info->n_options; i++) {
        const Attr *a = node_attr(n, info->options[i].key);
        if (!a) continue;
        tb_puts(b, k++ ? ", " : "");
        tb_json_string(b, a->key);
        tb_puts(b, ": ");
        if (form_option_value(b, g, n, &info->options[i], a, FORM_JSON)) return -1;
    }
    tb_puts(b, "}");
    if (multi) {
        tb_puts(b, ", \"outputs\": [");
        for (int i = 0; i < n->n_outputs; i++) {
            if (i) tb_puts(b, ", ");
            tb_json_string(b, n->outputs[i]->name);
        }
        tb_puts(b, "]");
    }
    tb_puts(b, "}");
    return 0;
}

/* Writes `count` map entries / array items, one per line, between open and close. */
#define EMIT_LINES(b, open, close, count, EMIT_ONE)             \
    do {                                                        \
        tb_puts(b, (count) ? open "\n" : open);                 \
        for (int i_ = 0; i_ < (count); i_++) {                  \
            if (EMIT_ONE) return -1;                            \
            tb_puts(b, i_ + 1 < (count) ? ",\n" : "\n  ");      \
        }                                                       \
        tb_puts(b, close);                                      \
    } while (0)

static int emit_output(TextBuf *b, const Value *v) {
    tb_puts(b, "    ");
    tb_json_string(b, v->name);
    tb_puts(b, ": ");
    tb_json_string(b, v->name);
    return 0;
}

int graph_json_emit(const Graph *g, const WritePlan *p, TextBuf *b) {
    tb_puts(b, "{\n  \"format\": \"webnn-graph-json\",\n  \"version\": 2,\n  \"name\": ");
    tb_json_string(b, g->name ? g->name : "graph");
    tb_puts(b, g->quantized ? ",\n  \"quantized\": true,\n  \"inputs\": " : ",\n  \"inputs\": ");
    EMIT_LINES(b, "{", "}", p->n_inputs, emit_input(b, g, p->inputs[i_]));
    tb_puts(b, ",\n  \"consts\": ");
    EMIT_LINES(b, "{", "}", p->n_consts, emit_const(b, g, p, &p->consts[i_]));
    tb_puts(b, ",\n  \"nodes\": ");
    int n_live = 0;
    const Node **live = malloc(sizeof *live * (size_t)(g->n_nodes ? g->n_nodes : 1));
    if (!live) abort();
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead) live[n_live++] = g->nodes[i];
    int rc = 0;
    tb_puts(b, n_live ? "[\n" : "[");
    for (int i = 0; i < n_live && !rc; i++) {
        rc = emit_node(b, g, live[i]);
        tb_puts(b, i + 1 < n_live ? ",\n" : "\n  ");
    }
    free(live);
    if (rc) return -1;
    tb_puts(b, "],\n  \"outputs\": ");
    EMIT_LINES(b, "{", "}", p->n_outputs, emit_output(b, p->outputs[i_]));
    graph_json_emit_kv(g, b);
    tb_puts(b, "\n}\n");
    return 0;
}
