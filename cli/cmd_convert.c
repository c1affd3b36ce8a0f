/* cmd_convert.c - `webnnc convert INPUT -o OUTDIR`: load ONNX (with genai_config.json beside it,
 * default dim settings: batch_size fixed to 1, kv_cache_dim to the head size, sequence dims bounded
 * by the max length; the user's --fix/--dim win) -> import -> passes (decompositions, fold_constants,
 * identity, dce) -> verify (spec ops, exportable dims) -> write webnn-graph files -> re-read and
 * validate the written files (as `webnnc validate`); prints a one-line summary. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "diag.h"
#include "fuse_plan.h"
#include "genai_config.h"
#include "onnx_import.h"
#include "pass.h"
#include "summary.h"
#include "validate.h"
#include "webnn_io.h"

static const ArgSpec specs[] = {
    {"out", 'o', ARG_VALUE, "OUTDIR", "output folder (written through a temporary folder, then renamed)"},
    {"fix", 0, ARG_LIST, "NAME=N", "freeze symbolic dimension NAME to the static size N (overrides genai_config defaults)"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "keep NAME dynamic with upper bound MAX (overrides defaults; with genai_config.json: "
                                     "batch_size=1 fixed, kv_cache_dim=head_size fixed, *sequence_length<=max_length)"},
    {"text", 0, ARG_FLAG, NULL, "also write OUTDIR/model.webnn (text form)"},
    {"verbose", 'v', ARG_FLAG, NULL, "print stage timings and per-pass node counts to stderr"},
    {"fuse", 0, ARG_VALUE, "all|none|LIST", "fuse into extension ops after the decompositions (default none: spec ops only); LIST = comma-separated patterns"},
};

/* Pass order; passes not (yet) in passes.def are skipped. */
static const char *const pipeline[] = {"compound_dims", "kv_cache", "decompose_matmul_nbits", "decompose_rms_norm", "decompose_rotary",
                                       "decompose_gather_block_quantized", "decompose_quick_gelu", "decompose_gqa",
                                       "fold_constants", "identity", "dce"};

/* GenAI defaults (genai_config.h) added to the user's settings; the max length goes to *kv_capacity. */
static int genai_defaults(const OnnxModel *m, DimSettingList *fix, DimSettingList *dim, int64_t *kv_capacity) {
    if (!m->genai_config_path) return 0;
    GenaiConfig cfg;
    if (genai_config_read(m->genai_config_path, &cfg) < 0) return -1;
    int nf = fix->count, nd = dim->count;
    genai_default_dims(&cfg, fix->items, fix->count, dim->items, dim->count, fix->items, &nf, dim->items, &nd,
                       ARGS_MAX_VALUES);
    fix->count = nf;
    dim->count = nd;
    *kv_capacity = cfg.max_length;
    for (int i = 0; i < dim->count; i++) /* the user's bound on the total length caps the cache */
        if (!strcmp(dim->items[i].name, "total_sequence_length")) *kv_capacity = dim->items[i].value;
    return 0;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Prints "  STAGE  0.123 s" to stderr when verbose; returns the new reference time. */
static double stage_done(int verbose, const char *stage, double since) {
    double t = now_s();
    if (verbose) fprintf(stderr, "webnnc: %-16s %8.3f s\n", stage, t - since);
    return t;
}

static const char *base_name(const char *path) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--; /* "dir/" -> "dir" */
    const char *end = path + n, *p = end;
    while (p > path && p[-1] != '/') p--;
    static char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)(end - p), p);
    return buf;
}

int cmd_convert(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *input = r.pos[0], *outdir = args_value(&r, "out");
    if (!outdir) return cli_usage_error(self, "missing -o OUTDIR");
    static DimSettingList fix, dim;
    if (args_dim_settings(self, &r, "fix", &fix) < 0 || args_dim_settings(self, &r, "dim", &dim) < 0)
        return WN_EXIT_BAD_INPUT;
    for (int i = 0; i < fix.count; i++)
        for (int j = 0; j < dim.count; j++)
            if (strcmp(fix.items[i].name, dim.items[j].name) == 0)
                return cli_usage_error(self, "%s is given to both --fix and --dim", fix.items[i].name);
    int verbose = args_count(&r, "verbose");
    unsigned fuse_mask;
    if (fuse_parse(args_value(&r, "fuse"), &fuse_mask) < 0) return cli_fail(NULL, WN_EXIT_BAD_INPUT);

    double t0 = now_s(), t = t0;
    diag_set_file(input);
    OnnxModel *m = onnx_model_load(input);
    if (!m) return cli_fail(input, WN_EXIT_BAD_INPUT);
    size_t onnx_nodes = m->proto && m->proto->graph ? m->proto->graph->n_node : 0;
    t = stage_done(verbose, "load", t);

    int64_t kv_capacity = 0;
    if (genai_defaults(m, &fix, &dim, &kv_capacity) < 0) {
        onnx_model_free(m);
        return cli_fail(input, WN_EXIT_BAD_INPUT);
    }
    ImportOptions iopt = {fix.items, fix.count, dim.items, dim.count};
    Graph *g = onnx_import(m, &iopt);
    if (!g) {
        onnx_model_free(m);
        return cli_fail(input, WN_EXIT_BAD_INPUT);
    }
    t = stage_done(verbose, "import", t);

    PassOptions popt = {.verbose = verbose, .kv_capacity = kv_capacity};
    const char *run[sizeof pipeline / sizeof pipeline[0]];
    int n_run = 0;
    int n_decompose = 0; /* the passes before fold_constants; --fuse runs after them (before folding) */
    for (size_t i = 0; i < sizeof pipeline / sizeof pipeline[0]; i++) {
        if (strcmp(pipeline[i], "fold_constants") == 0) n_decompose = n_run;
        if (pass_find(pipeline[i])) run[n_run++] = pipeline[i];
    }
    static const char *const tidy[] = {"identity", "dce"};
    if (pass_run_list(g, run, n_decompose, &popt) != 0 || (fuse_mask && pass_run_list(g, tidy, 2, &popt) != 0) ||
        fuse_run(g, fuse_mask, &popt) != 0 || pass_run_list(g, run + n_decompose, n_run - n_decompose, &popt) != 0) {
        graph_free(g);
        return cli_fail(input, WN_EXIT_BAD_INPUT);
    }
    t = stage_done(verbose, "passes", t);
    if (graph_verify(g, (fuse_mask ? 0 : VERIFY_SPEC_ONLY) | VERIFY_EXPORTABLE) != 0) {
        graph_free(g);
        return cli_fail(input, WN_EXIT_CHECK_FAILED);
    }
    t = stage_done(verbose, "verify", t);

    WebnnWriteOptions wopt = {args_count(&r, "text") > 0};
    diag_set_file(outdir);
    if (webnn_write(g, outdir, &wopt) != 0) {
        graph_free(g);
        return cli_fail(outdir, WN_EXIT_BAD_INPUT);
    }
    t = stage_done(verbose, "write", t);
    char checked[512];
    /* the re-read check is spec-only; --fuse output holds extension ops (verified above) */
    rc = fuse_mask ? WN_EXIT_OK : validate_graph_files(outdir, checked, sizeof checked);
    if (rc != WN_EXIT_OK) {
        graph_free(g);
        return cli_fail(outdir, WN_EXIT_CHECK_FAILED);
    }
    t = stage_done(verbose, "validate", t);

    char size[32];
    printf("converted %s: %zu ONNX nodes -> %d WebNN nodes, %s weights -> %s\n", base_name(input), onnx_nodes,
           graph_node_count(g), format_bytes(summary_add_graph_constants(NULL, g), size, sizeof size), outdir);
    graph_free(g);
    stage_done(verbose, "total", t0);
    return WN_EXIT_OK;
}
