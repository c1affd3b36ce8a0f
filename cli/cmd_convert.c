/* cmd_convert.c - `webnnc convert INPUT -o OUTDIR`: load ONNX (with genai_config.json beside it,
 * default dim settings: batch_size fixed to 1, kv_cache_dim to the head size, sequence dims bounded
 * by the max length; the user's --fix/--dim win) -> import -> passes (decompositions, fold_constants,
 * identity, dce) -> verify (spec ops, exportable dims) -> write webnn-graph files -> re-read and
 * validate the written files (as `webnnc validate`), copy the model folder's genai_config.json and
 * tokenizer files beside them; prints a one-line summary.  The work is lib/convert (convert_onnx,
 * convert_write), shared with `webnnc generate` and the library API. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "convert.h"
#include "core.h"
#include "webnn.h"
#include "report.h"
#include "summary.h"

static const ArgSpec specs[] = {
    {"out", 'o', ARG_VALUE, "OUTDIR", "output folder (written through a temporary folder, then renamed)"},
    {"fix", 0, ARG_LIST, "NAME=N", "freeze symbolic dimension NAME to the static size N (overrides genai_config defaults)"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "keep NAME dynamic with upper bound MAX (overrides defaults; with genai_config.json: "
                                     "batch_size=1 fixed, kv_cache_dim=head_size fixed, *sequence_length<=max_length)"},
    {"text", 0, ARG_FLAG, NULL, "also write OUTDIR/model.webnn (text form)"},
    {"contiguous-weights", 0, ARG_FLAG, NULL, "tensors back to back in model.weights (no 64-byte alignment), "
                                              "the layout webnn-graph's pack-weights requires"},
    {"verbose", 'v', ARG_FLAG, NULL, "print stage timings and per-pass node counts to stderr"},
    {"fuse", 0, ARG_VALUE, "all|none|LIST", "fuse into extension ops after the decompositions (default none: spec ops only); LIST = comma-separated patterns"},
    {"limits", 0, ARG_VALUE, "FILE|chromium|none", "legalize the spec-op output for a WebNN implementation's opSupportLimits() JSON "
                                                  "(+ FILE-stem.notes.json); default chromium: the built-in Chromium 153 limits; none: as read"},
    ARG_SPEC_JSON,
};

/* Whether path exists (an earlier output folder convert replaces, or something it refuses to). */
static bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
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
    if (convert_dim_options(self, &r, &fix, &dim) < 0) return WN_EXIT_BAD_INPUT;
    int verbose = args_count(&r, "verbose");
    unsigned fuse_mask;
    if (args_fuse(&r, &fuse_mask) < 0) return WN_EXIT_BAD_INPUT;
    cJSON *report = args_count(&r, "json") ? report_new(self->name) : NULL;
    if (report) {
        cJSON_AddStringToObject(report, "input", input);
        cJSON_AddStringToObject(report, "outdir", outdir);
    }

    const char *limits_spec = args_value(&r, "limits");
    ImplLimits *limits = NULL;
    if (fuse_mask && limits_spec && strcmp(limits_spec, "none"))
        return cli_usage_error(self, "--limits applies to the spec-op output: the --fuse output is webnnc's own");
    if (!fuse_mask && !(limits_spec && !strcmp(limits_spec, "none")) && !(limits = wn_impl_limits_load(limits_spec)))
        return report_fail(report, limits_spec ? limits_spec : "chromium", WN_EXIT_BAD_INPUT);
    if (report) cJSON_AddStringToObject(report, "limits", limits ? limits->src : "none");

    double t0 = convert_now_s(), t = t0;
    diag_set_file(input);
    size_t onnx_nodes = 0;
    ConvertOptions copt = {&fix, &dim, fuse_mask, verbose, limits};
    Graph *g = convert_onnx(input, &copt, &onnx_nodes, &rc);
    wn_impl_limits_free(limits);
    if (!g) return report_fail(report, input, rc);
    t = convert_now_s();

    ConvertWriteOptions wopt = {.text = args_count(&r, "text") > 0,
                                .contiguous_weights = args_count(&r, "contiguous-weights") > 0,
                                .extension_ops = fuse_mask != 0};
    diag_set_file(outdir);
    bool replaced = exists(outdir);
    if ((rc = convert_write(g, input, outdir, &wopt)) != WN_EXIT_OK) {
        graph_free(g);
        return report_fail(report, outdir, rc);
    }
    t = convert_stage_done(verbose, "write and validate", t);

    uint64_t weights = summary_add_graph_constants(NULL, g);
    int nodes = graph_node_count(g);
    graph_free(g);
    convert_stage_done(verbose, "total", t0);
    if (report) {
        cJSON_AddNumberToObject(report, "onnxNodes", (double)onnx_nodes);
        cJSON_AddNumberToObject(report, "webnnNodes", nodes);
        cJSON_AddNumberToObject(report, "weightsBytes", (double)weights);
        cJSON_AddBoolToObject(report, "replaced", replaced);
        cJSON_AddNumberToObject(report, "seconds", convert_now_s() - t0);
        return report_end(report, WN_EXIT_OK);
    }
    char size[32];
    printf("converted %s: %zu ONNX nodes -> %d WebNN nodes, %s weights -> %s%s\n", base_name(input), onnx_nodes, nodes,
           format_bytes(weights, size, sizeof size), outdir, replaced ? " (replaced the previous output there)" : "");
    return WN_EXIT_OK;
}
