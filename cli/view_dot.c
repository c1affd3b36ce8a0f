/* view_dot.c - Graphviz DOT text of a graph for `webnnc view FILE.dot` (view_dot.h). */
#include <stdlib.h>
#include <string.h>

#include "view_dot.h"
#include "view_model.h"

/* A DOT quoted string: " and \ escaped (so \N, \G, \l... cannot appear), line breaks as \n. */
static void dot_string(TextBuf *b, const char *s) {
    wn_tb_puts(b, "\"");
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '"' || *p == '\\') wn_tb_printf(b, "\\%c", *p);
        else if (*p == '\n') wn_tb_puts(b, "\\n");
        else if (*p != '\r') wn_tb_putn(b, p, 1);
    }
    wn_tb_puts(b, "\"");
}

/* A label of two lines: "head\nname" (each part escaped). */
static void dot_label(TextBuf *b, const char *head, const char *name) {
    TextBuf t;
    wn_tb_init(&t);
    wn_tb_printf(&t, "%s\n%s", head, name ? name : "");
    dot_string(b, t.data);
    wn_tb_free(&t);
}

static void dot_edge(TextBuf *b, const Graph *g, const char *from, int from_i, const char *to, int to_i, const Value *v) {
    TextBuf t;
    wn_tb_init(&t);
    view_value_type(&t, g, v);
    wn_tb_printf(b, "  %s%d -> %s%d [label=", from, from_i, to, to_i);
    dot_string(b, t.data);
    wn_tb_puts(b, "];\n");
    wn_tb_free(&t);
}

void view_dot(TextBuf *b, const Graph *g) {
    int *live = calloc((size_t)g->n_nodes + 1, sizeof *live), n_live = 0;
    int *input_of = calloc((size_t)g->n_values + 1, sizeof *input_of); /* value id -> graph input + 1 */
    if (!live || !input_of) abort();
    wn_tb_puts(b, "digraph ");
    dot_string(b, g->name ? g->name : "graph");
    wn_tb_puts(b, " {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
               "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n");
    for (int i = 0; i < g->n_inputs; i++) {
        input_of[g->inputs[i]->id] = i + 1;
        wn_tb_printf(b, "  in%d [shape=ellipse, fillcolor=\"#ffffcc\", label=", i);
        dot_label(b, "input", g->inputs[i]->name);
        wn_tb_puts(b, "];\n");
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        if (n->dead) continue;
        live[i] = n_live++;
        bool ext = op_info(n->op)->flags & OPF_EXT;
        wn_tb_printf(b, "  n%d [fillcolor=\"%s\"%s, label=", live[i], view_families[view_op_family(n->op)].colour,
                  ext ? ", penwidth=2.5, fontname=\"Helvetica-Bold\"" : "");
        dot_label(b, op_name(n->op), n->id);
        wn_tb_puts(b, "];\n");
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        if (n->dead) continue;
        for (int k = 0; k < n->n_inputs; k++) {
            const Value *v = n->inputs[k];
            if (!v || (v->flags & VF_CONST)) continue;
            if (v->producer && !v->producer->dead) dot_edge(b, g, "n", live[v->producer->index], "n", live[i], v);
            else if (input_of[v->id]) dot_edge(b, g, "in", input_of[v->id] - 1, "n", live[i], v);
        }
    }
    for (int i = 0; i < g->n_outputs; i++) {
        const Value *v = g->outputs[i];
        wn_tb_printf(b, "  out%d [shape=ellipse, fillcolor=\"#ccebc5\", label=", i);
        dot_label(b, "output", v->name);
        wn_tb_puts(b, "];\n");
        if (v->producer && !v->producer->dead) dot_edge(b, g, "n", live[v->producer->index], "out", i, v);
        else if (input_of[v->id]) dot_edge(b, g, "in", input_of[v->id] - 1, "out", i, v);
    }
    wn_tb_puts(b, "}\n");
    free(live);
    free(input_of);
}
