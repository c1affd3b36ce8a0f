/* cmd_validate.c - `webnnc validate GRAPH [--allow-extensions] [--limits FILE] [--json]`: reads a webnn-graph
 * (.webnn.json, .webnn or OUTDIR) and checks it against the WebNN op table (validate_graph_files,
 * shared with `convert`); --allow-extensions accepts webnnc extension ops; --limits also checks it
 * against a WebNN implementation's limits (limits_check.h).  Prints "OK" and a summary (exit 0); a
 * violation prints one line naming the node or value (exit 1); a malformed file exits 2. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "diag.h"
#include "limits_check.h"
#include "report.h"
#include "validate.h"
#include "webnn_io.h"

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

int validate_graph_files(const char *path, unsigned flags, char *summary, size_t len) {
    return validate_graph_files_limits(path, flags, NULL, summary, len);
}

int validate_graph_files_limits(const char *path, unsigned flags, const ImplLimits *limits, char *summary, size_t len) {
    Graph *g = webnn_read_ex(path, flags & VALIDATE_TRUST_WEIGHT_HASHES ? WEBNN_READ_SKIP_HASH : 0);
    if (!g) return WN_EXIT_BAD_INPUT;
    unsigned verify = VERIFY_EXPORTABLE | (flags & VALIDATE_ALLOW_EXTENSION_OPS ? 0 : VERIFY_SPEC_ONLY);
    if (graph_verify(g, verify) != 0 || check_outputs(g) < 0 ||
        check_symbols_bound(g) < 0 || (limits && limits_check_graph(g, limits) < 0)) {
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

static const ArgSpec specs[] = {
    {"allow-extensions", 0, ARG_FLAG, NULL, "accept webnnc extension ops (graphs from convert --fuse); the rest is checked as usual"},
    {"limits", 0, ARG_VALUE, "FILE|chromium", "also check op set, data types, ranks and constant-only operands against a WebNN "
                                             "implementation's opSupportLimits() JSON (chromium: the built-in Chromium 153 limits)"},
    ARG_SPEC_JSON,
};

int cmd_validate(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *path = r.pos[0];
    char summary[512];
    bool ext = args_count(&r, "allow-extensions") > 0;
    cJSON *report = args_count(&r, "json") ? report_new(self->name) : NULL;
    if (report) {
        cJSON_AddStringToObject(report, "graph", path);
        cJSON_AddBoolToObject(report, "allowExtensions", ext);
    }
    ImplLimits *limits = NULL;
    const char *limits_spec = args_value(&r, "limits");
    if (limits_spec) {
        diag_set_file(NULL);
        if (!(limits = impl_limits_load(limits_spec))) return report_fail(report, limits_spec, WN_EXIT_BAD_INPUT);
        if (report) cJSON_AddStringToObject(report, "limits", limits->src);
    }
    diag_set_file(path);
    rc = validate_graph_files_limits(path, ext ? VALIDATE_ALLOW_EXTENSION_OPS : 0, limits, summary, sizeof summary);
    impl_limits_free(limits);
    if (rc != WN_EXIT_OK) {
        if (rc == WN_EXIT_CHECK_FAILED && !ext && strstr(diag_message(), "is not a WebNN spec op")) {
            char msg[1100];
            snprintf(msg, sizeof msg, "%s", diag_message());
            diag_clear();
            diag_error("%s (a webnnc extension op: accept them with --allow-extensions)", msg);
        }
        return report_fail(report, path, rc);
    }
    if (!report) {
        printf("OK %s: %s\n", path, summary);
        return WN_EXIT_OK;
    }
    cJSON_AddStringToObject(report, "summary", summary);
    return report_end(report, WN_EXIT_OK);
}
