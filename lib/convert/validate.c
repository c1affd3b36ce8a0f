/* validate.c - convert_validate_graph_files(): a written webnn-graph re-read and checked against the WebNN
 * op table, the exportable-dims rules and (optionally) a WebNN implementation's limits
 * (validate.h); `webnnc validate` and convert_write() call it. */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "webnn.h"
#include "validate.h"

/* A dynamic dim's symbol must appear in some graph input's shape (the runtime binds it there). */
static int check_symbols_bound(const Graph *g) {
    for (int s = 0; s < g->n_symbols; s++) {
        bool bound = false;
        for (int i = 0; i < g->n_inputs && !bound; i++)
            for (int d = 0; d < g->inputs[i]->rank && !bound; d++) {
                const char *name = dim_symbol_name(g, g->inputs[i]->shape[d]);
                bound = name && strcmp(name, g->symbols[s].name) == 0;
            }
        if (bound) continue;
        for (int v = 0; v < g->n_values; v++) /* only symbols in use matter */
            for (int d = 0; d < g->values[v]->rank; d++) {
                const char *name = dim_symbol_name(g, g->values[v]->shape[d]);
                if (name && strcmp(name, g->symbols[s].name) == 0) {
                    diag_error("value %s: dynamic dimension '%s' is not a dimension of any graph input",
                               value_display_name(g->values[v]), name);
                    return -1;
                }
            }
    }
    return 0;
}

static int check_outputs(const Graph *g) {
    if (g->n_outputs == 0) {
        diag_error("graph has no outputs");
        return -1;
    }
    for (int i = 0; i < g->n_outputs; i++)
        if (!g->outputs[i]->producer) {
            diag_error("output %s is not the result of a node", value_display_name(g->outputs[i]));
            return -1;
        }
    return 0;
}

int convert_validate_graph_files(const char *path, unsigned flags, char *summary, size_t len) {
    return convert_validate_graph_files_limits(path, flags, NULL, summary, len);
}

int convert_validate_graph_files_limits(const char *path, unsigned flags, const ImplLimits *limits, char *summary, size_t len) {
    Graph *g = webnn_read_ex(path, flags & VALIDATE_TRUST_WEIGHT_HASHES ? WEBNN_READ_SKIP_HASH : 0);
    if (!g) return WN_EXIT_BAD_INPUT;
    unsigned verify = VERIFY_EXPORTABLE | (flags & VALIDATE_ALLOW_EXTENSION_OPS ? 0 : VERIFY_SPEC_ONLY);
    if (graph_verify(g, verify) != 0 || check_outputs(g) < 0 ||
        check_symbols_bound(g) < 0 || (limits && wn_limits_check_graph(g, limits) < 0)) {
        graph_free(g);
        return WN_EXIT_CHECK_FAILED;
    }
    int consts = 0;
    for (int i = 0; i < g->n_values; i++) consts += (g->values[i]->flags & VF_CONST) != 0;
    int pos = snprintf(summary, len, "%d nodes, %d inputs, %d outputs, %d constants", graph_node_count(g), g->n_inputs,
                   g->n_outputs, consts);
    for (int s = 0; s < g->n_symbols && pos > 0 && (size_t)pos < len; s++)
        pos += snprintf(summary + pos, len - (size_t)pos, "%s%s<=%lld", s ? ", " : "; dynamic: ", g->symbols[s].name,
                        (long long)g->symbols[s].max_size);
    graph_free(g);
    return WN_EXIT_OK;
}
