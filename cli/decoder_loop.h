/* decoder_loop.h - the device token loop for the decoder (decoder_loop.c): `generate`'s sampling
 * options and the next token of each step from runtime/loop.c (picked on the device, submitted
 * several steps at a time) instead of the host's argmax of the read-back logits. */
#ifndef WEBNNC_CLI_DECODER_LOOP_H
#define WEBNNC_CLI_DECODER_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "webnnc_runtime.h"

#define DECODER_LOOP_MAX_STEPS 64

/* generate's options (ArgSpec entries) */
#define DECODER_LOOP_ARG_SPECS                                                                                         \
    {"temperature", 0, ARG_VALUE, "T", "sample on the device at temperature T > 0 (default 0: greedy, the exact argmax)"}, \
    {"top-k", 0, ARG_VALUE, "K", "sampling: keep the K most likely tokens (default 0: all)"},                          \
    {"top-p", 0, ARG_VALUE, "P", "sampling: then the fewest most likely tokens whose probability reaches P (default 1)"}, \
    {"seed", 0, ARG_VALUE, "N", "sampling: random seed (default 0); the same seed gives the same tokens"}

typedef struct DecoderLoop {
    WnrtLoopConfig cfg; /* sampling settings and steps per submission (names set at the prefill) */
    bool sampling;      /* --temperature > 0 */
    bool active;        /* this generation runs on the device loop */
    int64_t buf[DECODER_LOOP_MAX_STEPS + 1];
    int have, used;
} DecoderLoop;

/* Parses the options into *o (greedy when none is given).  0, or -1 after a usage error. */
int decoder_loop_options(const CliCommand *self, const ArgResult *r, DecoderLoop *o);

typedef struct Decoder Decoder;
/* The k-th new token (0: after the prefill) into tokens[n]: tokens[start .. n) are the step's new
 * tokens.  On the device loop when d->loop allows it (KV caches, replayed recordings, and
 * WEBNNC_DEVICE_LOOP not 0), else decoder_step.  0 or -1 with a diagnostic. */
int decoder_next(Decoder *d, int64_t *tokens, int64_t start, int64_t n, long long k, long long max_new);

#endif
