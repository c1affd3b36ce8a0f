/* write_plan.c - picks the written inputs/consts/outputs, their order, each constant's storage
 * kind, weights deduplication and offsets (rules in write_plan.h). */
#include "write_plan.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "core.h"
#include "tensor_codec.h"

static int by_name(const void *a, const void *b) {
    return strcmp((*(const Value *const *)a)->name, (*(const Value *const *)b)->name);
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) abort();
    return p;
}

int wn_tensor_file_bytes(const Value *v, uint64_t elements,
                      int (*sink)(void *ctx, const void *bytes, uint64_t n), void *ctx) {
    if (!dtype_is_4bit(v->dtype)) return sink(ctx, v->data, elements * file_elem_bytes(v->dtype));
    enum { CHUNK = 1 << 16 };
    uint8_t buf[CHUNK];
    for (uint64_t done = 0; done < elements;) {
        uint64_t n = elements - done < CHUNK ? elements - done : CHUNK;
        wn_nibbles_unpack(v->data, done, n, buf);
        int rc = sink(ctx, buf, n);
        if (rc) return rc;
        done += n;
    }
    return 0;
}

static int hash_sink(void *ctx, const void *bytes, uint64_t n) {
    return XXH64_update(ctx, bytes, (size_t)n) == XXH_OK ? 0 : -1;
}

static uint64_t hash_tensor(const Value *v, uint64_t elements) {
    XXH64_state_t *st = XXH64_createState();
    if (!st) abort();
    XXH64_reset(st, 0);
    wn_tensor_file_bytes(v, elements, hash_sink, st);
    uint64_t h = XXH64_digest(st);
    XXH64_freeState(st);
    return h;
}

/* Checks a constant's declared size against its shape; returns its element count or -1. */
static int64_t const_elements(const Value *v) {
    uint64_t n = 1;
    for (int i = 0; i < v->rank; i++) {
        if (!dim_is_static(v->shape[i]) || v->shape[i].v <= 0 || !checked_mul_u64(n, (uint64_t)v->shape[i].v, &n)) {
            diag_error("constant '%s': shape must be static with dims > 0", value_display_name(v));
            return -1;
        }
    }
    if (n > (1ull << 62) || v->nbytes != dtype_storage_bytes(v->dtype, n) || (n && !v->data)) {
        diag_error("constant '%s': holds %llu bytes, its type needs %llu", value_display_name(v),
                   (unsigned long long)v->nbytes, (unsigned long long)dtype_storage_bytes(v->dtype, n));
        return -1;
    }
    return (int64_t)n;
}

static bool same_type(const Value *a, const Value *b) {
    if (a->dtype != b->dtype || a->rank != b->rank) return false;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i].v != b->shape[i].v) return false;
    return true;
}

uint64_t wn_write_plan_next_offset(const WritePlan *p) {
    const PlannedTensor *last = p->n_tensors ? &p->tensors[p->n_tensors - 1] : NULL;
    uint64_t end = last ? last->offset + last->length : WN_WEIGHTS_HEADER;
    return (end + p->align - 1) / p->align * p->align;
}

bool wn_write_plan_place(WritePlan *p, PlannedConst *c, uint64_t hash) {
    size_t i = (size_t)hash & p->dedup_mask;
    for (; p->dedup[i] >= 0; i = (i + 1) & p->dedup_mask) {
        const PlannedTensor *t = &p->tensors[p->dedup[i]];
        if (t->hash == hash && same_type(t->v, c->v) &&
            wn_tensor_bytes_equal(c->v->dtype, c->elements, t->v->data, c->v->data)) {
            c->tensor = p->dedup[i];
            return false;
        }
    }
    PlannedTensor *t = &p->tensors[p->n_tensors];
    t->v = c->v;
    t->elements = c->elements;
    t->offset = wn_write_plan_next_offset(p);
    t->length = c->elements * file_elem_bytes(c->v->dtype);
    t->hash = hash;
    p->weights_size = t->offset + t->length;
    c->tensor = p->dedup[i] = p->n_tensors++;
    return true;
}

int wn_write_plan_begin(const Graph *g, WritePlan *p) {
    memset(p, 0, sizeof *p);
    p->n_values = g->n_values;
    p->const_index = xcalloc((size_t)g->n_values, sizeof *p->const_index);
    unsigned char *used = xcalloc((size_t)g->n_values, 1);
    for (int i = 0; i < g->n_values; i++) p->const_index[i] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        if (n->dead) continue;
        for (int j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] && n->inputs[j]->id >= 0 && n->inputs[j]->id < g->n_values) used[n->inputs[j]->id] = 1;
    }
    p->outputs = xcalloc((size_t)g->n_outputs, sizeof *p->outputs);
    for (int i = 0; i < g->n_outputs; i++) {
        const Value *v = g->outputs[i];
        if (v->id < 0 || v->id >= g->n_values) continue;
        if (used[v->id] & 2) continue; /* listed twice */
        used[v->id] |= 3;
        p->outputs[p->n_outputs++] = v;
    }
    qsort(p->outputs, (size_t)p->n_outputs, sizeof *p->outputs, by_name);
    p->inputs = xcalloc((size_t)g->n_inputs, sizeof *p->inputs);
    for (int i = 0; i < g->n_inputs; i++) p->inputs[p->n_inputs++] = g->inputs[i];
    qsort(p->inputs, (size_t)p->n_inputs, sizeof *p->inputs, by_name);

    const Value **consts = xcalloc((size_t)g->n_values, sizeof *consts);
    int nc = 0;
    for (int i = 0; i < g->n_values; i++)
        if ((g->values[i]->flags & VF_CONST) && used[i]) consts[nc++] = g->values[i];
    free(used);
    qsort(consts, (size_t)nc, sizeof *consts, by_name);
    p->consts = xcalloc((size_t)nc, sizeof *p->consts);
    p->tensors = xcalloc((size_t)nc, sizeof *p->tensors);
    size_t cap = 16;
    while (cap < (size_t)nc * 2) cap *= 2;
    p->dedup = malloc(cap * sizeof *p->dedup);
    if (!p->dedup) abort();
    memset(p->dedup, 0xFF, cap * sizeof *p->dedup);
    p->dedup_mask = cap - 1;
    p->weights_size = WN_WEIGHTS_HEADER;
    p->align = WN_WEIGHTS_ALIGN;
    int rc = 0;
    for (int i = 0; i < nc; i++) {
        PlannedConst *c = &p->consts[p->n_consts++];
        c->v = consts[i];
        c->tensor = -1;
        p->const_index[c->v->id] = i;
        int64_t n = const_elements(c->v);
        if (n < 0) {
            rc = -1;
            break;
        }
        if (wn_tensor_scalar_value(c->v->dtype, (uint64_t)n, c->v->data, &c->scalar)) {
            c->kind = CONST_SCALAR;
            file_map_release(c->v->data, c->v->nbytes); /* read whole: don't keep it resident */
        } else if (n <= WN_INLINE_MAX_ELEMENTS) {
            c->kind = CONST_INLINE;
        } else {
            c->kind = CONST_WEIGHTS;
        }
        c->elements = (uint64_t)n;
    }
    free(consts);
    if (rc) wn_write_plan_free(p);
    return rc;
}

int wn_write_plan_build(const Graph *g, WritePlan *p) {
    if (wn_write_plan_begin(g, p)) return -1;
    for (int i = 0; i < p->n_consts; i++) {
        PlannedConst *c = &p->consts[i];
        if (c->kind != CONST_WEIGHTS) continue;
        wn_write_plan_place(p, c, hash_tensor(c->v, c->elements));
        file_map_release(c->v->data, c->v->nbytes);
    }
    return 0;
}

void wn_write_plan_free(WritePlan *p) {
    free(p->inputs);
    free(p->consts);
    free(p->tensors);
    free(p->outputs);
    free(p->const_index);
    free(p->dedup);
    memset(p, 0, sizeof *p);
}

const PlannedConst *wn_write_plan_const(const WritePlan *p, const Value *v) {
    if (!v || v->id < 0 || v->id >= p->n_values || p->const_index[v->id] < 0) return NULL;
    return &p->consts[p->const_index[v->id]];
}
