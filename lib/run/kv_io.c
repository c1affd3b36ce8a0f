/* kv_io.c - ONNX-interface KV tensors <-> fixed-capacity caches (kv_io.h): a past of P rows goes to
 * rows 0..P-1 of a zeroed [.., C, ..] cache; a present is cut back to its first `total` rows. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "kv_io.h"

const KvBinding *run_kv_binding_of(const Graph *g, const Value *v, bool present) {
    for (int i = 0; i < g->n_kv; i++)
        if (strcmp(present ? g->kv[i].present : g->kv[i].past, v->name) == 0) return &g->kv[i];
    return NULL;
}

/* Element size in bytes (caches are byte-addressable types), 0 if not. */
static uint64_t elem_bytes(DType dt) { return dtype_bits(dt) % 8 == 0 && dtype_bits(dt) > 0 ? (uint64_t)dtype_bits(dt) / 8 : 0; }

/* outer = product of dims before axis, inner = bytes of one row (dims after axis); 0 or -1. */
static int row_geometry(int rank, const int64_t *shape, int axis, DType dt, uint64_t *outer, uint64_t *inner) {
    uint64_t es = elem_bytes(dt);
    if (!es || axis < 0 || axis >= rank) return -1;
    *outer = 1;
    *inner = es;
    for (int d = 0; d < rank; d++) {
        if (d == axis) continue;
        if (shape[d] <= 0 || shape[d] > (int64_t)1 << 31) return -1;
        uint64_t *p = d < axis ? outer : inner;
        if (*p > ((uint64_t)1 << 40) / (uint64_t)shape[d]) return -1;
        *p *= (uint64_t)shape[d];
    }
    return 0;
}

void *run_kv_expand_past(const KvBinding *b, const Value *past, DType dt, int rank, const int64_t *shape, const void *data,
                     uint64_t *nbytes) {
    const char *name = value_display_name(past);
    if (dt != past->dtype || rank != past->rank || !value_is_static(past)) {
        diag_error("KV cache %s: tensor must be %s of rank %d", name, dtype_name(past->dtype), past->rank);
        return NULL;
    }
    int64_t full[WN_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        full[d] = past->shape[d].v;
        if (d != b->axis && shape[d] != full[d]) {
            diag_error("KV cache %s: dimension %d is %lld, the graph has %lld", name, d, (long long)shape[d], (long long)full[d]);
            return NULL;
        }
    }
    int64_t rows = shape[b->axis], cap = full[b->axis];
    uint64_t outer, inner;
    if (row_geometry(rank, full, b->axis, dt, &outer, &inner) < 0 || cap <= 0 || outer * inner > ((uint64_t)1 << 40) / (uint64_t)cap) {
        diag_error("KV cache %s: unsupported cache type or size", name);
        return NULL;
    }
    if (rows < 0 || rows > cap) {
        diag_error("KV cache %s: past length %lld is outside 0..%lld (the cache capacity)", name, (long long)rows, (long long)cap);
        return NULL;
    }
    *nbytes = outer * inner * (uint64_t)cap;
    uint8_t *out = calloc(1, *nbytes ? (size_t)*nbytes : 1);
    if (!out) {
        diag_error("out of memory");
        return NULL;
    }
    const uint8_t *src = data;
    for (uint64_t o = 0; o < outer && rows > 0; o++)
        memcpy(out + o * inner * (uint64_t)cap, src + o * inner * (uint64_t)rows, inner * (uint64_t)rows);
    return out;
}

int run_kv_cut_present(const KvBinding *b, DType dt, int rank, int64_t *shape, void *data, int64_t rows) {
    uint64_t outer, inner;
    int64_t cap = b->axis >= 0 && b->axis < rank ? shape[b->axis] : 0;
    if (row_geometry(rank, shape, b->axis, dt, &outer, &inner) < 0 || rows <= 0 || rows > cap) {
        diag_error("KV cache %s: cannot take %lld rows of a cache of %lld", b->present, (long long)rows, (long long)cap);
        return -1;
    }
    uint8_t *p = data;
    for (uint64_t o = 0; o < outer; o++) /* destination never overtakes the source: forward memmove */
        memmove(p + o * inner * (uint64_t)rows, p + o * inner * (uint64_t)cap, inner * (uint64_t)rows);
    shape[b->axis] = rows;
    return 0;
}

int64_t run_kv_total_length(const Graph *g, const KvBinding *b, int64_t (*shapes)[WN_MAX_RANK]) {
    for (int i = 0; b->total_dim && i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        for (int d = 0; d < v->rank; d++) {
            const char *s = dim_symbol_name(g, v->shape[d]);
            if (s && strcmp(s, b->total_dim) == 0) return shapes[i][d];
        }
    }
    diag_error("KV cache %s: no graph input carries its total length (%s)", b->present, b->total_dim ? b->total_dim : "no dim named");
    return -1;
}
