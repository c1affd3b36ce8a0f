/* decoder_loop.h - the device token loop of the decoder (decoder_loop.c): the next token of each
 * step from runtime/loop.c (picked on the device, greedy or sampled, several steps per submission)
 * instead of the host's argmax of the read-back logits.  Used by decoder_generate
 * (decoder_generate.c), i.e. by `webnnc generate` and webnnc_generate alike. */
#ifndef WEBNNC_DECODER_LOOP_H
#define WEBNNC_DECODER_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "webnnc_runtime.h"

/* Tokens asked of the device loop at a time: twice its largest batch (WEBNNC_LOOP_STEPS=256), so that
 * a request reaches past the batch it starts and the loop captures the next batch while this one
 * runs (runtime/loop.c wnrt_loop_next).  At 64, batches of 64 steps were captured after each wait:
 * H200, Qwen2-0.5B, 128 new tokens, 25 ms with nothing queued, 1155 against 1487-1492 tok/s for 16. */
#define DECODER_LOOP_MAX_STEPS 512

typedef struct DecoderLoop {
    WnrtLoopConfig cfg; /* sampling settings and steps per submission (names set at the prefill) */
    bool sampling;      /* temperature > 0 */
    bool active;        /* this generation runs on the device loop */
    int64_t buf[DECODER_LOOP_MAX_STEPS + 1];
    int have, used;
} DecoderLoop;

/* Greedy (temperature 0: the exact argmax, top_k / top_p / seed unused) or sampling settings. */
void decoder_loop_init(DecoderLoop *L, float temperature, int top_k, float top_p, uint64_t seed);

typedef struct Decoder Decoder;
/* Chooses between the device loop and host steps for a new generation and configures the loop
 * (wnrt_loop_config); before the first run and decoder_next, so that the pipelines warmed at load
 * include the token pick.  0 or -1 with a diagnostic (sampling where the device loop cannot run). */
int decoder_loop_begin(Decoder *d);
/* After the warm-up: the device loop's command buffer for the batch decoder_next asks for first,
 * recorded at load (wnrt_loop_prepare) instead of inside the decode.  0 or -1 with a diagnostic. */
int decoder_loop_prepare(Decoder *d, int64_t n_prompt, long long max_new);
/* The k-th new token (0: after the prefill) into tokens[n]: tokens[start .. n) are the step's new
 * tokens.  On the device loop when d->loop allows it (KV caches, replayed recordings, and
 * WEBNNC_DEVICE_LOOP not 0), else decoder_step (d->loop NULL: always).  0 or -1 with a diagnostic
 * (also when sampling is asked for and the device loop cannot run). */
int decoder_next(Decoder *d, int64_t *tokens, int64_t start, int64_t n, long long k, long long max_new);

#endif
