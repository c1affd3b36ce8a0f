/* cmd_pack.c - `webnnc pack GRAPH -o OUTDIR`: a webnn-graph whose weights are inline (one .json or
 * .webnn file, e.g. from `webnnc unpack` or another tool) or external, written as an output folder
 * with external weights (model.webnn.json, model.weights, manifest.json; the --text and
 * --contiguous-weights of convert), as webnn-graph's extract-weights + pack-weights do.  The
 * written folder is re-read and checked as `webnnc validate` does (extension ops allowed). */
#include <stdio.h>

#include "args.h"
#include "core.h"
#include "convert.h"
#include "webnn.h"

static const ArgSpec specs[] = {
    {"out", 'o', ARG_VALUE, "OUTDIR", "output folder (written through a temporary folder, then renamed)"},
    {"text", 0, ARG_FLAG, NULL, "also write OUTDIR/model.webnn (text form)"},
    {"contiguous-weights", 0, ARG_FLAG, NULL, "tensors back to back in model.weights (webnn-graph pack-weights layout)"},
};

static int check_written(const char *tmpdir, void *ctx) {
    char summary[512];
    return convert_validate_graph_files(tmpdir, VALIDATE_TRUST_WEIGHT_HASHES | VALIDATE_ALLOW_EXTENSION_OPS, summary,
                                sizeof summary) == WN_EXIT_OK ? 0 : -1;
}

int cmd_pack(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *path = r.pos[0], *outdir = args_value(&r, "out");
    if (!outdir) return cli_usage_error(self, "missing -o OUTDIR");
    diag_set_file(path);
    Graph *g = webnn_read(path);
    if (!g) return cli_fail(path, WN_EXIT_BAD_INPUT);
    WebnnWriteOptions wopt = {.text = args_count(&r, "text") > 0,
                              .contiguous_weights = args_count(&r, "contiguous-weights") > 0,
                              .check = check_written};
    diag_set_file(outdir);
    rc = webnn_write(g, outdir, &wopt);
    graph_free(g);
    if (rc) return cli_fail(outdir, WN_EXIT_BAD_INPUT);
    printf("packed %s -> %s (model.webnn.json, %s, %s)\n", path, outdir, WN_WEIGHTS_FILE, WN_MANIFEST_FILE);
    return WN_EXIT_OK;
}
