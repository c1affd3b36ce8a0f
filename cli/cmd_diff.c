/* cmd_diff.c - `webnnc diff A B`: op histograms of two graphs side by side with deltas (B - A).
 * An ONNX input becomes its spec-only baseline exactly as `webnnc convert` builds it (genai_config
 * defaults, KV cache, decompositions, folding); a webnn-graph is read as it is.  --fuse then fuses
 * it (pipeline_plan.h) and tidies up as convert does, so `webnnc diff M M --fuse none --fuse all` shows
 * what fusion recovers.  Columns are named after the graphs (file or folder name, and the fusions). */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "core.h"
#include "pipeline_plan.h"
#include "convert.h"
#include "report.h"

static const ArgSpec specs[] = {
    {"fuse", 0, ARG_LIST, "all|none|LIST", "fusions for each ONNX input (given once: both; twice: A then B)"},
    {"fix", 0, ARG_LIST, "NAME=N", "freeze symbolic dimension NAME to the static size N when importing ONNX"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "keep symbolic dimension NAME dynamic with upper bound MAX when importing ONNX"},
    ARG_SPEC_JSON,
};

/* A column's name: the graph's file or folder name without .onnx / .webnn.json / .webnn, and the
 * fusions when given ("qwen2-int4-cpu fuse=all"). */
static void label(const char *path, const char *fuse, char *out, size_t len) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    const char *base = path + n;
    while (base > path && base[-1] != '/') base--;
    n = (size_t)(path + n - base);
    static const char *const suffixes[] = {".onnx", ".webnn.json", ".json", ".webnn"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && !strncmp(base + n - k, suffixes[i], k)) {
            n -= k;
            break;
        }
    }
    snprintf(out, len, "%.*s%s%s", (int)n, base, fuse ? " fuse=" : "", fuse ? fuse : "");
}

static void print_table(const char *la, const char *lb, const int *ha, const int *hb) {
    int w = (int)strlen(la) > (int)strlen(lb) ? (int)strlen(la) : (int)strlen(lb);
    if (w < 8) w = 8;
    printf("%-24s %*s %*s %8s\n", "op", w, la, w, lb, "delta");
    int ta = 0, tb = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        if (!ha[op] && !hb[op]) continue;
        printf("%-24s %*d %*d %+8d\n", op_name((OpId)op), w, ha[op], w, hb[op], hb[op] - ha[op]);
        ta += ha[op], tb += hb[op];
    }
    printf("%-24s %*d %*d %+8d\n", "total", w, ta, w, tb, tb - ta);
}

static void json_table(cJSON *r, const char *const *paths, const char *const *labels, const int *ha, const int *hb) {
    int total[2] = {0, 0};
    cJSON *ops = report_add_array(r, "ops");
    for (int op = 0; op < OP_COUNT; op++) {
        if (!ha[op] && !hb[op]) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(ops, o);
        cJSON_AddStringToObject(o, "op", op_name((OpId)op));
        cJSON_AddNumberToObject(o, "a", ha[op]);
        cJSON_AddNumberToObject(o, "b", hb[op]);
        cJSON_AddNumberToObject(o, "delta", hb[op] - ha[op]);
        total[0] += ha[op], total[1] += hb[op];
    }
    for (int k = 0; k < 2; k++) {
        cJSON *g = report_add_object(r, k ? "b" : "a");
        cJSON_AddStringToObject(g, "path", paths[k]);
        cJSON_AddStringToObject(g, "label", labels[k]);
        cJSON_AddNumberToObject(g, "nodes", total[k]);
    }
    cJSON_AddNumberToObject(r, "delta", total[1] - total[0]);
}

/* Loads one side, applies the passes and fills hist[OP_COUNT]; 0 or an exit code. */
static int side(const char *path, const char *fuse, const DimSettingList *fix, const DimSettingList *dim, int *hist) {
    diag_set_file(path);
    int code;
    Graph *g = convert_graph_load_fused(path, fuse, fix, dim, &code);
    if (!g) return cli_fail(path, code);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->op < OP_COUNT) hist[g->nodes[i]->op]++;
    graph_free(g);
    return 0;
}

int cmd_diff(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 2, 2, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    static DimSettingList fix, dim;
    if (args_dim_settings(self, &r, "fix", &fix) < 0 || args_dim_settings(self, &r, "dim", &dim) < 0)
        return WN_EXIT_BAD_INPUT;
    const ArgValues *fv = args_values(&r, "fuse");
    if (fv && fv->count > 2) return cli_usage_error(self, "--fuse is given at most twice (A, then B)");
    const char *fa = fv && fv->count ? fv->values[0] : NULL, *fb = fv && fv->count ? fv->values[fv->count - 1] : NULL;
    static int ha[OP_COUNT], hb[OP_COUNT];
    cJSON *report = args_count(&r, "json") ? report_new(self->name) : NULL;
    if ((rc = side(r.pos[0], fa, &fix, &dim, ha)) != 0 || (rc = side(r.pos[1], fb, &fix, &dim, hb)) != 0)
        return report ? report_end(report, rc) : rc;
    char la[300], lb[300];
    label(r.pos[0], fa, la, sizeof la);
    label(r.pos[1], fb, lb, sizeof lb);
    if (!strcmp(la, lb)) { /* same name and fusions: say which is which */
        strcat(la, " (A)");
        strcat(lb, " (B)");
    }
    if (report) {
        const char *paths[2] = {r.pos[0], r.pos[1]}, *labels[2] = {la, lb};
        json_table(report, paths, labels, ha, hb);
        return report_end(report, WN_EXIT_OK);
    }
    print_table(la, lb, ha, hb);
    return WN_EXIT_OK;
}
