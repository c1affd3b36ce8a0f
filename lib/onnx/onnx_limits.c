/* onnx_limits.c - resource limits on a parsed ONNX graph (input_limits.def): node count (all
 * subgraphs together) and the length of every name and op type.  Recursion into subgraphs is
 * bounded by the protobuf-nesting limit the wire check already enforced. */
#include <string.h>

#include "core.h"
#include "onnx_model.h"

typedef struct {
    const char *file;
    uint64_t nodes;
} LimitWalk;

static bool name_ok(LimitWalk *w, const char *s, const char *what) {
    size_t n = s ? strnlen(s, (size_t)input_limit(LIMIT_STRING_LENGTH) + 1) : 0;
    return input_limit_ok(LIMIT_STRING_LENGTH, n, w->file, what);
}

static bool value_infos_ok(LimitWalk *w, Onnx__ValueInfoProto **v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!name_ok(w, v[i]->name, "value name length")) return false;
    return true;
}

static bool graph_ok(LimitWalk *w, const Onnx__GraphProto *g);

static bool node_ok(LimitWalk *w, const Onnx__NodeProto *n) {
    if (!name_ok(w, n->name, "node name length") || !name_ok(w, n->op_type, "op type length") ||
        !name_ok(w, n->domain, "domain length"))
        return false;
    for (size_t i = 0; i < n->n_input; i++)
        if (!name_ok(w, n->input[i], "node input name length")) return false;
    for (size_t i = 0; i < n->n_output; i++)
        if (!name_ok(w, n->output[i], "node output name length")) return false;
    for (size_t a = 0; a < n->n_attribute; a++) {
        const Onnx__AttributeProto *at = n->attribute[a];
        if (!name_ok(w, at->name, "attribute name length")) return false;
        if (at->g && !graph_ok(w, at->g)) return false;
        for (size_t k = 0; k < at->n_graphs; k++)
            if (!graph_ok(w, at->graphs[k])) return false;
    }
    return true;
}

static bool graph_ok(LimitWalk *w, const Onnx__GraphProto *g) {
    w->nodes += g->n_node;
    if (!input_limit_ok(LIMIT_NODE_COUNT, w->nodes, w->file, "node count")) return false;
    if (!value_infos_ok(w, g->input, g->n_input) || !value_infos_ok(w, g->output, g->n_output)) return false;
    for (size_t i = 0; i < g->n_initializer; i++)
        if (!name_ok(w, g->initializer[i]->name, "initializer name length")) return false;
    for (size_t i = 0; i < g->n_node; i++)
        if (!node_ok(w, g->node[i])) return false;
    return true;
}

int onnx_graph_check_limits(const Onnx__GraphProto *g, const char *file) {
    LimitWalk w = {file, 0};
    return graph_ok(&w, g) ? 0 : -1;
}
