/* graph_json_kv.c - the KV-cache bindings (Graph.kv, docs/kv-cache.md) in webnn-graph JSON: a
 * top-level `"webnnc": {"kvCache": [{"past": NAME, "present": NAME, "axis": 2, "capacity": C,
 * "totalDim": "total_sequence_length"}]}` key, which other loaders ignore.  The writer emits it only
 * when the graph has bindings; the reader checks each binding against the graph (past is a graph
 * input, present a graph output of the same type and shape, the axis holds the static capacity,
 * totalDim names one of the graph's symbols) and restores Graph.kv. */
#include <string.h>

#include "graph_json_kv.h"
#include "webnn_io.h"

void wn_graph_json_emit_kv(const Graph *g, TextBuf *b) {
    if (g->n_kv <= 0) return;
    wn_tb_puts(b, ",\n  \"webnnc\": {\n    \"kvCache\": [\n");
    for (int i = 0; i < g->n_kv; i++) {
        const KvBinding *k = &g->kv[i];
        wn_tb_puts(b, "      {\"past\": ");
        wn_tb_json_string(b, k->past);
        wn_tb_puts(b, ", \"present\": ");
        wn_tb_json_string(b, k->present);
        wn_tb_puts(b, ", \"axis\": ");
        wn_tb_int(b, k->axis);
        wn_tb_puts(b, ", \"capacity\": ");
        wn_tb_int(b, k->capacity);
        if (k->total_dim) {
            wn_tb_puts(b, ", \"totalDim\": ");
            wn_tb_json_string(b, k->total_dim);
        }
        wn_tb_puts(b, i + 1 < g->n_kv ? "},\n" : "}\n");
    }
    wn_tb_puts(b, "    ]\n  }");
}

static const char *str_item(const cJSON *o, const char *key) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(j) ? j->valuestring : NULL;
}

static Value *find_value(Value **vals, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(vals[i]->name, name) == 0) return vals[i];
    return NULL;
}

static bool is_symbol(const Graph *g, const char *name) {
    for (int i = 0; i < g->n_symbols; i++)
        if (g->symbols[i].name && strcmp(g->symbols[i].name, name) == 0) return true;
    return false;
}

static bool same_type(const Value *a, const Value *b) { return a->dtype == b->dtype && value_same_shape(a, b); }

/* Binding i into kv[i] (kv[0..i) already read); 0 or -1 + diagnostic naming entry i. */
static int read_binding(ReadCtx *c, const cJSON *e, int i, KvBinding *kv) {
    Graph *g = c->g;
    const char *past = str_item(e, "past"), *present = str_item(e, "present"), *total = str_item(e, "totalDim");
    const cJSON *tj = cJSON_GetObjectItemCaseSensitive(e, "totalDim");
    int64_t axis, cap;
    if (!cJSON_IsObject(e) || !past || !present || !wn_json_int(cJSON_GetObjectItemCaseSensitive(e, "axis"), &axis) ||
        !wn_json_int(cJSON_GetObjectItemCaseSensitive(e, "capacity"), &cap) || (tj && !total && !cJSON_IsNull(tj))) {
        wn_rd_error(c, "webnnc.kvCache[%d]: needs string \"past\"/\"present\", integer \"axis\"/\"capacity\" and an "
                    "optional string \"totalDim\"", i);
        return -1;
    }
    Value *pv = find_value(g->inputs, g->n_inputs, past), *qv = find_value(g->outputs, g->n_outputs, present);
    if (!pv || !qv) {
        wn_rd_error(c, "webnnc.kvCache[%d]: '%s' is not a graph %s", i, pv ? present : past, pv ? "output" : "input");
        return -1;
    }
    if (!same_type(pv, qv) || axis < 0 || axis >= pv->rank || !dim_is_static(pv->shape[axis]) ||
        pv->shape[axis].v != cap || cap <= 0) {
        wn_rd_error(c, "webnnc.kvCache[%d]: past '%s' and present '%s' must have the same type and static size %lld on "
                    "axis %lld", i, past, present, (long long)cap, (long long)axis);
        return -1;
    }
    if (total && !is_symbol(g, total)) {
        wn_rd_error(c, "webnnc.kvCache[%d]: totalDim '%s' is not a dimension of the graph", i, total);
        return -1;
    }
    for (int k = 0; k < i; k++)
        if (!strcmp(kv[k].past, pv->name) || !strcmp(kv[k].present, qv->name)) {
            wn_rd_error(c, "webnnc.kvCache[%d]: '%s' or '%s' is bound twice", i, past, present);
            return -1;
        }
    kv[i] = (KvBinding){pv->name, qv->name, (int)axis, cap, total ? graph_strdup(g, total) : NULL};
    return 0;
}

int wn_graph_json_read_kv(ReadCtx *c, const cJSON *webnnc) {
    if (!webnnc) return 0;
    if (!cJSON_IsObject(webnnc)) {
        wn_rd_error(c, "\"webnnc\" must be an object");
        return -1;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(webnnc, "kvCache");
    if (!list) return 0;
    int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    if (n < 0 || n > 2 * c->g->n_inputs) {
        wn_rd_error(c, "webnnc.kvCache must be an array of at most one binding per graph input");
        return -1;
    }
    if (n == 0) return 0;
    KvBinding *kv = graph_alloc(c->g, sizeof *kv * (size_t)n);
    int i = 0;
    for (const cJSON *e = list->child; e; e = e->next, i++)
        if (read_binding(c, e, i, kv) < 0) return -1;
    c->g->kv = kv;
    c->g->n_kv = n;
    return 0;
}
