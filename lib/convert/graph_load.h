/* graph_load.h - loads any model input (of the CLI and the library API) into the IR: an ONNX model (file or folder,
 * imported) or a webnn-graph (file or output folder, read), for the commands that compare graphs
 * (ladder, diff, view); the spec-only baseline those commands fuse; and that baseline fused. */
#ifndef WEBNNC_GRAPH_LOAD_H
#define WEBNNC_GRAPH_LOAD_H

#include "convert_pipeline.h"
#include "onnx.h"

/* Returns the graph (NULL with a diagnostic); *origin_nodes gets the ONNX node count (the graph's
 * node count for a webnn-graph). */
Graph *convert_graph_load_any(const char *path, const ImportOptions *iopt, int *origin_nodes);

/* The spec-only baseline of PATH, exactly as `webnnc convert` without --fuse builds it for an ONNX
 * model (convert_onnx: genai_config defaults added to fix/dim, compound dims, KV cache,
 * decompositions, folding); a webnn-graph is read and every extension op in it decomposed
 * (PIPE_GRAPH_BASELINE).  *origin_nodes as convert_graph_load_any.  NULL with a diagnostic and *exit_code. */
Graph *convert_graph_load_baseline(const char *path, DimSettingList *fix, DimSettingList *dim, int verbose, int *origin_nodes,
                           int *exit_code);

/* PATH as `webnnc diff` and `webnnc view` take it: an ONNX model becomes its spec-only baseline
 * (convert_graph_load_baseline, with its own copies of fix/dim), a webnn-graph is read as it is; then the
 * fusions of `fuse` (all|none|LIST, NULL for none) and the tidy-up passes convert runs after them.
 * NULL with a diagnostic and *exit_code. */
Graph *convert_graph_load_fused(const char *path, const char *fuse, const DimSettingList *fix, const DimSettingList *dim,
                        int *exit_code);

#endif
