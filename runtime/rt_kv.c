/* rt_kv.c - KV caches in the runtime (Graph.kv, docs/kv-cache.md).
 *
 * Plan time (wnrt_kv_plan, from plan_model): each binding's present output gets the storage of its past
 * input when the present is produced in place - by scatterElements/scatterND whose data operand is
 * the past, or by groupQueryAttention from that past - and no node after the producer reads the
 * past.  Views of the present follow it.  Every past buffer lives for the whole run (its slot is
 * never reused), so its contents survive between runs.
 *
 * wnrt_kv_resident: from then on the caches stay on the device - zero-filled once, never uploaded
 * by a run nor read back (copy_io skips them), each run's present being the next run's past.  It
 * needs every binding aliased (otherwise the step's rows would land in a different buffer). */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "rt_model.h"

static int find_io(Value **vals, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(vals[i]->name, name) == 0) return i;
    return -1;
}

/* Whether node p writes `present` (its output `slot`) in place over the storage of `past`. */
static bool in_place_producer(const WnrtModel *m, const Node *p, int slot, const Value *past) {
    int rp = m->root[past->id];
    if (p->op == OP_SCATTER_ELEMENTS || p->op == OP_SCATTER_ND)
        return slot == 0 && p->n_inputs > 0 && p->inputs[0] && m->root[p->inputs[0]->id] == rp;
    if (p->op == OP_GROUP_QUERY_ATTENTION) {
        int in = slot == GQA_PRESENT_KEY ? GQA_PAST_KEY : slot == GQA_PRESENT_VALUE ? GQA_PAST_VALUE : -1;
        return in >= 0 && in < p->n_inputs && p->inputs[in] && m->root[p->inputs[in]->id] == rp;
    }
    return false;
}

/* Whether a live node after index `after` reads storage root `root`. */
static bool read_after(const WnrtModel *m, int after, int root) {
    const Graph *g = m->g;
    for (int i = after + 1; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        if (n->dead || (m->absorbed && m->absorbed[i])) continue;
        const Value *const *ins;
        int n_ins = plan_node_inputs(m, n, &ins);
        for (int k = 0; k < n_ins; k++)
            if (ins[k] && m->root[ins[k]->id] == root) return true;
    }
    return false;
}

int wnrt_kv_plan(WnrtModel *m) {
    Graph *g = m->g;
    if (g->n_kv <= 0) return 0;
    m->kv = calloc((size_t)g->n_kv, sizeof *m->kv);
    m->kv_role = calloc((size_t)g->n_values + 1, 1);
    if (!m->kv || !m->kv_role) {
        diag_error("out of memory");
        return -1;
    }
    m->n_kv = g->n_kv;
    for (int k = 0; k < g->n_kv; k++) {
        const KvBinding *b = &g->kv[k];
        RtKv *r = &m->kv[k];
        r->in = find_io(g->inputs, g->n_inputs, b->past);
        r->out = find_io(g->outputs, g->n_outputs, b->present);
        if (r->in < 0 || r->out < 0) {
            diag_error("KV cache binding %d: %s is not a graph %s", k, r->in < 0 ? b->past : b->present,
                       r->in < 0 ? "input" : "output");
            return -1;
        }
        const Value *past = g->inputs[r->in], *present = g->outputs[r->out];
        if (past->dtype != present->dtype || past->rank != present->rank || !value_is_static(past) ||
            !value_is_static(present)) {
            diag_error("KV cache %s / %s: past and present need the same static type", value_display_name(past),
                       value_display_name(present));
            return -1;
        }
        for (int d = 0; d < past->rank; d++)
            if (past->shape[d].v != present->shape[d].v) {
                diag_error("KV cache %s / %s: past and present shapes differ", value_display_name(past),
                           value_display_name(present));
                return -1;
            }
        m->kv_role[past->id] = 1;
        m->kv_role[present->id] = 2;
        const Node *p = present->producer;
        if (!p || m->root[present->id] != present->id || (m->absorbed && m->absorbed[p->index]) ||
            !in_place_producer(m, p, present->producer_slot, past) || read_after(m, p->index, m->root[past->id]))
            continue;
        m->root[present->id] = m->root[past->id];
        r->aliased = true;
        m->stats.kv_aliased++;
    }
    /* views of an aliased present follow it (node order: inputs before outputs) */
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        if (!n->dead && m->fam[i] && (m->fam[i]->flags & KF_VIEW)) m->root[n->outputs[0]->id] = m->root[n->inputs[0]->id];
    }
    return 0;
}

void wnrt_kv_free(WnrtModel *m) {
    free(m->kv);
    free(m->kv_role);
}

/* Zero-fills the storage of every past (mapped: memset; else an upload of zeros). */
static int zero_caches(WnrtModel *m) {
    uint64_t max = 0;
    for (int k = 0; k < m->n_kv; k++) {
        const MemAlloc *a = &m->mem[m->root[m->g->inputs[m->kv[k].in]->id]];
        if (a->size > max) max = a->size;
    }
    void *zeros = NULL;
    Uploader *up = NULL;
    for (int k = 0; k < m->n_kv; k++) {
        const MemAlloc *a = &m->mem[m->root[m->g->inputs[m->kv[k].in]->id]];
        if (a->map) {
            memset(a->map, 0, a->size);
            continue;
        }
        if ((!zeros && !(zeros = calloc(1, max ? max : 1))) || (!up && !(up = vk_uploader_create(m->dev)))) {
            if (!diag_has_error()) diag_error("out of memory");
            free(zeros);
            if (up) vk_uploader_finish(up);
            return -1;
        }
        if (vk_uploader_put(up, a, 0, zeros, a->size) < 0) {
            free(zeros);
            vk_uploader_finish(up);
            return -1;
        }
    }
    int rc = up ? vk_uploader_finish(up) : 0;
    free(zeros);
    return rc;
}

int wnrt_kv_resident(WnrtModel *m) {
    if (m->n_kv == 0) {
        diag_error("the graph has no KV-cache bindings");
        return -1;
    }
    if (m->n_rec > 0) {
        diag_error("internal: wnrt_kv_resident must come before the first run");
        return -1;
    }
    for (int k = 0; k < m->n_kv; k++)
        if (!m->kv[k].aliased) {
            diag_error("KV cache %s: its present %s is not written in place, so it cannot stay on the device",
                       value_display_name(m->g->inputs[m->kv[k].in]), value_display_name(m->g->outputs[m->kv[k].out]));
            return -1;
        }
    if (zero_caches(m) < 0) return -1;
    for (int k = 0; k < m->n_kv; k++) {
        const Value *past = m->g->inputs[m->kv[k].in];
        for (int d = 0; d < past->rank; d++) m->in_shape[m->kv[k].in][d] = past->shape[d].v;
        m->bound[m->kv[k].in] = true;
    }
    m->kv_resident = true;
    return 0;
}

int wnrt_kv_reset(WnrtModel *m) {
    if (!m->kv_resident) {
        diag_error("internal: wnrt_kv_reset needs resident KV caches (wnrt_kv_resident)");
        return -1;
    }
    return zero_caches(m);
}

bool wnrt_kv_skips_io(const WnrtModel *m, const Value *v) { return m->kv_resident && m->kv_role[v->id] != 0; }
