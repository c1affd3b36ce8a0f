/* profile_agg.c - per-phase sums of profiled steps (profile_agg.h). */
#include "profile_agg.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"

int wnrt_prof_agg_init(ProfAgg *a, const char *name, const Graph *g) {
    memset(a, 0, sizeof *a);
    a->name = name;
    a->g = g;
    a->gpu_timed = true;
    a->node_calls = calloc((size_t)g->n_nodes + 1, sizeof *a->node_calls);
    a->node_ns = calloc((size_t)g->n_nodes + 1, sizeof *a->node_ns);
    if (!a->node_calls || !a->node_ns) {
        wnrt_prof_agg_free(a);
        diag_error("out of memory");
        return -1;
    }
    return 0;
}

void wnrt_prof_agg_free(ProfAgg *a) {
    free(a->node_calls);
    free(a->node_ns);
    a->node_calls = NULL;
    a->node_ns = NULL;
}

int wnrt_prof_agg_add(ProfAgg *a, const WnrtProfStep *s, double wall_ns) {
    for (int i = 0; i < s->n_dispatches; i++) {
        int node = s->dispatches[i].node;
        if (node < 0 || node >= a->g->n_nodes || (unsigned)a->g->nodes[node]->op >= OP_COUNT) {
            diag_error("profile: dispatch %d names node %d, the graph has %d", i, node, a->g->n_nodes);
            return -1;
        }
    }
    a->steps++;
    a->runs += s->runs;
    a->recordings += s->recordings;
    a->dispatches += s->n_dispatches;
    a->plan_dispatches += s->plan_dispatches;
    a->wall_ns += wall_ns;
    a->gpu_timed = a->gpu_timed && s->gpu_timed;
    for (int p = 0; p < WNRT_PROF_NPHASES; p++) a->host_ns[p] += s->host_ns[p];
    for (int i = 0; i < s->n_dispatches; i++) {
        const WnrtProfDispatch *d = &s->dispatches[i];
        double ns = s->gpu_timed && d->end_ns > d->begin_ns ? d->end_ns - d->begin_ns : 0;
        OpId op = a->g->nodes[d->node]->op;
        a->node_calls[d->node]++;
        a->node_ns[d->node] += ns;
        a->op_calls[op]++;
        a->op_ns[op] += ns;
        a->gpu_ns += ns;
    }
    return 0;
}

static int by_time(const void *pa, const void *pb) {
    const ProfRow *x = pa, *y = pb;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    if (x->calls != y->calls) return x->calls > y->calls ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

int wnrt_prof_agg_rows(const ProfAgg *a, bool by_node, ProfRow **rows) {
    int n = by_node ? a->g->n_nodes : OP_COUNT, count = 0;
    *rows = malloc(sizeof **rows * ((size_t)n + 1));
    if (!*rows) {
        diag_error("out of memory");
        return -1;
    }
    for (int k = 0; k < n; k++) {
        int calls = by_node ? a->node_calls[k] : a->op_calls[k];
        if (calls) (*rows)[count++] = (ProfRow){k, calls, by_node ? a->node_ns[k] : a->op_ns[k]};
    }
    qsort(*rows, (size_t)count, sizeof **rows, by_time);
    return count;
}

double wnrt_prof_agg_host_ns(const ProfAgg *a) {
    double t = 0;
    for (int p = 0; p < WNRT_PROF_NPHASES; p++) t += a->host_ns[p];
    return t;
}
