/* decoder_step.h - one step of a decoder graph (input_ids [+ attention_mask, position_ids, KV
 * caches] -> logits) on the Vulkan runtime (decoder_step.c): the state of the generation loop
 * (decoder_generate.h) that `webnnc generate` / `webnnc profile` and webnnc_generate share. */
#ifndef WEBNNC_DECODER_STEP_H
#define WEBNNC_DECODER_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "webnnc_runtime.h"

#define MAX_TOKENS 65536

typedef struct Decoder Decoder;
struct Decoder {
    Graph *g;
    WnrtModel *m;
    int ids, mask, pos; /* graph input indices (-1: absent) */
    int logits;         /* graph output index */
    void *out;          /* logits buffer */
    uint64_t out_cap;
    /* optional: after the model is loaded, before the first step (profile: enables the profiler);
     * after step k (0 = prefill) with its wall time (convert_now_s clock), > 0 to stop after it
     * (generate --prompt: an eos id); -1 to fail */
    int (*on_load)(Decoder *d, WnrtContext *ctx);
    int (*on_step)(Decoder *d, long long k, double begin_s, double end_s);
    void *user;
    struct DecoderLoop *loop; /* the device token loop (decoder_loop.h) where it can run; NULL: host argmax */
};

/* Finds the inputs and the logits output; every other input must be a KV cache.  0, or -1 with a
 * diagnostic. */
int decoder_inputs(Decoder *d);
/* The longest total sequence the graph takes: the KV capacity, and each input's length bound. */
int64_t decoder_max_total(const Decoder *d);
/* One step: tokens[start .. start+count) are new, the sequence holds start+count tokens.  Writes the
 * argmax of the last logits row to *next (next NULL: the logits stay on the device). */
int decoder_step(Decoder *d, const int64_t *tokens, int64_t start, int64_t count, int64_t *next);

#endif
