/* pass.h - the pass pipeline over the IR.  Each pass lives in its own file under passes/ and is
 * listed once in passes.def (X-macro).  A pass returns 0, or -1 with a diagnostic. */
#ifndef WEBNNC_PASS_H
#define WEBNNC_PASS_H

#include "core.h"

typedef struct {
    int verbose; /* print per-pass node counts to stderr */
    int64_t kv_capacity; /* KV-cache capacity C for kv_cache (0: the total_sequence_length bound) */
    int keep_quantized; /* fold_constants keeps dequantizeLinear of 4-bit weights (conversion) */
    const struct ImplLimits *limits; /* legalize_limits: the target WebNN implementation (NULL: skip) */
} PassOptions;

typedef int (*PassFn)(Graph *g, const PassOptions *opt);

typedef struct {
    const char *name;
    PassFn run;
    const char *summary;
} Pass;

/* Looks a pass up by name; NULL if unknown. */
const Pass *pass_find(const char *name);
/* Runs passes in order; in debug builds (WEBNNC_VERIFY_EACH_PASS) verifies the graph after each. */
int pass_run_list(Graph *g, const char *const *names, int count, const PassOptions *opt);

#endif
