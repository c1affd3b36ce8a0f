/* view_model.c - op families, value types as text and the page's JSON document of a graph for
 * `webnnc view` (view_model.h). */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "webnn.h"
#include "view_model.h"

enum { FAM_EXT, FAM_LINALG, FAM_NORM, FAM_ELTWISE, FAM_REDUCE, FAM_SHAPE, FAM_CONVERT, FAM_OTHER, FAM_COUNT };

const ViewFamily view_families[] = {
    [FAM_EXT] = {"webnnc extension (fused)", "#f4a582"},
    [FAM_LINALG] = {"matmul / gemm / conv", "#92c5de"},
    [FAM_NORM] = {"normalization / softmax", "#c2a5cf"},
    [FAM_ELTWISE] = {"element-wise", "#d9f0d3"},
    [FAM_REDUCE] = {"reduction / pooling", "#fee08b"},
    [FAM_SHAPE] = {"shape / data movement", "#e0e0e0"},
    [FAM_CONVERT] = {"cast / (de)quantize", "#fddbc7"},
    [FAM_OTHER] = {"other", "#ffffff"},
};
const int view_n_families = FAM_COUNT;

static bool name_in(const char *name, const char *const *list) {
    for (; *list; list++)
        if (!strcmp(name, *list)) return true;
    return false;
}

int view_op_family(OpId op) {
    const OpInfo *info = op_info(op);
    const char *name = info->name;
    static const char *const linalg[] = {"matmul", "gemm", "conv2d", "convTranspose2d", NULL};
    static const char *const shape[] = {"concat", "expand", "gather", "gatherElements", "gatherND", "pad", "reshape",
                                        "reverse", "scatterElements", "scatterND", "slice", "split", "tile",
                                        "transpose", "triangular", "identity", "where", "resample2d", NULL};
    static const char *const convert[] = {"cast", "quantizeLinear", "dequantizeLinear", NULL};
    if (info->flags & OPF_EXT) return FAM_EXT;
    if (name_in(name, linalg)) return FAM_LINALG;
    if (strstr(name, "Normalization") || strstr(name, "oftmax")) return FAM_NORM;
    if (name_in(name, shape)) return FAM_SHAPE;
    if (name_in(name, convert)) return FAM_CONVERT;
    if (info->flags & (OPF_REDUCE | OPF_POOL) || strstr(name, "Pool") || !strncmp(name, "arg", 3) ||
        !strcmp(name, "cumulativeSum"))
        return FAM_REDUCE;
    if (info->flags & (OPF_ELTWISE_UNARY | OPF_ELTWISE_BINARY | OPF_COMPARE | OPF_LOGICAL) || !strcmp(name, "prelu"))
        return FAM_ELTWISE;
    return FAM_OTHER;
}

void view_value_type(TextBuf *b, const Graph *g, const Value *v) {
    wn_tb_puts(b, "[");
    for (int i = 0; i < v->rank; i++) {
        char buf[128];
        wn_tb_printf(b, "%s%s", i ? ", " : "", dim_format(g, v->shape[i], buf, sizeof buf));
    }
    wn_tb_printf(b, "] %s", dtype_name(v->dtype));
}

/* "key": "text" pair, the value a JSON string. */
static void key_string(TextBuf *b, const char *key, const char *s) {
    wn_tb_json_string(b, key);
    wn_tb_puts(b, ":");
    wn_tb_json_string(b, s ? s : "");
}

static void value_json(TextBuf *b, const Graph *g, const Value *v, const int *live_index) {
    TextBuf t;
    wn_tb_init(&t);
    view_value_type(&t, g, v);
    wn_tb_puts(b, "{");
    key_string(b, "n", v->name);
    if (v->origin && strcmp(v->origin, v->name)) wn_tb_puts(b, ","), key_string(b, "o", v->origin);
    wn_tb_puts(b, ","), key_string(b, "t", t.data);
    const char *kind = v->flags & VF_INPUT ? "input" : v->flags & VF_CONST ? "constant" : "";
    if (*kind) wn_tb_puts(b, ","), key_string(b, "k", kind);
    if (v->flags & VF_OUTPUT) wn_tb_puts(b, ",\"out\":1");
    if (v->flags & VF_CONST) wn_tb_printf(b, ",\"bytes\":%llu", (unsigned long long)v->nbytes);
    if (v->producer && !v->producer->dead) wn_tb_printf(b, ",\"p\":%d", live_index[v->producer->index]);
    wn_tb_puts(b, "}");
    wn_tb_free(&t);
}

/* {"op", "id", "origin", "f", "ext", "in": [[slot, value]...], "out": [values], "opts": [[key, text]...]} */
static int node_json(TextBuf *b, const Graph *g, const Node *n) {
    const OpInfo *info = op_info(n->op);
    wn_tb_puts(b, "{");
    key_string(b, "op", info->name);
    wn_tb_puts(b, ","), key_string(b, "id", n->id);
    if (n->origin && strcmp(n->origin, n->id ? n->id : "")) wn_tb_puts(b, ","), key_string(b, "origin", n->origin);
    wn_tb_printf(b, ",\"f\":%d%s,\"in\":[", view_op_family(n->op), info->flags & OPF_EXT ? ",\"ext\":1" : "");
    for (int i = 0, first = 1; i < n->n_inputs; i++) {
        if (!n->inputs[i]) continue;
        int slot = i < info->n_inputs ? i : info->n_inputs - 1; /* variadic: the last slot repeats */
        wn_tb_puts(b, first ? "[" : ",[");
        wn_tb_json_string(b, slot >= 0 ? info->inputs[slot].name : "input");
        wn_tb_printf(b, ",%d]", n->inputs[i]->id);
        first = 0;
    }
    wn_tb_puts(b, "],\"out\":[");
    for (int i = 0; i < n->n_outputs; i++) wn_tb_printf(b, "%s%d", i ? "," : "", n->outputs[i]->id);
    wn_tb_puts(b, "],\"opts\":[");
    for (int i = 0; i < n->n_attrs; i++) {
        int k = op_option_index(info, n->attrs[i].key);
        TextBuf t;
        wn_tb_init(&t);
        if (k < 0 || wn_form_option_value(&t, g, n, &info->options[k], &n->attrs[i], FORM_TEXT) < 0) {
            diag_clear(); /* shown as unknown rather than failing the picture */
            wn_tb_free(&t);
            wn_tb_init(&t);
            wn_tb_puts(&t, "?");
        }
        wn_tb_puts(b, i ? ",[" : "[");
        wn_tb_json_string(b, n->attrs[i].key);
        wn_tb_puts(b, ",");
        wn_tb_json_string(b, t.data ? t.data : "");
        wn_tb_puts(b, "]");
        wn_tb_free(&t);
    }
    wn_tb_puts(b, "]}");
    return 0;
}

int view_model_json(TextBuf *b, const Graph *g, const char *source, const char *docs) {
    int *live_index = calloc((size_t)g->n_nodes + 1, sizeof *live_index);
    if (!live_index) abort();
    int n_live = 0;
    bool ext = false;
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead) live_index[i] = n_live++, ext |= (op_info(g->nodes[i]->op)->flags & OPF_EXT) != 0;
    wn_tb_puts(b, "{");
    key_string(b, "graph", g->name ? g->name : "graph");
    wn_tb_puts(b, ","), key_string(b, "source", source);
    wn_tb_puts(b, ",\"families\":[");
    for (int f = 0; f < view_n_families; f++) {
        wn_tb_puts(b, f ? ",[" : "[");
        wn_tb_json_string(b, view_families[f].name);
        wn_tb_puts(b, ",");
        wn_tb_json_string(b, view_families[f].colour);
        wn_tb_puts(b, "]");
    }
    wn_tb_puts(b, "],\"nodes\":[");
    for (int i = 0, first = 1; i < g->n_nodes; i++) {
        if (g->nodes[i]->dead) continue;
        if (!first) wn_tb_puts(b, ",\n");
        node_json(b, g, g->nodes[i]);
        first = 0;
    }
    wn_tb_puts(b, "],\"values\":[");
    for (int i = 0; i < g->n_values; i++) {
        if (i) wn_tb_puts(b, ",\n");
        value_json(b, g, g->values[i], live_index);
    }
    wn_tb_puts(b, "],\"inputs\":[");
    for (int i = 0; i < g->n_inputs; i++) wn_tb_printf(b, "%s%d", i ? "," : "", g->inputs[i]->id);
    wn_tb_puts(b, "],\"outputs\":[");
    for (int i = 0; i < g->n_outputs; i++) wn_tb_printf(b, "%s%d", i ? "," : "", g->outputs[i]->id);
    wn_tb_puts(b, "],");
    key_string(b, "docs", ext ? docs : "");
    wn_tb_puts(b, "}");
    free(live_index);
    return 0;
}
