/* bind.h - dynamic-dimension resolution for a run (bind.c). */
#ifndef WEBNNC_BIND_H
#define WEBNNC_BIND_H

#include "rt_model.h"

/* Fills m->sym from the bound inputs; checks consistency.  0 or -1 with a diagnostic. */
int wnrt_bind_resolve_symbols(WnrtModel *m);
/* Actual shape of every value for m->sym; checks each against its upper bound. */
int wnrt_bind_eval_shapes(WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK]);

#endif
