/* inspect_webnn.c - `webnnc inspect` for webnn-graph files: reads the graph with webnn_read (which
 * verifies weights and checksums) and fills the summary: op histogram, inputs/outputs with
 * {name, maxSize} dims, constant bytes per dtype, and whether it is portable (spec ops only) or
 * webnnc-specific (the extension ops it uses). */
#include "inspect.h"

#include "webnn.h"

static void add_values(cJSON *s, const char *list, const Graph *g, Value *const *values, int n) {
    char buf[128];
    for (int i = 0; i < n; i++) {
        const Value *v = values[i];
        cJSON *shape = summary_add_tensor(s, list, v->name, dtype_name(v->dtype));
        if (!shape) continue;
        for (int d = 0; d < v->rank; d++) {
            Dim dim = v->shape[d];
            if (dim_is_static(dim)) {
                summary_dim_static(shape, dim.v);
                continue;
            }
            const char *sym = dim_symbol_name(g, dim);
            summary_dim_symbol(shape, sym ? sym : dim_format(g, dim, buf, sizeof buf), dim_max(dim));
        }
    }
}

/* "portable": spec ops only (any WebNN implementation, rustnn, the browser), else false and
 * "extensionOps": the webnnc extension ops it uses, in op-table order (docs/extension-ops.md). */
static void add_portability(cJSON *s, const Graph *g) {
    bool used[OP_COUNT] = {false};
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->op < OP_COUNT) used[g->nodes[i]->op] = true;
    cJSON *ext = cJSON_CreateArray();
    for (int op = 0; op < OP_COUNT; op++)
        if (used[op] && !(op_info((OpId)op)->flags & OPF_SPEC)) cJSON_AddItemToArray(ext, cJSON_CreateString(op_name((OpId)op)));
    cJSON_AddBoolToObject(s, "portable", cJSON_GetArraySize(ext) == 0);
    cJSON_AddItemToObject(s, "extensionOps", ext);
}

int inspect_webnn(const char *path, cJSON *s) {
    Graph *g = webnn_read(path);
    if (!g) return -1;
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead) summary_count_op(s, op_name(g->nodes[i]->op));
    add_portability(s, g);
    add_values(s, "inputs", g, g->inputs, g->n_inputs);
    add_values(s, "outputs", g, g->outputs, g->n_outputs);
    summary_add_graph_constants(s, g);
    graph_free(g);
    return 0;
}
