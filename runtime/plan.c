/* plan.c - IR -> execution plan at load time: kernel lookup and checks per node, views (reshape,
 * identity) aliasing their input's storage, constants uploaded once, and liveness-based reuse of
 * device buffers for every other tensor (graph inputs live for the whole run, outputs to the end).
 * Buffers are sized for the upper bounds of dynamic dims. */
#include <stdlib.h>
#include <string.h>

#include "rt_env.h"
#include "rt_model.h"

#define ALIGN 256u

/* Upper-bound byte size of a value, or UINT64_MAX with a diagnostic. */
static uint64_t value_bytes(const Graph *g, const Value *v) {
    uint64_t n = 1;
    for (int d = 0; d < v->rank; d++) {
        int64_t s = v->shape[d].v;
        if (s <= 0) {
            char buf[64];
            diag_error("tensor %s: dimension %d (%s) has no upper bound (maxSize)", value_display_name(v), d,
                       dim_format(g, v->shape[d], buf, sizeof buf));
            return UINT64_MAX;
        }
        if (n > (UINT64_C(1) << 40) / (uint64_t)s) {
            diag_error("tensor %s is too large", value_display_name(v));
            return UINT64_MAX;
        }
        n *= (uint64_t)s;
    }
    return dtype_storage_bytes(v->dtype, n);
}

/* Device bytes of constant i whose own size is `own`: a re-laid-out size (const_bytes) or its own. */
static uint64_t const_device_bytes(const WnrtModel *m, int i, uint64_t own) {
    return m->const_bytes && m->const_bytes[i] ? m->const_bytes[i] : own;
}

/* Consumers per value among live nodes (graph outputs count as a consumer too). */
int *plan_count_uses(const Graph *g) {
    int *uses = calloc((size_t)g->n_values + 1, sizeof *uses);
    if (!uses) {
        diag_error("out of memory");
        return NULL;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        if (n->dead) continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k]) uses[n->inputs[k]->id]++;
    }
    for (int i = 0; i < g->n_outputs; i++) uses[g->outputs[i]->id]++;
    return uses;
}

int plan_rewrite_arrays(WnrtModel *m) {
    size_t nn = (size_t)m->g->n_nodes + 1, nv = (size_t)m->g->n_values + 1;
    if (!m->rewrite) m->rewrite = calloc(nn, sizeof *m->rewrite);
    if (!m->absorbed) m->absorbed = calloc(nn, sizeof *m->absorbed);
    if (!m->absorbed_into && (m->absorbed_into = malloc(nn * sizeof *m->absorbed_into)))
        for (size_t i = 0; i < nn; i++) m->absorbed_into[i] = -1;
    if (!m->const_data) m->const_data = calloc(nv, sizeof *m->const_data);
    if (!m->const_bytes) m->const_bytes = calloc(nv, sizeof *m->const_bytes);
    return m->rewrite && m->absorbed && m->absorbed_into && m->const_data && m->const_bytes ? 0 : -1;
}

void plan_rewrite_arrays_free(WnrtModel *m) {
    free(m->rewrite);
    free(m->absorbed);
    free(m->absorbed_into);
    free(m->const_data);
    free(m->const_bytes);
    m->rewrite = NULL;
    m->absorbed = NULL;
    m->absorbed_into = NULL;
    m->const_data = NULL;
    m->const_bytes = NULL;
}

int plan_rewrite_node(WnrtModel *m, PlanRewriteStore *s, int node, const PlanRewrite *rw, const void *params,
                      size_t param_size) {
    size_t nn = (size_t)m->g->n_nodes + 1;
    if (!s->rw) {
        s->rw = calloc(nn, sizeof *s->rw);
        s->params = calloc(nn, param_size);
        s->param_size = param_size;
    }
    if (!s->rw || !s->params || s->param_size != param_size || plan_rewrite_arrays(m) < 0) {
        diag_error("out of memory");
        return -1;
    }
    void *p = s->params + (size_t)node * param_size;
    memcpy(p, params, param_size);
    s->rw[node] = *rw;
    s->rw[node].params = p;
    m->rewrite[node] = &s->rw[node];
    return 0;
}

void plan_rewrite_store_free(PlanRewriteStore *s) {
    free(s->rw);
    free(s->params);
    memset(s, 0, sizeof *s);
}

int plan_visit_open_nodes(WnrtModel *m, bool reverse, int (*visit)(WnrtModel *m, const Node *n, const int *uses)) {
    if (wnrt_env_flag("WEBNNC_NO_FUSE", false)) return 0;
    int *uses = plan_count_uses(m->g), rc = uses ? 0 : -1, nn = m->g->n_nodes;
    for (int k = 0; k < nn && rc >= 0; k++) {
        const Node *n = m->g->nodes[reverse ? nn - 1 - k : k];
        if (plan_node_open(m, n)) rc = visit(m, n, uses);
    }
    free(uses);
    return rc < 0 ? -1 : 0;
}

bool plan_node_open(const WnrtModel *m, const Node *n) {
    return !n->dead && !(m->absorbed && m->absorbed[n->index]) && !(m->rewrite && m->rewrite[n->index]);
}

void plan_absorb(WnrtModel *m, const Node *n, const Node *into) {
    m->absorbed[n->index] = true;
    m->absorbed_into[n->index] = into->index;
}

int wnrt_node_absorbed_into(const WnrtModel *m, int node_index) {
    if (!m->absorbed_into || node_index < 0 || node_index >= m->g->n_nodes) return -1;
    return m->absorbed_into[node_index];
}

const char *wnrt_node_rewrite_label(const WnrtModel *m, int node_index) {
    if (!m->rewrite || node_index < 0 || node_index >= m->g->n_nodes || !m->rewrite[node_index]) return NULL;
    return m->rewrite[node_index]->label;
}

typedef struct {
    uint64_t size;
    int owner; /* root value id using it, -1 free */
} Slot;

static int assign(WnrtModel *m, Slot **slots, int *n_slots, int *cap, int32_t *slot_of, uint64_t bytes, int root) {
    int best = -1, largest = -1;
    for (int s = 0; s < *n_slots; s++) {
        if ((*slots)[s].owner >= 0) continue;
        if ((*slots)[s].size >= bytes && (best < 0 || (*slots)[s].size < (*slots)[best].size)) best = s;
        if (largest < 0 || (*slots)[s].size > (*slots)[largest].size) largest = s;
    }
    if (best < 0 && largest >= 0) best = largest; /* grow the largest free slot */
    if (best < 0) {
        if (*n_slots == *cap) {
            int nc = *cap ? 2 * *cap : 64;
            Slot *ns = realloc(*slots, sizeof *ns * (size_t)nc);
            if (!ns) { diag_error("out of memory"); return -1; }
            *slots = ns;
            *cap = nc;
        }
        best = (*n_slots)++;
        (*slots)[best].size = 0;
    }
    if ((*slots)[best].size < bytes) (*slots)[best].size = bytes;
    (*slots)[best].owner = root;
    slot_of[root] = best;
    (void)m;
    return 0;
}

/* The counters of kc_counters_reserve, uploaded as zeros. */
static int zeroed_counters(WnrtModel *m) {
    uint64_t bytes = m->counter_words * 4;
    if (vk_mempool_alloc(m->pool, bytes, &m->counters) < 0 || vk_zero_fill(m->dev, &m->counters) < 0) return -1;
    m->stats.peak_bytes += bytes;
    return 0;
}

int plan_model(WnrtModel *m) {
    Graph *g = m->g;
    int nv = g->n_values, nn = g->n_nodes;
    int rc = -1;
    int32_t *def = malloc(sizeof *def * (size_t)(nv + 1));
    int32_t *last = malloc(sizeof *last * (size_t)(nv + 1));
    int32_t *slot_of = malloc(sizeof *slot_of * (size_t)(nv + 1));
    uint64_t *bytes = calloc((size_t)nv + 1, sizeof *bytes);
    bool *used = calloc((size_t)nv + 1, sizeof *used);
    Slot *slots = NULL;
    int n_slots = 0, cap = 0;
    Uploader *up = NULL;
    if (!def || !last || !slot_of || !bytes || !used) { diag_error("out of memory"); goto done; }
    for (int i = 0; i < nv; i++) m->root[i] = i, def[i] = -2, last[i] = -2, slot_of[i] = -1;

    /* Plan rewrites (fused dequantize + matmul, re-laid-out constant weights; reductions with
     * an element-wise epilogue; one-row gathers read in place by matmulNBits; skip sums added by
     * the matmulNBits before a normalized projection, or by decode attention with the output
     * projection it takes over). */
    if (plan_matvec_rewrite(m) < 0 || plan_reduce_rewrite(m) < 0 || plan_pick_row_rewrite(m) < 0 ||
        plan_oproj_rewrite(m) < 0 || plan_residual_rewrite(m) < 0)
        goto done;

    /* Kernels, views, uses. */
    for (int i = 0; i < nn; i++) {
        Node *n = g->nodes[i];
        if (n->dead || (m->absorbed && m->absorbed[i])) continue;
        const PlanRewrite *rw = m->rewrite ? m->rewrite[i] : NULL;
        const KernelFamily *f = rw ? rw->fam : kernel_family(n->op);
        const Value *const *ins;
        int n_ins = plan_node_inputs(m, n, &ins);
        DType dt = n->n_inputs > 0 && n->inputs[0] ? n->inputs[0]->dtype : DT_INVALID;
        if (!f) {
            const char *why = NULL;
            kernel_support(n->op, &why);
            diag_error("no kernel for op %s (dtype %s) at node %s%s%s", op_name(n->op), dtype_name(dt),
                       node_display_name(n), why ? ": " : "", why ? why : "");
            goto done;
        }
        m->fam[i] = f;
        if (wnrt_record_check_node(m, n) < 0) goto done;
        for (int k = 0; k < n_ins; k++)
            if (ins[k]) used[ins[k]->id] = true;
        for (int k = 0; k < n->n_outputs; k++) used[n->outputs[k]->id] = true;
        if (f->flags & KF_VIEW) m->root[n->outputs[0]->id] = m->root[n->inputs[0]->id];
    }
    if (wnrt_kv_plan(m) < 0) goto done; /* KV caches: present shares the past's storage */
    for (int i = 0; i < g->n_inputs; i++) used[g->inputs[i]->id] = true;
    for (int i = 0; i < g->n_outputs; i++) used[g->outputs[i]->id] = true;

    /* Liveness per root. */
    for (int i = 0; i < g->n_inputs; i++) def[m->root[g->inputs[i]->id]] = -1;
    for (int i = 0; i < nn; i++) {
        Node *n = g->nodes[i];
        if (n->dead || (m->absorbed && m->absorbed[i])) continue;
        const Value *const *ins;
        int n_ins = plan_node_inputs(m, n, &ins);
        for (int k = 0; k < n->n_outputs; k++) {
            int r = m->root[n->outputs[k]->id];
            if (def[r] == -2) def[r] = i;
            if (last[r] < i) last[r] = i;
        }
        for (int k = 0; k < n_ins; k++)
            if (ins[k] && last[m->root[ins[k]->id]] < i) last[m->root[ins[k]->id]] = i;
    }
    /* Inputs stay theirs for the whole run too: a caller may bind them once and run again. */
    for (int i = 0; i < g->n_inputs; i++) last[m->root[g->inputs[i]->id]] = nn;
    for (int i = 0; i < g->n_outputs; i++) last[m->root[g->outputs[i]->id]] = nn;

    /* Sizes; constants resident. */
    up = vk_uploader_create(m->dev);
    if (!up) goto done;
    uint64_t const_total = 0;
    for (int i = 0; i < nv; i++)
        if (used[i] && m->root[i] == i && (g->values[i]->flags & VF_CONST))
            const_total += (const_device_bytes(m, i, value_bytes(g, g->values[i])) + 2 * ALIGN) & ~(uint64_t)(ALIGN - 1);
    vk_mempool_hint(m->const_pool, const_total);
    for (int i = 0; i < nv; i++) {
        Value *v = g->values[i];
        if (!used[i]) continue;
        if ((bytes[i] = value_bytes(g, v)) == UINT64_MAX) goto done;
        if (m->root[i] != i) continue;
        if (v->flags & VF_CONST) {
            if (!v->data || v->nbytes != bytes[i]) {
                diag_error("constant %s: has %llu bytes of data, %llu expected", value_display_name(v),
                           (unsigned long long)v->nbytes, (unsigned long long)bytes[i]);
                goto done;
            }
            const void *data = m->const_data && m->const_data[i] ? m->const_data[i] : v->data;
            uint64_t dev_bytes = const_device_bytes(m, i, bytes[i]);
            if (vk_mempool_alloc(m->const_pool, dev_bytes, &m->mem[i]) < 0 || vk_uploader_put(up, &m->mem[i], 0, data, dev_bytes) < 0)
                goto done;
            m->stats.const_bytes += dev_bytes;
            continue;
        }
        if (def[i] == -2) {
            diag_error("tensor %s has no producer and is not a graph input", value_display_name(v));
            goto done;
        }
        m->stats.intermediate_sum += bytes[i];
    }
    int r = vk_uploader_finish(up);
    up = NULL;
    if (r < 0) goto done;

    /* Buffer reuse: walk the schedule, freeing slots after their last use. */
    for (int i = 0; i < g->n_inputs; i++) {
        int rt = m->root[g->inputs[i]->id];
        if (slot_of[rt] < 0 && assign(m, &slots, &n_slots, &cap, slot_of, bytes[rt], rt) < 0) goto done;
    }
    for (int i = 0; i < nn; i++) {
        Node *n = g->nodes[i];
        if (n->dead || (m->absorbed && m->absorbed[i])) continue;
        for (int s = 0; s < n_slots; s++)
            if (slots[s].owner >= 0 && last[slots[s].owner] < i) slots[s].owner = -1;
        for (int k = 0; k < n->n_outputs; k++) {
            int rt = m->root[n->outputs[k]->id];
            if (rt != n->outputs[k]->id || slot_of[rt] >= 0 || (g->values[rt]->flags & VF_CONST)) continue;
            if (assign(m, &slots, &n_slots, &cap, slot_of, bytes[rt], rt) < 0) goto done;
        }
        /* a later node's output that this (rewritten) node writes in its place: stored from here on */
        const Value *const *ins;
        int n_ins = plan_node_inputs(m, n, &ins);
        for (int k = 0; k < n_ins; k++) {
            int rt = ins[k] ? m->root[ins[k]->id] : -1;
            if (rt < 0 || slot_of[rt] >= 0 || def[rt] <= i || (g->values[rt]->flags & VF_CONST)) continue;
            if (assign(m, &slots, &n_slots, &cap, slot_of, bytes[rt], rt) < 0) goto done;
        }
    }
    uint64_t slot_total = 0;
    for (int s = 0; s < n_slots; s++) slot_total += (slots[s].size + 2 * ALIGN) & ~(uint64_t)(ALIGN - 1);
    vk_mempool_hint(m->pool, slot_total + (m->scratch_bytes ? m->scratch_bytes + 2 * ALIGN : 0) + (m->counter_words ? m->counter_words * 4 + 2 * ALIGN : 0));
    MemAlloc *slot_mem = calloc((size_t)n_slots + 1, sizeof *slot_mem);
    if (!slot_mem) { diag_error("out of memory"); goto done; }
    for (int s = 0; s < n_slots; s++) {
        if (vk_mempool_alloc(m->pool, slots[s].size, &slot_mem[s]) < 0) { free(slot_mem); goto done; }
        m->stats.peak_bytes += slots[s].size;
    }
    for (int i = 0; i < nv; i++)
        if (slot_of[i] >= 0) {
            m->mem[i] = slot_mem[slot_of[i]];
            m->mem[i].size = bytes[i];
        }
    free(slot_mem);
    if (m->scratch_bytes) { /* kc_scratch_reserve */
        if (vk_mempool_alloc(m->pool, m->scratch_bytes, &m->scratch) < 0) goto done;
        m->stats.peak_bytes += m->scratch_bytes;
    }
    if (m->counter_words && zeroed_counters(m) < 0) goto done; /* kc_counters_reserve */

    /* Host staging for inputs and outputs when device memory is not mapped (or, for tests of
     * that path on unified-memory devices, when WEBNNC_FORCE_STAGING=1). */
    bool force_staging = wnrt_env_flag("WEBNNC_FORCE_STAGING", false);
    for (int pass = 0; pass < 2; pass++) {
        int cnt = pass ? g->n_outputs : g->n_inputs;
        for (int i = 0; i < cnt; i++) {
            const Value *v = pass ? g->outputs[i] : g->inputs[i];
            int rt = m->root[v->id];
            if ((m->mem[rt].map && !force_staging) || m->staging[v->id].buffer) continue;
            if (!m->staging_pool && !(m->staging_pool = vk_mempool_create(m->dev, MEM_STAGING))) goto done;
            if (vk_mempool_alloc(m->staging_pool, bytes[v->id], &m->staging[v->id]) < 0) goto done;
            if (!m->staging[v->id].map) { diag_error("vulkan: staging memory is not mappable"); goto done; }
        }
    }
    m->stats.device_bytes = vk_mempool_bytes(m->pool) + vk_mempool_bytes(m->const_pool);
    rc = 0;
done:
    if (up) vk_uploader_finish(up);
    free(def);
    free(last);
    free(slot_of);
    free(bytes);
    free(used);
    free(slots);
    return rc;
}
