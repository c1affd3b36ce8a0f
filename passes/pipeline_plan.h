/* pipeline_plan.h - THE pipeline table: every sequence of passes webnnc runs on a graph, in one place
 * (pipeline_plan.c).  A conversion is
 *   import -> PIPE_ONNX_BASELINE (or, for a read webnn-graph, PIPE_GRAPH_BASELINE)
 *          -> [--fuse: the fusion patterns of `mask` in table order, dce, then PIPE_TIDY]
 *          -> [spec-only with --limits: PIPE_LEGALIZE]
 * and convert, ladder, diff, view, run, generate, profile and the library all build their graphs
 * through these entry points (ladder: the patterns of each stage cumulatively); generate and profile
 * add PIPE_LAST_LOGITS, a run of a read webnn-graph on our runtime PIPE_RESTORE.  Every name must be
 * in passes.def: an unknown one is an error (pass_run_list). */
#ifndef WEBNNC_PIPELINE_PLAN_H
#define WEBNNC_PIPELINE_PLAN_H

#include "pass.h"

typedef enum {
    PIPE_ONNX_BASELINE,  /* an imported ONNX model -> the spec-only baseline */
    PIPE_GRAPH_BASELINE, /* a read webnn-graph (may hold extension ops) -> the spec-only baseline */
    PIPE_TIDY,           /* after fusion: fold, identity, dce */
    PIPE_LEGALIZE,       /* the spec-only graph fitted to implementation limits (PassOptions.limits) */
    PIPE_RESTORE,        /* a read webnn-graph for webnnc's runtime: scatter forms restored */
    PIPE_LAST_LOGITS,    /* generate/profile: the vocabulary head on the last row only */
    PIPE_COUNT
} Pipeline;

typedef struct {
    const char *name;  /* pattern name in --fuse LIST, e.g. "rmsNorm" */
    const char *pass;  /* pass name, e.g. "fuse_rms_norm" */
    int stage;         /* ladder stage (index into fuse_stage_labels) */
} FusePattern;

extern const FusePattern fuse_patterns[];
extern const int fuse_pattern_count;
/* Ladder stage labels after Origin and Baseline: "+matmulNBits", "+GQA", ... */
extern const char *const fuse_stage_labels[];
extern const int fuse_stage_count;

/* Runs pipeline p.  0, or -1 with a diagnostic. */
int pipeline_run(Graph *g, Pipeline p, const PassOptions *opt);
/* The pipeline's pass names (NULL-terminated), for reports and tests. */
const char *const *pipeline_passes(Pipeline p);

/* Parses "all", "none" or a comma-separated list of pattern names into a mask over fuse_patterns
 * (bit i = pattern i).  0, or -1 with a diagnostic naming the unknown pattern. */
int fuse_parse(const char *spec, unsigned *mask);
/* The mask of every pattern of ladder stages 0..stage (the ladder runs stages cumulatively). */
unsigned fuse_stage_mask(int stage);
/* Runs the passes of the patterns in `mask`, in table order, followed by dce (nothing for mask 0).
 * 0 or -1. */
int fuse_run(Graph *g, unsigned mask, const PassOptions *opt);
/* fuse_run, then PIPE_TIDY (nothing for mask 0): the fused graph as convert writes it. */
int fuse_and_tidy(Graph *g, unsigned mask, const PassOptions *opt);

#endif
