/* graph_json_write.c - the webnn-graph JSON (format "webnn-graph-json", version 2) of a graph.
 *
 * Layout (byte-stable): two-space indented top level in the order format, version, name,
 * quantized (only when true), inputs, consts, nodes, outputs; one map entry or node per line.
 * Node keys: id, op, inputs, options, outputs (outputs only for OPF_MULTI ops or nodes whose
 * output count is not 1; otherwise id is the output's name).  Options: operand-valued options
 * (`?@` slots) first in slot order, then the op's schema options in schema order.  Map order
 * and constant storage follow write_plan.h.  Outputs are written key == value. */
#include <stdlib.h>

#include "core.h"
#include "graph_form.h"
#include "graph_json_kv.h"
#include "writers.h"

static int emit_input(TextBuf *b, const Graph *g, const Value *v) {
    wn_tb_puts(b, "    ");
    wn_tb_json_string(b, v->name);
    wn_tb_puts(b, ": {\"dataType\": ");
    wn_tb_json_string(b, dtype_name(v->dtype));
    wn_tb_puts(b, ", \"shape\": ");
    if (wn_form_shape(b, g, v, FORM_JSON)) return -1;
    wn_tb_puts(b, "}");
    return 0;
}

static int emit_const(TextBuf *b, const Graph *g, const WritePlan *p, const PlannedConst *c) {
    wn_tb_puts(b, "    ");
    wn_tb_json_string(b, c->v->name);
    wn_tb_puts(b, ": {\"dataType\": ");
    wn_tb_json_string(b, dtype_name(c->v->dtype));
    wn_tb_puts(b, ", \"shape\": ");
    if (wn_form_shape(b, g, c->v, FORM_JSON)) return -1;
    wn_tb_puts(b, ", \"init\": {\"kind\": ");
    switch (c->kind) {
    case CONST_SCALAR:
        wn_tb_puts(b, "\"scalar\", \"value\": ");
        wn_form_scalar(b, c->v->dtype, c->scalar);
        break;
    case CONST_INLINE:
        wn_tb_puts(b, "\"inlineBytes\", \"bytes\": ");
        wn_form_const_bytes(b, c->v, value_max_elements(c->v));
        break;
    case CONST_WEIGHTS:
        wn_tb_puts(b, "\"weights\", \"ref\": ");
        wn_tb_json_string(b, p->tensors[c->tensor].v->name);
        break;
    }
    wn_tb_puts(b, "}}");
    return 0;
}

static bool writes_outputs(const Node *n) { return (op_info(n->op)->flags & OPF_MULTI) || n->n_outputs != 1; }

static int emit_node(TextBuf *b, const Graph *g, const Node *n) {
    NodeForm f;
    if (wn_node_form(n, &f) || wn_form_check_attrs(n)) return -1;
    const OpInfo *info = op_info(n->op);
    bool multi = writes_outputs(n);
    wn_tb_puts(b, "    {\"id\": ");
    wn_tb_json_string(b, multi ? n->id : n->outputs[0]->name);
    wn_tb_puts(b, ", \"op\": ");
    wn_tb_json_string(b, info->name);
    wn_tb_puts(b, ", \"inputs\": [");
    for (int i = 0; i < f.n_pos; i++) {
        if (i) wn_tb_puts(b, ", ");
        wn_tb_json_string(b, f.pos[i]->name);
    }
    wn_tb_puts(b, "], \"options\": {");
    int k = 0;
    for (int i = 0; i < f.n_opt; i++, k++) {
        wn_tb_puts(b, k ? ", " : "");
        wn_tb_json_string(b, f.opt_key[i]);
        wn_tb_puts(b, ": ");
        wn_tb_json_string(b, f.opt_val[i]->name);
    }
    for (int i = 0; i < info->n_options; i++) {
        const Attr *a = node_attr(n, info->options[i].key);
        if (!a) continue;
        wn_tb_puts(b, k++ ? ", " : "");
        wn_tb_json_string(b, a->key);
        wn_tb_puts(b, ": ");
        if (wn_form_option_value(b, g, n, &info->options[i], a, FORM_JSON)) return -1;
    }
    wn_tb_puts(b, "}");
    if (multi) {
        wn_tb_puts(b, ", \"outputs\": [");
        for (int i = 0; i < n->n_outputs; i++) {
            if (i) wn_tb_puts(b, ", ");
            wn_tb_json_string(b, n->outputs[i]->name);
        }
        wn_tb_puts(b, "]");
    }
    wn_tb_puts(b, "}");
    return 0;
}

/* Writes `count` map entries / array items, one per line, between open and close. */
#define EMIT_LINES(b, open, close, count, EMIT_ONE)             \
    do {                                                        \
        wn_tb_puts(b, (count) ? open "\n" : open);                 \
        for (int i_ = 0; i_ < (count); i_++) {                  \
            if (EMIT_ONE) return -1;                            \
            wn_tb_puts(b, i_ + 1 < (count) ? ",\n" : "\n  ");      \
        }                                                       \
        wn_tb_puts(b, close);                                      \
    } while (0)

static int emit_output(TextBuf *b, const Value *v) {
    wn_tb_puts(b, "    ");
    wn_tb_json_string(b, v->name);
    wn_tb_puts(b, ": ");
    wn_tb_json_string(b, v->name);
    return 0;
}

int wn_graph_json_emit(const Graph *g, const WritePlan *p, TextBuf *b) {
    wn_tb_puts(b, "{\n  \"format\": \"webnn-graph-json\",\n  \"version\": 2,\n  \"name\": ");
    wn_tb_json_string(b, g->name ? g->name : "graph");
    wn_tb_puts(b, g->quantized ? ",\n  \"quantized\": true,\n  \"inputs\": " : ",\n  \"inputs\": ");
    EMIT_LINES(b, "{", "}", p->n_inputs, emit_input(b, g, p->inputs[i_]));
    wn_tb_puts(b, ",\n  \"consts\": ");
    EMIT_LINES(b, "{", "}", p->n_consts, emit_const(b, g, p, &p->consts[i_]));
    wn_tb_puts(b, ",\n  \"nodes\": ");
    int n_live = 0;
    const Node **live = malloc(sizeof *live * (size_t)(g->n_nodes ? g->n_nodes : 1));
    if (!live) abort();
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead) live[n_live++] = g->nodes[i];
    int rc = 0;
    wn_tb_puts(b, n_live ? "[\n" : "[");
    for (int i = 0; i < n_live && !rc; i++) {
        rc = emit_node(b, g, live[i]);
        wn_tb_puts(b, i + 1 < n_live ? ",\n" : "\n  ");
    }
    free(live);
    if (rc) return -1;
    wn_tb_puts(b, "],\n  \"outputs\": ");
    EMIT_LINES(b, "{", "}", p->n_outputs, emit_output(b, p->outputs[i_]));
    wn_graph_json_emit_kv(g, b);
    wn_tb_puts(b, "\n}\n");
    return 0;
}
