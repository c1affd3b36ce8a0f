/* webnnc_profile.h - profiling of runs (runtime/profile.c): GPU time of every dispatch from
 * timestamp queries written around it, and host time split into phases.
 *
 *   const char *why = NULL;
 *   int gpu = wnrt_profile_enable(m, &why);   // before the first run: 1 GPU timestamps, 0 host
 *                                             // times only (*why says why), -1 error
 *   ... wnrt_bind_input / wnrt_run / wnrt_read_output ...
 *   WnrtProfStep s; wnrt_profile_take(m, &s); // what the runs since the last take measured
 *
 * GPU timing needs timestamps on the compute queue (timestampValidBits, timestampComputeAndGraphics
 * or a compute queue family with timestamps, timestampPeriod > 0); WEBNNC_NO_TIMESTAMPS=1 forces the
 * host-only path.  Timestamps drain the pipeline around each dispatch, so dispatches that the plain
 * runtime overlaps run one after another while profiling.  Host phases: shape binding
 * (wnrt_bind_input, dynamic-dim resolution), recording (shape evaluation and command recording,
 * zero on a replay), submit, wait (the fence) and read-back (wnrt_read_output). */
#ifndef WEBNNC_PROFILE_H
#define WEBNNC_PROFILE_H

#include <stdbool.h>

#include "webnnc_runtime.h"

/* X(ID, json key, label) */
#define WNRT_PROF_PHASES(X)                                                                                            \
    X(BIND, "bind", "shape binding")                                                                                   \
    X(RECORD, "record", "recording")                                                                                   \
    X(SUBMIT, "submit", "submit")                                                                                      \
    X(WAIT, "wait", "wait")                                                                                            \
    X(READBACK, "readback", "read-back")

typedef enum {
#define X(ID, KEY, LABEL) WNRT_PROF_##ID,
    WNRT_PROF_PHASES(X)
#undef X
    WNRT_PROF_NPHASES,
    WNRT_PROF_IDLE = WNRT_PROF_NPHASES /* no phase open */
} WnrtProfPhase;

extern const char *const wnrt_prof_phase_key[WNRT_PROF_NPHASES];
extern const char *const wnrt_prof_phase_label[WNRT_PROF_NPHASES];

/* One host phase interval (wnrt_profile_now_ns clock). */
typedef struct {
    int phase;
    double begin_ns, end_ns;
} WnrtProfSpan;

/* One dispatch: its node (Graph.nodes index) and GPU interval on the host clock (the run's last
 * dispatch placed at the end of the wait, or its first at the begin of the submit when later);
 * -1, -1 without GPU timestamps. */
typedef struct {
    int node;
    double begin_ns, end_ns;
} WnrtProfDispatch;

typedef struct {
    bool gpu_timed;                       /* dispatch times are valid */
    double host_ns[WNRT_PROF_NPHASES];    /* per phase, summed over the spans */
    int n_spans, n_dispatches;
    const WnrtProfSpan *spans;            /* valid until the next run or take */
    const WnrtProfDispatch *dispatches;   /* in submission order */
    int runs, recordings;                 /* wnrt_run calls, of which recorded a command buffer */
    int plan_dispatches;                  /* node dispatches the run recordings hold (summed over runs; not
                                           * the graph input / output copies, which are not timed) */
} WnrtProfStep;

/* Turns profiling on (call before the first run).  1: GPU timestamps; 0: host times only, *why
 * (static text) says why; -1 with a diagnostic. */
int wnrt_profile_enable(WnrtModel *m, const char **why);
/* What was measured since the last take (or enable); starts the next step.  0, or -1 with a
 * diagnostic when profiling is off. */
int wnrt_profile_take(WnrtModel *m, WnrtProfStep *out);
/* The profiler's clock (CLOCK_MONOTONIC) in nanoseconds. */
double wnrt_profile_now_ns(void);

#endif
