/* cmd_diff.c - `webnnc diff A B`: op histograms of two graphs side by side with deltas (B - A).
 * An ONNX input becomes its spec-only baseline exactly as `webnnc convert` builds it (genai_config
 * defaults, KV cache, decompositions, folding); a webnn-graph is read as it is.  --fuse then fuses
 * it (fuse_plan.h) and tidies up as convert does, so `webnnc diff M M --fuse none --fuse all` shows
 * what fusion recovers. */
#include <stdio.h>

#include "args.h"
#include "diag.h"
#include "fuse_plan.h"
#include "graph_load.h"
#include "input_kind.h"

static const ArgSpec specs[] = {
    {"fuse", 0, ARG_LIST, "all|none|LIST", "fusions for each ONNX input (given once: both; twice: A then B)"},
    {"fix", 0, ARG_LIST, "NAME=N", "freeze symbolic dimension NAME to the static size N when importing ONNX"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "keep symbolic dimension NAME dynamic with upper bound MAX when importing ONNX"},
};

/* Loads one side, applies the passes and fills hist[OP_COUNT]; 0 or an exit code. */
static int side(const char *path, const char *fuse, const DimSettingList *fix, const DimSettingList *dim, int *hist) {
    diag_set_file(path);
    int origin, code = WN_EXIT_BAD_INPUT;
    unsigned mask = 0;
    if (fuse && fuse_parse(fuse, &mask) < 0) return cli_fail(NULL, WN_EXIT_BAD_INPUT);
    Graph *g;
    if (input_kind(path) == INPUT_ONNX) {
        DimSettingList f = *fix, d = *dim; /* each side gets its own GenAI defaults */
        g = graph_load_baseline(path, &f, &d, 0, &origin, &code);
    } else {
        ImportOptions none = {0};
        g = graph_load_any(path, &none, &origin);
    }
    if (!g) return cli_fail(path, code);
    static const char *const tidy[] = {"fold_constants", "identity", "dce"};
    PassOptions popt = {.keep_quantized = 1};
    int rc = mask ? fuse_run(g, mask, &popt) : 0;
    if (rc == 0 && mask) rc = pass_run_list(g, tidy, 3, &popt);
    if (rc < 0) {
        graph_free(g);
        return cli_fail(path, WN_EXIT_BAD_INPUT);
    }
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
    if ((rc = side(r.pos[0], fa, &fix, &dim, ha)) != 0 || (rc = side(r.pos[1], fb, &fix, &dim, hb)) != 0) return rc;
    printf("%-24s %8s %8s %8s\n", "op", "A", "B", "delta");
    int ta = 0, tb = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        if (!ha[op] && !hb[op]) continue;
        printf("%-24s %8d %8d %+8d\n", op_name((OpId)op), ha[op], hb[op], hb[op] - ha[op]);
        ta += ha[op], tb += hb[op];
    }
    printf("%-24s %8d %8d %+8d\n", "total", ta, tb, tb - ta);
    return WN_EXIT_OK;
}
