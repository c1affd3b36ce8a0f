/* warm.c - wnrt_warm (webnnc_runtime.h): the compute pipelines a graph's runs will use, created
 * before the first run.  Pipelines are otherwise made when a run first needs them (from the disk
 * cache where it has them), which a generation pays inside its time to first token.  For each
 * size asked for, the dispatch plan with every symbolic dimension at that size (clamped to its
 * bound; 0: the bound) is captured without a command buffer (wnrt_record_capture, as every replayed run
 * does), with the inputs' shapes set for the capture only; the bound inputs and their shapes are
 * restored.  Other sizes may choose other kernels (made on first use, as before). */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "core.h"
#include "replay.h"
#include "rt_model.h"

/* Input shapes with every symbol at `at` (0 or above its bound: the bound), into m->in_shape. */
static int set_shapes(WnrtModel *m, int64_t at, int64_t *symvals) {
    Graph *g = m->g;
    for (int s = 0; s < g->n_symbols; s++) {
        int64_t max = g->symbols[s].max_size;
        symvals[s] = at > 0 && at < max ? at : max;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        for (int d = 0; d < v->rank; d++) {
            int64_t n = dim_eval(g, v->shape[d], symvals);
            if (n < 1) return -1;
            m->in_shape[i][d] = n;
        }
        m->bound[i] = true;
    }
    return 0;
}

int wnrt_warm(WnrtModel *m, int count, const int64_t *sizes) {
    Graph *g = m->g;
    InputSnapshot kept;
    int64_t *symvals = malloc(sizeof *symvals * ((size_t)g->n_symbols + 1));
    if (!symvals) {
        diag_error("out of memory");
        return -1;
    }
    if (wnrt_bind_save(m, &kept) < 0) {
        free(symvals);
        return -1;
    }
    int warmed = 0;
    for (int k = 0; k < count; k++) {
        ReplayTrace t = {0};
        /* A graph whose shapes do not evaluate at these sizes is simply not warmed for them. */
        if (set_shapes(m, sizes[k], symvals) == 0 && wnrt_bind_resolve_symbols(m) == 0 &&
            wnrt_bind_eval_shapes(m, m->now_shapes) == 0 && wnrt_record_capture(m, m->now_shapes, &t) == 0)
            warmed++;
        wnrt_replay_trace_free(&t);
        diag_clear();
    }
    m->pipelines_ready = m->dev->pipelines_created;
    wnrt_bind_restore(m, &kept);
    free(symvals);
    return warmed;
}
