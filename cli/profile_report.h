/* profile_report.h - what `webnnc profile` and `webnnc run --profile` print (profile_report.c):
 * per phase (prefill / decode, or run) tables by op type and by node (calls, total us, mean us,
 * us per step, % of the step's wall time; with the nodes a plan-level rewrite absorbed into each),
 * the host split, wall and GPU time; the same as one JSON object; and a Chrome trace
 * (profile_trace.c) with a host track and a GPU track. */
#ifndef WEBNNC_CLI_PROFILE_REPORT_H
#define WEBNNC_CLI_PROFILE_REPORT_H

#include <stdio.h>

#include "webnnc_runtime.h"
#include "webnn.h"

#define PROF_MAX_PHASES 2

typedef struct {
    const char *model;  /* path as given */
    const char *device; /* device name */
    const char *fuse;   /* --fuse value (NULL: none) */
    const char *no_gpu; /* why there are no GPU times (NULL: timestamps) */
    int prompt_tokens, new_tokens; /* 0 for run */
    double load_ms;
} ProfInfo;

typedef struct {
    const Graph *g;
    ProfAgg phase[PROF_MAX_PHASES];
    int n_phase;
    TextBuf steps;   /* JSON objects of the steps, comma-separated */
    int n_steps;
    bool trace;      /* collect trace events */
    TextBuf events;  /* trace events, comma-separated */
    double origin_ns; /* trace time 0: the first step's begin */
    int *absorbed_into; /* per node index: the node whose dispatches do its work (-1: none; NULL: not known) */
    const char **rewrite_label; /* per node index: wnrt_node_rewrite_label (NULL: none or not known) */
} ProfReport;

/* 0, or -1 with a diagnostic. */
int prof_report_init(ProfReport *r, const Graph *g, const char *const *phase_names, int n_phase, bool trace);
void prof_report_free(ProfReport *r);
/* Notes which nodes the loaded model's plan absorbed into others (wnrt_node_absorbed_into): the
 * node tables then list them with the node that does their work.  0, or -1 out of memory. */
int prof_report_model(ProfReport *r, const WnrtModel *m);
/* Adds a step of phase `phase` that ran from begin_ns to end_ns (wnrt_profile_now_ns clock). */
int prof_report_step(ProfReport *r, int phase, const WnrtProfStep *s, double begin_ns, double end_ns);
void prof_report_print(const ProfReport *r, const ProfInfo *info, FILE *f);
void prof_report_json(const ProfReport *r, const ProfInfo *info, FILE *f);

/* profile_trace.c: appends the step's trace events; writes the trace file atomically. */
void prof_trace_step(ProfReport *r, int phase, int step, const WnrtProfStep *s, double begin_ns, double end_ns);
int prof_trace_write(const ProfReport *r, const ProfInfo *info, const char *path);

#endif
