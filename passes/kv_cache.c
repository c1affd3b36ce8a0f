/* kv_cache.c - pass kv_cache: turns an imported ORT-GenAI graph into webnnc's KV-cache interface
 * (docs/kv-cache.md).  Every graph input feeding a groupQueryAttention pastKey/pastValue slot
 * (past_key_values.N.key/value, [batch, kvHeads, past_sequence_length, headSize]) gets its sequence
 * axis replaced by the static capacity C, shape inference is re-run over the graph so the GQA
 * presents become [batch, kvHeads, C, headSize], and each (past input, present output) pair is
 * recorded in g->kv (axis 2, C, and the name of the total-length dim) so a runtime can map
 * ONNX-interface data (a zero-length past at prefill, a past of 8 at decode) onto the caches.
 * C comes from PassOptions.kv_capacity, else from the upper bound of the total_sequence_length dim
 * (`--dim total_sequence_length=MAX`, genai_config.json search.max_length). */
#include <inttypes.h>
#include <string.h>

#include "core.h"
#include "pass.h"

#define KV_TOTAL_DIM "total_sequence_length"

static int64_t symbol_bound(const Graph *g, const char *name) {
    for (int i = 0; i < g->n_symbols; i++)
        if (g->symbols[i].name && strcmp(g->symbols[i].name, name) == 0) return g->symbols[i].max_size;
    return 0;
}

/* Re-runs shape inference over every live node (topological order) and updates its outputs. */
static int reinfer_all(Graph *g) {
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead) continue;
        TensorDesc out[64];
        int count = infer_node(g, n, out, 64);
        if (count < 0) return -1;
        if (count != n->n_outputs) {
            diag_node_error(n, "output count changed from %d to %d after fixing the KV cache capacity", n->n_outputs, count);
            return -1;
        }
        for (int j = 0; j < count; j++) {
            Value *v = n->outputs[j];
            v->dtype = out[j].dtype;
            v->rank = out[j].rank;
            memcpy(v->shape, out[j].shape, sizeof(Dim) * (size_t)out[j].rank);
        }
    }
    return 0;
}

/* Sets the capacity of one cache input; 1 when changed, 0 when already C, -1 on error. */
static int fix_cache(const Node *n, Value *past, int64_t cap) {
    if (!(past->flags & VF_INPUT) || past->rank != 4) {
        diag_node_error(n, "KV cache %s must be a rank-4 graph input", value_display_name(past));
        return -1;
    }
    Dim d = past->shape[2];
    if (dim_is_static(d) && d.v == cap) return 0;
    if (dim_is_static(d)) {
        diag_node_error(n, "KV cache %s has static length %" PRId64 ", not the capacity %" PRId64, value_display_name(past),
                        d.v, cap);
        return -1;
    }
    past->shape[2] = dim_static(cap);
    return 1;
}

static bool already_bound(const Graph *g, const char *past) {
    for (int i = 0; i < g->n_kv; i++)
        if (strcmp(g->kv[i].past, past) == 0) return true;
    return false;
}

static int record(Graph *g, const Value *past, const Value *present, int64_t cap) {
    if (already_bound(g, past->name) || !(present->flags & VF_OUTPUT)) return 0;
    KvBinding *kv = graph_alloc(g, sizeof *kv * (size_t)(g->n_kv + 1));
    if (g->n_kv) memcpy(kv, g->kv, sizeof *kv * (size_t)g->n_kv);
    const char *total = symbol_bound(g, KV_TOTAL_DIM) > 0 ? KV_TOTAL_DIM : NULL;
    kv[g->n_kv] = (KvBinding){past->name, present->name, 2, cap, total};
    g->kv = kv;
    g->n_kv++;
    return 0;
}

int pass_kv_cache(Graph *g, const PassOptions *opt) {
    int64_t cap = opt && opt->kv_capacity > 0 ? opt->kv_capacity : symbol_bound(g, KV_TOTAL_DIM);
    bool any = false;
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead || n->op != OP_GROUP_QUERY_ATTENTION || !gqa_has_cache(n)) continue;
        if (cap <= 0 || cap >= ((int64_t)1 << 31)) {
            diag_node_error(n, "KV cache capacity unknown: give the maximum total length (--dim %s=MAX)", KV_TOTAL_DIM);
            return -1;
        }
        for (int slot = GQA_PAST_KEY; slot <= GQA_PAST_VALUE; slot++) {
            Value *past = slot < n->n_inputs ? n->inputs[slot] : NULL;
            if (!past) return (diag_node_error(n, "missing KV cache operand %d", slot), -1);
            if (fix_cache(n, past, cap) < 0) return -1;
        }
        any = true;
    }
    if (!any) return 0;
    if (reinfer_all(g) < 0) return -1;
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead || n->op != OP_GROUP_QUERY_ATTENTION || !gqa_has_cache(n)) continue;
        if (record(g, n->inputs[GQA_PAST_KEY], n->outputs[GQA_PRESENT_KEY], cap) < 0 ||
            record(g, n->inputs[GQA_PAST_VALUE], n->outputs[GQA_PRESENT_VALUE], cap) < 0)
            return -1;
    }
    return 0;
}
