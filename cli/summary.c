/* summary.c - building and printing the `webnnc inspect` summary object (see summary.h). */
#include "summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

cJSON *summary_new(const char *format) {
    cJSON *s = cJSON_CreateObject();
    if (!s) return NULL;
    cJSON_AddStringToObject(s, "format", format);
    cJSON_AddNumberToObject(s, "nodes", 0);
    cJSON_AddObjectToObject(s, "ops");
    cJSON_AddArrayToObject(s, "inputs");
    cJSON_AddArrayToObject(s, "outputs");
    cJSON_AddObjectToObject(s, "parameterBytes");
    return s;
}

/* obj[key] += by, creating the entry at 0. */
static void bump(cJSON *obj, const char *key, double by) {
    if (!obj) return;
    cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item) item = cJSON_AddNumberToObject(obj, key, 0);
    if (item) cJSON_SetNumberValue(item, item->valuedouble + by);
}

void summary_count_op(cJSON *s, const char *name) {
    bump(cJSON_GetObjectItemCaseSensitive(s, "ops"), name, 1);
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(s, "nodes");
    cJSON_SetNumberValue(nodes, nodes->valuedouble + 1);
}

void summary_add_bytes(cJSON *s, const char *dtype, uint64_t bytes) {
    bump(cJSON_GetObjectItemCaseSensitive(s, "parameterBytes"), dtype, (double)bytes);
}

cJSON *summary_add_tensor(cJSON *s, const char *list, const char *name, const char *dtype) {
    cJSON *t = cJSON_CreateObject();
    if (!t) return NULL;
    cJSON_AddStringToObject(t, "name", name ? name : "");
    cJSON_AddStringToObject(t, "dataType", dtype);
    cJSON *shape = cJSON_AddArrayToObject(t, "shape");
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(s, list), t);
    return shape;
}

void summary_dim_static(cJSON *shape, int64_t v) { cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)v)); }

void summary_dim_symbol(cJSON *shape, const char *name, int64_t max) {
    cJSON *d = cJSON_CreateObject();
    if (!d) return;
    cJSON_AddStringToObject(d, "name", name ? name : "?");
    if (max > 0) cJSON_AddNumberToObject(d, "maxSize", (double)max);
    cJSON_AddItemToArray(shape, d);
}

uint64_t summary_total_bytes(const cJSON *s) {
    uint64_t total = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(s, "parameterBytes")) total += (uint64_t)item->valuedouble;
    return total;
}

static int cmp_key(const void *a, const void *b) {
    return strcmp((*(cJSON *const *)a)->string, (*(cJSON *const *)b)->string);
}

/* Re-links the members of an object sorted by key (stable output whatever the insertion order). */
static void sort_object(cJSON *obj) {
    int n = cJSON_GetArraySize(obj);
    if (n < 2) return;
    cJSON **items = malloc((size_t)n * sizeof *items);
    if (!items) return;
    int i = 0;
    for (cJSON *it = obj->child; it; it = it->next) items[i++] = it;
    qsort(items, (size_t)n, sizeof *items, cmp_key);
    for (i = 0; i < n; i++) {
        items[i]->prev = i ? items[i - 1] : items[n - 1]; /* cJSON: child->prev is the last item */
        items[i]->next = i + 1 < n ? items[i + 1] : NULL;
    }
    obj->child = items[0];
    free(items);
}

static void print_tensors(const cJSON *list, const char *title, FILE *f) {
    fprintf(f, "%s (%d):\n", title, cJSON_GetArraySize(list));
    const cJSON *t;
    cJSON_ArrayForEach(t, list) {
        fprintf(f, "  %s: %s[", cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring,
                cJSON_GetObjectItemCaseSensitive(t, "dataType")->valuestring);
        const cJSON *d;
        bool first = true;
        cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(t, "shape")) {
            fputs(first ? "" : ", ", f);
            first = false;
            if (cJSON_IsNumber(d)) {
                fprintf(f, "%.0f", d->valuedouble);
            } else {
                const cJSON *max = cJSON_GetObjectItemCaseSensitive(d, "maxSize");
                fputs(cJSON_GetObjectItemCaseSensitive(d, "name")->valuestring, f);
                if (max) fprintf(f, "<=%.0f", max->valuedouble);
            }
        }
        fputs("]\n", f);
    }
}

static void print_text(const cJSON *s, FILE *f) {
    char buf[32];
    fprintf(f, "format: %s\n", cJSON_GetObjectItemCaseSensitive(s, "format")->valuestring);
    const cJSON *opsets = cJSON_GetObjectItemCaseSensitive(s, "opsets"), *item;
    if (opsets) {
        fputs("opsets:", f);
        cJSON_ArrayForEach(item, opsets) fprintf(f, " %s=%.0f", item->string, item->valuedouble);
        fputc('\n', f);
    }
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(s, "ops");
    fprintf(f, "nodes: %.0f (%d op types)\n", cJSON_GetObjectItemCaseSensitive(s, "nodes")->valuedouble,
            cJSON_GetArraySize(ops));
    cJSON_ArrayForEach(item, ops) fprintf(f, "  %8.0f  %s\n", item->valuedouble, item->string);
    const cJSON *portable = cJSON_GetObjectItemCaseSensitive(s, "portable");
    if (cJSON_IsTrue(portable)) fputs("portable: yes (WebNN spec ops only: any WebNN implementation can load it)\n", f);
    if (cJSON_IsFalse(portable)) {
        fputs("portable: no, webnnc-specific (extension ops:", f);
        cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(s, "extensionOps")) fprintf(f, " %s", item->valuestring);
        fputs("; see docs/extension-ops.md)\n", f);
    }
    print_tensors(cJSON_GetObjectItemCaseSensitive(s, "inputs"), "inputs", f);
    print_tensors(cJSON_GetObjectItemCaseSensitive(s, "outputs"), "outputs", f);
    fprintf(f, "parameters: %s\n", format_bytes(summary_total_bytes(s), buf, sizeof buf));
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(s, "parameterBytes"))
        fprintf(f, "  %-10s %.0f bytes\n", item->string, item->valuedouble);
}

void summary_print(cJSON *s, bool json, FILE *f) {
    sort_object(cJSON_GetObjectItemCaseSensitive(s, "ops"));
    sort_object(cJSON_GetObjectItemCaseSensitive(s, "parameterBytes"));
    sort_object(cJSON_GetObjectItemCaseSensitive(s, "opsets"));
    if (!json) {
        print_text(s, f);
        return;
    }
    char *text = cJSON_Print(s);
    if (text) fprintf(f, "%s\n", text);
    free(text);
}

uint64_t value_file_bytes(const Value *v) {
    return dtype_bits(v->dtype) < 8 ? value_max_elements(v) : v->nbytes;
}

uint64_t summary_add_graph_constants(cJSON *s, const Graph *g) {
    uint64_t total = 0;
    for (int i = 0; i < g->n_values; i++) {
        const Value *v = g->values[i];
        if (!v || !(v->flags & VF_CONST)) continue;
        uint64_t b = value_file_bytes(v);
        if (s) summary_add_bytes(s, dtype_name(v->dtype), b);
        total += b;
    }
    return total;
}

const char *format_bytes(uint64_t n, char *buf, size_t len) {
    static const char *const units[] = {"bytes", "KB", "MB", "GB", "TB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1000 && u < 4) v /= 1000, u++;
    if (u == 0) snprintf(buf, len, "%" PRIu64 " bytes", n);
    else snprintf(buf, len, "%.1f %s", v, units[u]);
    return buf;
}
