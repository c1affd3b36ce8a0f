/* convert_pipeline.h - ONNX model -> checked webnn graph in memory, the pipeline of `webnnc
 * convert` shared with `webnnc generate` and the library API (convert_pipeline.c), and the write of
 * a converted graph with validation of the written files (convert_write.c). */
#ifndef WEBNNC_CONVERT_PIPELINE_H
#define WEBNNC_CONVERT_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core.h"
#include "onnx.h"

#define CONVERT_MAX_DIMS 64 /* --fix / --dim settings, each */

/* NAME=N settings (--fix, --dim) with the storage for their names. */
typedef struct {
    int count;
    DimSetting items[CONVERT_MAX_DIMS];
    char names[CONVERT_MAX_DIMS][128];
} DimSettingList;

typedef struct {
    DimSettingList *fix, *dim; /* the user's settings; GenAI defaults are added to them */
    unsigned fuse_mask;        /* fuse_parse(); 0: spec ops only */
    int verbose;               /* stage timings and per-pass node counts on stderr */
    const struct ImplLimits *limits; /* target WebNN limits for the spec-op output (legalize_limits); NULL: none */
} ConvertOptions;

/* A name given to both --fix and --dim, or NULL. */
const char *convert_dim_conflict(const DimSettingList *fix, const DimSettingList *dim);
/* A webnn-graph (file or output folder) read, the KV-cache scatters a target legalization rewrote
 * restored (pass restore_scatter), and fused with the patterns of fuse_mask, as a WebNN
 * implementation would (run, generate).  NULL with a diagnostic. */
Graph *convert_read_webnn_fused(const char *path, unsigned fuse_mask);

/* Monotonic seconds; stage_done prints "webnnc: STAGE  0.123 s" when verbose and returns now. */
double convert_now_s(void);
double convert_stage_done(int verbose, const char *stage, double since);

/* Loads INPUT (file or folder, genai_config.json beside it: batch_size fixed to 1, kv_cache_dim to
 * the head size, sequence dims bounded by the max length; the user's --fix/--dim win), imports it,
 * runs the passes (compound dims, KV cache at the max length, decompositions, the fusions of
 * fuse_mask, folding, identity, DCE; without fusions, legalization for opt->limits) and verifies the result (spec ops unless fused, exportable
 * dims).  Returns the graph and *onnx_nodes, or NULL with a diagnostic and *exit_code
 * (WN_EXIT_BAD_INPUT, or WN_EXIT_CHECK_FAILED when verification fails). */
Graph *convert_onnx(const char *input, const ConvertOptions *opt, size_t *onnx_nodes, int *exit_code);
/* The same from a loaded model (onnx_model_load), which it takes over (freed on failure, owned by
 * the graph on success). */
Graph *convert_onnx_model(OnnxModel *m, const ConvertOptions *opt, int *exit_code);

typedef struct {
    bool text;               /* also OUTDIR/model.webnn */
    bool contiguous_weights; /* no 64-byte alignment in model.weights */
    bool extension_ops;      /* a --fuse graph: validation accepts webnnc extension ops */
} ConvertWriteOptions;

/* Writes g to OUTDIR (through a temporary folder, renamed into place), re-reads and validates the
 * written files (convert_validate_graph_files) and copies the companion files of INPUT's folder
 * (genai_config.json, tokenizer files) beside them; a graph that fails leaves no output behind.
 * Returns WN_EXIT_OK, or WN_EXIT_BAD_INPUT / WN_EXIT_CHECK_FAILED (validation) with a diagnostic. */
int convert_write(Graph *g, const char *input, const char *outdir, const ConvertWriteOptions *opt);

#endif
