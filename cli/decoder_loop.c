/* decoder_loop.c - the device token loop for the decoder (decoder_loop.h): the prefill runs as a
 * host step without reading the logits back (its run picks the first token on the device), then
 * runtime/loop.c picks every next token on the
 * device and runs up to WNRT_LOOP_STEPS decode steps per submission; the ids it returns are handed
 * out one step at a time so that decoder_generate's loop (timings, on_step) stays as it is. */
#include "decoder_loop.h"

#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "diag.h"

static int parse_number(const CliCommand *self, const ArgResult *r, const char *opt, double lo, double hi, double *v) {
    const char *s = args_value(r, opt);
    if (!s) return 0;
    char *end;
    *v = strtod(s, &end);
    if (end == s || *end || !(*v >= lo && *v <= hi))
        return cli_usage_error(self, "--%s takes a number in %g..%g, got '%s'", opt, lo, hi, s), -1;
    return 0;
}

int decoder_loop_options(const CliCommand *self, const ArgResult *r, DecoderLoop *o) {
    double t = 0, k = 0, p = 1, seed = 0;
    memset(o, 0, sizeof *o);
    if (parse_number(self, r, "temperature", 0, 1e6, &t) < 0 || parse_number(self, r, "top-k", 0, INT32_MAX, &k) < 0 ||
        parse_number(self, r, "top-p", 1e-9, 1, &p) < 0 || parse_number(self, r, "seed", 0, 9007199254740991.0, &seed) < 0)
        return -1;
    if (k != (double)(int64_t)k || seed != (double)(int64_t)seed)
        return cli_usage_error(self, "--top-k and --seed take whole numbers"), -1;
    if (t == 0 && (args_value(r, "top-k") || args_value(r, "top-p") || args_value(r, "seed")))
        return cli_usage_error(self, "--top-k, --top-p and --seed go with --temperature T > 0 (sampling)"), -1;
    o->cfg = (WnrtLoopConfig){.temperature = (float)t, .top_k = (int)k, .top_p = (float)p, .seed = (uint64_t)seed};
    o->sampling = t > 0;
    return 0;
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
        diag_error("sampling (--temperature) runs in the device token loop: it needs a graph with KV caches, replayed "
                   "recordings (not WEBNNC_REPLAY=0) and WEBNNC_DEVICE_LOOP not 0");
        return -1;
    }
    return 0;
}

int decoder_next(Decoder *d, int64_t *tokens, int64_t start, int64_t n, long long k, long long max_new) {
    DecoderLoop *L = d->loop;
    if (k == 0 && L && choose(d, L) < 0) return -1;
    if (!L || !L->active) return decoder_step(d, tokens, start, n - start, &tokens[n]);
    if (k == 0) {
        const Graph *g = d->g;
        L->cfg.input_ids = g->inputs[d->ids]->name;
        L->cfg.position_ids = d->pos >= 0 ? g->inputs[d->pos]->name : NULL;
        L->cfg.attention_mask = d->mask >= 0 ? g->inputs[d->mask]->name : NULL;
        L->cfg.logits = g->outputs[d->logits]->name;
        if (wnrt_loop_config(d->m, &L->cfg) < 0 || decoder_step(d, tokens, start, n - start, NULL) < 0) return -1;
    }
    if (L->used == L->have) {
        long long want = k == 0 ? 1 : max_new - k; /* the first token alone: its time is the TTFT */
        int got = wnrt_loop_next(d->m, L->buf, want < DECODER_LOOP_MAX_STEPS ? (int)want : DECODER_LOOP_MAX_STEPS);
        if (got < 1) return -1;
        L->have = got;
        L->used = 0;
    }
    tokens[n] = L->buf[L->used++];
    return 0;
}
