/* convert_pipeline.h - ONNX model -> checked webnn graph in memory, the pipeline of `webnnc
 * convert` shared with `webnnc generate` (convert_pipeline.c). */
#ifndef WEBNNC_CLI_CONVERT_PIPELINE_H
#define WEBNNC_CLI_CONVERT_PIPELINE_H

#include <stddef.h>

#include "args.h"
#include "ir.h"

typedef struct {
    DimSettingList *fix, *dim; /* the user's settings; GenAI defaults are added to them */
    unsigned fuse_mask;        /* fuse_parse(); 0: spec ops only */
    int verbose;               /* stage timings and per-pass node counts on stderr */
    const struct ImplLimits *limits; /* target WebNN limits for the spec-op output (legalize_limits); NULL: none */
} ConvertOptions;

/* A name given to both --fix and --dim, or NULL. */
const char *convert_dim_conflict(const DimSettingList *fix, const DimSettingList *dim);
/* Parses --fix NAME=N and --dim NAME=MAX (no NAME in both).  Returns 0, or -1 after printing a
 * usage error. */
int convert_dim_options(const CliCommand *cmd, const ArgResult *r, DimSettingList *fix, DimSettingList *dim);

/* A webnn-graph (file or output folder) read, the KV-cache scatters a target legalization rewrote
 * restored (pass restore_scatter), and fused with the patterns of fuse_mask, as a WebNN
 * implementation would (run, generate).  NULL with a diagnostic. */
Graph *read_webnn_fused(const char *path, unsigned fuse_mask);

/* Monotonic seconds; stage_done prints "webnnc: STAGE  0.123 s" when verbose and returns now. */
double cli_now_s(void);
double cli_stage_done(int verbose, const char *stage, double since);

/* Loads INPUT (file or folder, genai_config.json beside it: batch_size fixed to 1, kv_cache_dim to
 * the head size, sequence dims bounded by the max length; the user's --fix/--dim win), imports it,
 * runs the passes (compound dims, KV cache at the max length, decompositions, the fusions of
 * fuse_mask, folding, identity, DCE; without fusions, legalization for opt->limits) and verifies the result (spec ops unless fused, exportable
 * dims).  Returns the graph and *onnx_nodes, or NULL with a diagnostic and *exit_code
 * (WN_EXIT_BAD_INPUT, or WN_EXIT_CHECK_FAILED when verification fails). */
Graph *convert_onnx(const char *input, const ConvertOptions *opt, size_t *onnx_nodes, int *exit_code);

#endif
