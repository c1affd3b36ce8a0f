/* capacity_fit.c - lowering the sequence capacity of a GenAI conversion to what the device can
 * allocate (see capacity_fit.h).  The largest tensor usually grows with the square of the capacity
 * (attention scores [heads, S, T]), so the next try is the capacity scaled by the square root of
 * limit / largest, rounded down to a power of two; each try is at most half the previous one. */
#include "capacity_fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "webnnc_runtime.h"

static const char *const TOTAL = "total_sequence_length";

uint64_t run_graph_largest_tensor_bytes(const Graph *g) {
    uint64_t best = 0;
    for (int i = 0; i < g->n_values; i++) {
        const Value *v = g->values[i];
        double n = 1;
        for (int d = 0; d < v->rank; d++) n *= (double)(dim_max(v->shape[d]) > 0 ? dim_max(v->shape[d]) : 1);
        double bytes = n * dtype_bits(v->dtype) / 8;
        if (bytes > (double)best) best = bytes >= 1.8e19 ? UINT64_MAX : (uint64_t)bytes;
    }
    return best;
}

/* The device's maximum buffer size (the smallest over all devices for auto), 0 when unknown. */
static uint64_t device_limit(int device) {
    int n = wnrt_device_count();
    uint64_t limit = 0;
    for (int i = 0; i < n; i++) {
        WnrtDeviceInfo info;
        if ((device >= 0 && i != device) || wnrt_device_info(i, &info) < 0) continue;
        if (!limit || info.max_buffer_size < limit) limit = info.max_buffer_size;
    }
    diag_clear(); /* no device: the run reports it */
    return limit;
}

static bool names_total(const DimSettingList *l) {
    for (int i = 0; i < l->count; i++)
        if (!strcmp(l->items[i].name, TOTAL)) return true;
    return false;
}

/* The capacity the graph was converted with: its KV caches', else the total length's bound. */
static int64_t graph_capacity(const Graph *g) {
    if (g->n_kv) return g->kv[0].capacity;
    for (int s = 0; s < g->n_symbols; s++)
        if (!strcmp(g->symbols[s].name, TOTAL)) return g->symbols[s].max_size;
    return 0;
}

Graph *run_convert_onnx_fitting(const char *input, const ConvertOptions *opt, int device, size_t *onnx_nodes,
                            int *exit_code) {
    bool user_set = names_total(opt->fix) || names_total(opt->dim);
    uint64_t limit = user_set ? 0 : device_limit(device);
    static DimSettingList fix, dim;
    int64_t first = 0, cap = 0;
    uint64_t first_bytes = 0;
    for (;;) {
        fix = *opt->fix; /* convert_onnx appends the GenAI defaults to the lists it is given */
        dim = *opt->dim;
        if (cap && dim.count < CONVERT_MAX_DIMS) dim.items[dim.count++] = (DimSetting){TOTAL, cap};
        ConvertOptions o = *opt;
        o.fix = &fix;
        o.dim = &dim;
        Graph *g = convert_onnx(input, &o, onnx_nodes, exit_code);
        if (!g || !limit) return g;
        uint64_t big = run_graph_largest_tensor_bytes(g);
        int64_t now = graph_capacity(g);
        if (big <= limit || now <= 1) {
            if (cap)
                fprintf(stderr, "webnnc: note: %s lowered from %lld to %lld: at %lld the largest tensor (%llu bytes) exceeds "
                                "the device's maximum buffer size %llu; choose it with --dim %s=N (N <= %lld fits)\n",
                        TOTAL, (long long)first, (long long)cap, (long long)first, (unsigned long long)first_bytes,
                        (unsigned long long)limit, TOTAL, (long long)cap);
            return g;
        }
        if (!first) first = now, first_bytes = big;
        graph_free(g);
        double scaled = (double)now * sqrt((double)limit / (double)big);
        int64_t next = 1;
        while (next * 2 <= scaled && next * 2 <= now / 2) next *= 2;
        cap = next;
    }
}
