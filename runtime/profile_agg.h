/* profile_agg.h - sums of profiled steps (webnnc_profile.h) per phase of a generation (prefill,
 * decode) or of one run: per node and per op type calls and GPU time, host phase times, wall time.
 * Used by `webnnc profile` and `webnnc run --profile` (cli/profile_print.c). */
#ifndef WEBNNC_PROFILE_AGG_H
#define WEBNNC_PROFILE_AGG_H

#include "core.h"
#include "webnnc_profile.h"

typedef struct {
    int key;         /* node index (by node) or OpId (by op type) */
    int calls;       /* dispatches */
    double total_ns; /* their GPU time (0 without timestamps) */
} ProfRow;

typedef struct {
    const char *name; /* "prefill", "decode", "run" */
    const Graph *g;
    int steps, runs, recordings, dispatches, plan_dispatches;
    bool gpu_timed;   /* every step added had GPU times */
    double wall_ns;   /* summed step wall times */
    double gpu_ns;    /* summed dispatch times */
    double host_ns[WNRT_PROF_NPHASES];
    int *node_calls;  /* per node index */
    double *node_ns;
    int op_calls[OP_COUNT];
    double op_ns[OP_COUNT];
} ProfAgg;

/* 0, or -1 with a diagnostic (out of memory). */
int wnrt_prof_agg_init(ProfAgg *a, const char *name, const Graph *g);
void wnrt_prof_agg_free(ProfAgg *a);
/* Adds one step measured in wall_ns.  -1 with a diagnostic when a dispatch names no node of g. */
int wnrt_prof_agg_add(ProfAgg *a, const WnrtProfStep *s, double wall_ns);
/* Rows with calls, by node (by_node) or op type, largest time first (then most calls, then key);
 * returns the count, *rows malloc'ed (caller frees), or -1 with a diagnostic. */
int wnrt_prof_agg_rows(const ProfAgg *a, bool by_node, ProfRow **rows);
/* Host phases summed. */
double wnrt_prof_agg_host_ns(const ProfAgg *a);

#endif
