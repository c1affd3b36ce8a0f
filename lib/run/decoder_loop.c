/* decoder_loop.c - the device token loop of the decoder (decoder_loop.h): the prefill runs as a
 * host step without reading the logits back (its run picks the first token on the device), then
 * runtime/loop.c picks every next token on the device and runs up to WNRT_LOOP_STEPS (64) decode steps
 * per submission; the ids it returns are handed out one step at a time so that decoder_generate's
 * loop (decoder_generate.c: timings, on_step) stays the same on either path. */
#include "decoder_loop.h"

#include <stdlib.h>
#include <string.h>

#include "decoder_step.h"
#include "core.h"

void decoder_loop_init(DecoderLoop *L, float temperature, int top_k, float top_p, uint64_t seed) {
    memset(L, 0, sizeof *L);
    L->cfg = (WnrtLoopConfig){.temperature = temperature, .top_k = top_k, .top_p = top_p, .seed = seed};
    L->sampling = temperature > 0;
}

/* Whether this generation can run on the device loop; an error when sampling needs it. */
static int choose(Decoder *d, DecoderLoop *L) {
    WnrtStats st;
    wnrt_stats(d->m, &st);
    const char *env = getenv("WEBNNC_DEVICE_LOOP");
    bool off = env && strcmp(env, "0") == 0;
    L->active = d->g->n_kv > 0 && st.replay && !off;
    L->have = L->used = 0;
    if (!L->active && L->sampling) {
        diag_error("sampling (temperature > 0) runs in the device token loop: it needs a graph with KV caches, replayed "
                   "recordings (not WEBNNC_REPLAY=0) and WEBNNC_DEVICE_LOOP not 0");
        return -1;
    }
    return 0;
}

int decoder_loop_begin(Decoder *d) {
    DecoderLoop *L = d->loop;
    if (!L) return 0;
    if (choose(d, L) < 0) return -1;
    if (!L->active) return 0;
    const Graph *g = d->g;
    L->cfg.input_ids = g->inputs[d->ids]->name;
    L->cfg.position_ids = d->pos >= 0 ? g->inputs[d->pos]->name : NULL;
    L->cfg.attention_mask = d->mask >= 0 ? g->inputs[d->mask]->name : NULL;
    L->cfg.logits = g->outputs[d->logits]->name;
    return wnrt_loop_config(d->m, &L->cfg);
}

/* Tokens asked of the device loop when the k-th new token is due (its buffer empty): the first alone
 * (its time is the TTFT), then the rest, at most DECODER_LOOP_MAX_STEPS at a time. */
static int request(long long k, long long max_new) {
    long long want = k == 0 ? 1 : max_new - k;
    return want < DECODER_LOOP_MAX_STEPS ? (int)want : DECODER_LOOP_MAX_STEPS;
}

int decoder_loop_prepare(Decoder *d, int64_t n_prompt, long long max_new) {
    DecoderLoop *L = d->loop;
    if (!L || !L->active || max_new < 2) return 0;
    return wnrt_loop_prepare(d->m, n_prompt, request(1, max_new)); /* the request after the first token */
}

int decoder_next(Decoder *d, int64_t *tokens, int64_t start, int64_t n, long long k, long long max_new) {
    DecoderLoop *L = d->loop;
    if (!L || !L->active) return decoder_step(d, tokens, start, n - start, &tokens[n]);
    if (k == 0 && decoder_step(d, tokens, start, n - start, NULL) < 0) return -1;
    if (L->used == L->have) {
        int got = wnrt_loop_next(d->m, L->buf, request(k, max_new));
        if (got < 1) return -1;
        L->have = got;
        L->used = 0;
    }
    tokens[n] = L->buf[L->used++];
    return 0;
}
