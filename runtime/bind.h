/* bind.h - dynamic-dimension resolution for a run (bind.c). */
#ifndef WEBNNC_BIND_H
#define WEBNNC_BIND_H

#include "rt_model.h"

/* Fills m->sym from the bound inputs; checks consistency.  0 or -1 with a diagnostic. */
int wnrt_bind_resolve_symbols(WnrtModel *m);
/* Actual shape of every value for m->sym; checks each against its upper bound. */
int wnrt_bind_eval_shapes(WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK]);

/* The inputs' bound flags and shapes, kept while work that sets its own (the warm-up's captures, the
 * device loop's recording at load) runs, and put back after it. */
typedef struct {
    bool *bound;
    int64_t (*shape)[WN_MAX_RANK];
} InputSnapshot;
/* 0, or -1 with a diagnostic (out of memory). */
int wnrt_bind_save(const WnrtModel *m, InputSnapshot *s);
/* Restores m's inputs from s and frees s. */
void wnrt_bind_restore(WnrtModel *m, InputSnapshot *s);

#endif
