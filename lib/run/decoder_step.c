/* decoder_step.c - one step of a decoder graph on the runtime (decoder_step.h): finds input_ids,
 * attention_mask, position_ids and the logits, binds them for the step's tokens, runs, and picks
 * the argmax of the last logits row.  Run by the generation loop (decoder_generate.c). */
#include "decoder_step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "kv_io.h"
#include "tensor_compare.h"

static bool named(const Value *v, const char *name) {
    return strcmp(v->name, name) == 0 || (v->origin && strcmp(v->origin, name) == 0);
}

static int find_value(Value **vals, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (named(vals[i], name)) return i;
    return -1;
}

int decoder_inputs(Decoder *d) {
    Graph *g = d->g;
    d->ids = find_value(g->inputs, g->n_inputs, "input_ids");
    d->mask = find_value(g->inputs, g->n_inputs, "attention_mask");
    d->pos = find_value(g->inputs, g->n_inputs, "position_ids");
    d->logits = find_value(g->outputs, g->n_outputs, "logits");
    if (d->ids < 0 || d->logits < 0) {
        diag_error("generate needs an input named input_ids and an output named logits");
        return -1;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        if (i != d->ids && i != d->mask && i != d->pos && !run_kv_binding_of(g, v, false)) {
            diag_error("input %s: generate feeds only input_ids, attention_mask, position_ids and KV caches",
                       value_display_name(v));
            return -1;
        }
        if ((i == d->ids || i == d->mask || i == d->pos) && (v->rank != 2 || !dtype_is_int(v->dtype))) {
            diag_error("input %s: expected an integer tensor [batch, length]", value_display_name(v));
            return -1;
        }
    }
    if (g->n_kv && d->mask < 0) {
        diag_error("a graph with KV caches needs an attention_mask input (it carries the total length)");
        return -1;
    }
    const Value *lg = g->outputs[d->logits];
    if (lg->rank < 2 || !dtype_is_float(lg->dtype)) {
        diag_error("output %s: expected float logits [.., length, vocab]", value_display_name(lg));
        return -1;
    }
    return 0;
}

int64_t decoder_max_total(const Decoder *d) {
    const Graph *g = d->g;
    int64_t best = g->inputs[d->ids]->shape[1].v;
    if (g->n_kv) best = INT64_MAX; /* with caches input_ids holds only the new tokens */
    for (int i = 0; i < g->n_kv; i++)
        if (g->kv[i].capacity < best) best = g->kv[i].capacity;
    if (d->mask >= 0 && g->inputs[d->mask]->shape[1].v < best) best = g->inputs[d->mask]->shape[1].v;
    return best;
}

/* Binds integer input `i` as [1, n] from values vals (converted to the input's 32/64-bit dtype). */
static int bind_ints(Decoder *d, int i, const int64_t *vals, int64_t n) {
    const Value *v = d->g->inputs[i];
    int bits = dtype_bits(v->dtype);
    if (bits != 32 && bits != 64) {
        diag_error("input %s: %s is not supported (32 or 64-bit integers)", value_display_name(v), dtype_name(v->dtype));
        return -1;
    }
    uint64_t nbytes = dtype_storage_bytes(v->dtype, (uint64_t)n);
    uint8_t *buf = malloc(nbytes ? (size_t)nbytes : 1);
    if (!buf) {
        diag_error("out of memory");
        return -1;
    }
    for (int64_t k = 0; k < n; k++) {
        if (bits == 64) memcpy(buf + 8 * k, &vals[k], 8);
        else memcpy(buf + 4 * k, &(int32_t){(int32_t)vals[k]}, 4);
    }
    int rc = wnrt_bind_input(d->m, v->name, buf, nbytes, 2, (int64_t[]){1, n});
    free(buf);
    return rc;
}

int decoder_step(Decoder *d, const int64_t *tokens, int64_t start, int64_t count, int64_t *next) {
    static int64_t scratch[MAX_TOKENS];
    int64_t total = start + count;
    if (bind_ints(d, d->ids, tokens + start, count) < 0) return -1;
    if (d->mask >= 0) {
        for (int64_t k = 0; k < total; k++) scratch[k] = 1;
        if (bind_ints(d, d->mask, scratch, total) < 0) return -1;
    }
    if (d->pos >= 0) {
        for (int64_t k = 0; k < count; k++) scratch[k] = start + k;
        if (bind_ints(d, d->pos, scratch, count) < 0) return -1;
    }
    WnrtTensorInfo info;
    if (wnrt_run(d->m) < 0) return -1;
    if (!next) return 0; /* the device token loop picks from the logits (decoder_loop.c) */
    if (wnrt_output_info(d->m, d->logits, &info) < 0) return -1;
    if (info.nbytes > d->out_cap) {
        free(d->out);
        d->out_cap = 0;
        if (!(d->out = malloc((size_t)info.nbytes))) {
            diag_error("out of memory");
            return -1;
        }
        d->out_cap = info.nbytes;
    }
    if (wnrt_read_output(d->m, d->logits, d->out, d->out_cap) < 0) return -1;
    int64_t vocab = info.shape[info.rank - 1];
    uint64_t numel = 1;
    for (int k = 0; k < info.rank; k++) numel *= (uint64_t)info.shape[k];
    if (vocab <= 0 || numel < (uint64_t)vocab) {
        diag_error("output %s: empty logits", info.name);
        return -1;
    }
    uint64_t row = numel - (uint64_t)vocab;
    double best = run_tensor_elem(info.dtype, d->out, row);
    bool finite = !isnan(best);
    *next = 0;
    for (int64_t k = 1; k < vocab; k++) {
        double x = run_tensor_elem(info.dtype, d->out, row + (uint64_t)k);
        finite = finite || !isnan(x);
        if (x > best) best = x, *next = k;
    }
    if (!finite) { /* as the device loop's pick (runtime/shaders/next_token.comp) */
        diag_error("output %s: every logit at position %lld is NaN (the graph computed NaN)", info.name, (long long)(total - 1));
        return -1;
    }
    return 0;
}
