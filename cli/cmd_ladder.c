/* cmd_ladder.c - `webnnc ladder MODEL [--json]`: the fusion ladder of one model.  One row per stage:
 * Origin (ONNX nodes, or the graph's nodes for a webnn-graph), Baseline (the spec-only graph
 * `webnnc convert` emits, built by the same pipeline: genai_config defaults, compound dims, KV cache,
 * decompositions, folding), then cumulatively each fusion stage of pipeline_plan.c (+matmulNBits, +GQA,
 * +norms and rotary, +silu, +qkv and gatedMlp), each followed by convert's tidy-up (fold_constants,
 * identity, dce), with the node count and its percentage of the baseline.
 * --json prints {"rows": [{"stage": ..., "nodes": N}, ...]}. */
#include <stdio.h>

#include "args.h"
#include "convert.h"
#include "core.h"
#include "pipeline_plan.h"

static const ArgSpec specs[] = {
    {"json", 0, ARG_FLAG, NULL, "print {\"rows\": [{\"stage\": ..., \"nodes\": N}, ...]}"},
    {"fix", 0, ARG_LIST, "NAME=N", "freeze symbolic dimension NAME to the static size N (overrides genai_config defaults)"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "keep NAME dynamic with upper bound MAX (overrides genai_config defaults)"},
    {"verbose", 'v', ARG_FLAG, NULL, "print per-pass node counts to stderr"},
};

#define LADDER_ROWS 8

int cmd_ladder(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    static DimSettingList fix, dim;
    if (args_dim_settings(self, &r, "fix", &fix) < 0 || args_dim_settings(self, &r, "dim", &dim) < 0)
        return WN_EXIT_BAD_INPUT;
    const char *both = convert_dim_conflict(&fix, &dim);
    if (both) return cli_usage_error(self, "%s is given to both --fix and --dim", both);
    const char *input = r.pos[0];
    diag_set_file(input);
    int origin = 0, verbose = args_count(&r, "verbose");
    Graph *g = convert_graph_load_baseline(input, &fix, &dim, verbose, &origin, &rc);
    if (!g) return cli_fail(input, rc);
    const char *labels[LADDER_ROWS];
    int counts[LADDER_ROWS], rows = 0;
    PassOptions popt = {.verbose = verbose, .keep_quantized = 1};
    labels[rows] = "Origin", counts[rows++] = origin;
    labels[rows] = "Baseline", counts[rows++] = graph_node_count(g);
    for (int s = 0; s < fuse_stage_count && rows < LADDER_ROWS; s++) {
        /* every pattern up to this stage: a later stage's norms or rotaries can complete an earlier
         * stage's pattern (torch attention over per-token rotaries) */
        if (fuse_and_tidy(g, fuse_stage_mask(s), &popt) < 0) {
            graph_free(g);
            return cli_fail(input, WN_EXIT_BAD_INPUT);
        }
        labels[rows] = fuse_stage_labels[s], counts[rows++] = graph_node_count(g);
    }
    graph_free(g);
    if (args_count(&r, "json")) {
        printf("{\"rows\": [");
        for (int i = 0; i < rows; i++) printf("%s{\"stage\": \"%s\", \"nodes\": %d}", i ? ", " : "", labels[i], counts[i]);
        printf("]}\n");
        return WN_EXIT_OK;
    }
    printf("%-20s %8s %8s\n", "stage", "nodes", "%base");
    for (int i = 0; i < rows; i++)
        printf("%-20s %8d %7.1f%%\n", labels[i], counts[i], counts[1] ? 100.0 * counts[i] / counts[1] : 0.0);
    return WN_EXIT_OK;
}
