/* bind.c - binding inputs for the next run and resolving dynamic dimensions: symbol values come
 * from the inputs' actual shapes (same symbol -> same size, each within its maxSize); compound
 * dims of inputs must evaluate to the bound size; then every value's actual shape is evaluated
 * and checked against its upper bound (O(values)).  Errors name the first offending input. */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "profile.h"

static int find_input(const WnrtModel *m, const char *name) {
    const Graph *g = m->g;
    for (int i = 0; i < g->n_inputs; i++)
        if (strcmp(g->inputs[i]->name, name) == 0 || (g->inputs[i]->origin && strcmp(g->inputs[i]->origin, name) == 0))
            return i;
    return -1;
}

int wnrt_bind_input(WnrtModel *m, const char *name, const void *data, uint64_t nbytes, int rank, const int64_t *shape) {
    int i = find_input(m, name ? name : "");
    if (i < 0) {
        diag_error("the graph has no input named %s", name ? name : "(null)");
        return -1;
    }
    const Value *v = m->g->inputs[i];
    if (wnrt_kv_skips_io(m, v)) {
        diag_error("input %s is a KV cache kept on the device (wnrt_kv_resident); it is not bound", value_display_name(v));
        return -1;
    }
    if (rank != v->rank) {
        diag_error("input %s: rank %d given, the graph expects %d", value_display_name(v), rank, v->rank);
        return -1;
    }
    uint64_t numel = 1;
    for (int d = 0; d < rank; d++) {
        if (shape[d] <= 0 || shape[d] > v->shape[d].v || (dim_is_static(v->shape[d]) && shape[d] != v->shape[d].v)) {
            char buf[64];
            diag_error("input %s: dimension %d is %lld, the graph expects %s%s%lld", value_display_name(v), d,
                       (long long)shape[d], dim_is_static(v->shape[d]) ? "" : dim_format(m->g, v->shape[d], buf, sizeof buf),
                       dim_is_static(v->shape[d]) ? "" : " <= ", (long long)v->shape[d].v);
            return -1;
        }
        numel *= (uint64_t)shape[d];
    }
    uint64_t want = dtype_storage_bytes(v->dtype, numel);
    if (nbytes != want) {
        diag_error("input %s: %llu bytes given, %llu expected for its shape", value_display_name(v),
                   (unsigned long long)nbytes, (unsigned long long)want);
        return -1;
    }
    const MemAlloc *dst = m->staging[v->id].buffer ? &m->staging[v->id] : &m->mem[m->root[v->id]];
    if (!dst->map) {
        diag_error("internal: input %s has no host-visible memory", value_display_name(v));
        return -1;
    }
    profile_phase(m, WNRT_PROF_BIND);
    if (want) memcpy(dst->map, data, want);
    memcpy(m->in_shape[i], shape, sizeof *shape * (size_t)rank);
    m->bound[i] = true;
    profile_phase(m, WNRT_PROF_IDLE);
    return 0;
}

int wnrt_bind_resolve_symbols(WnrtModel *m) {
    Graph *g = m->g;
    int who[1024];
    for (int s = 0; s < g->n_symbols; s++) m->sym[s] = -1;
    for (int i = 0; i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        if (!m->bound[i]) {
            diag_error("input %s was not bound", value_display_name(v));
            return -1;
        }
        for (int d = 0; d < v->rank; d++) {
            Dim dm = v->shape[d];
            if (dim_is_static(dm) || g->exprs[dm.e].kind != 's') continue;
            int s = g->exprs[dm.e].sym;
            int64_t val = m->in_shape[i][d];
            if (m->sym[s] < 0) {
                m->sym[s] = val;
                if (s < 1024) who[s] = i;
            } else if (m->sym[s] != val) {
                diag_error("input %s: dimension %d (%s) is %lld but input %s gave %s = %lld", value_display_name(v), d,
                           g->symbols[s].name, (long long)val, s < 1024 ? value_display_name(g->inputs[who[s]]) : "another",
                           g->symbols[s].name, (long long)m->sym[s]);
                return -1;
            }
        }
    }
    for (int s = 0; s < g->n_symbols; s++)
        if (m->sym[s] < 0) m->sym[s] = g->symbols[s].max_size;
    for (int i = 0; i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        for (int d = 0; d < v->rank; d++) {
            Dim dm = v->shape[d];
            if (dim_is_static(dm) || g->exprs[dm.e].kind == 's') continue;
            int64_t want = dim_eval(g, dm, m->sym);
            if (want != m->in_shape[i][d]) {
                char buf[128];
                diag_error("input %s: dimension %d is %lld but %s = %lld", value_display_name(v), d,
                           (long long)m->in_shape[i][d], dim_format(g, dm, buf, sizeof buf), (long long)want);
                return -1;
            }
        }
    }
    return 0;
}

int wnrt_bind_eval_shapes(WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK]) {
    Graph *g = m->g;
    for (int i = 0; i < g->n_values; i++) {
        const Value *v = g->values[i];
        for (int d = 0; d < v->rank; d++) {
            int64_t x = dim_eval(g, v->shape[d], m->sym);
            if (x <= 0 || x > v->shape[d].v) {
                char buf[128];
                const Node *p = v->producer;
                diag_error("%s%s%stensor %s: dimension %d (%s) evaluates to %lld, outside 1..%lld for these input sizes",
                           p ? "node " : "", p ? node_display_name(p) : "", p ? ": " : "", value_display_name(v), d,
                           dim_format(g, v->shape[d], buf, sizeof buf), (long long)x, (long long)v->shape[d].v);
                return -1;
            }
            shapes[i][d] = x;
        }
    }
    return 0;
}

int wnrt_bind_save(const WnrtModel *m, InputSnapshot *s) {
    size_t ni = (size_t)m->g->n_inputs + 1;
    s->bound = malloc(sizeof *s->bound * ni);
    s->shape = malloc(sizeof *s->shape * ni);
    if (!s->bound || !s->shape) {
        free(s->bound), free(s->shape);
        diag_error("out of memory");
        return -1;
    }
    memcpy(s->bound, m->bound, sizeof *s->bound * ni);
    memcpy(s->shape, m->in_shape, sizeof *s->shape * ni);
    return 0;
}

void wnrt_bind_restore(WnrtModel *m, InputSnapshot *s) {
    size_t ni = (size_t)m->g->n_inputs + 1;
    memcpy(m->bound, s->bound, sizeof *s->bound * ni);
    memcpy(m->in_shape, s->shape, sizeof *s->shape * ni);
    free(s->bound), free(s->shape);
}
