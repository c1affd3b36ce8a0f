/* fuse_plan.h - how the fusion passes are combined: the pattern table (name for `--fuse LIST`,
 * pass, ladder stage) in the order the passes must run, the spec-only baseline pipeline (fold,
 * decompose every extension op) and the parser/runner of `--fuse all|none|LIST`. */
#ifndef WEBNNC_FUSE_PLAN_H
#define WEBNNC_FUSE_PLAN_H

#include "pass.h"

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

/* Parses "all", "none" or a comma-separated list of pattern names into a mask over fuse_patterns
 * (bit i = pattern i).  0, or -1 with a diagnostic naming the unknown pattern. */
int fuse_parse(const char *spec, unsigned *mask);
/* Runs the passes of the patterns in `mask`, in table order, followed by dce.  0 or -1. */
int fuse_run(Graph *g, unsigned mask, const PassOptions *opt);
/* The spec-only baseline: kv_cache (static cache capacity, needed to decompose GQA), fold_constants, identity, dce, every decomposition, identity, dce. */
int fuse_baseline(Graph *g, const PassOptions *opt);

#endif
