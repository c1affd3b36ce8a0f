/* decoder_generate.h - the decoding loop (decoder_generate.c) shared by `webnnc generate`,
 * `webnnc profile` and webnnc_generate: the decoder graph of a model (converted in memory, head on
 * the last position), then a prefill step and one step per new token with the KV caches resident
 * on the device, each next token from the device token loop (decoder_loop.h) where it can run,
 * else the host's argmax; stop conditions, timings and runtime statistics in a DecoderResult.
 * Nothing is printed here but the verbose statistics of decoder_print_stats. */
#ifndef WEBNNC_DECODER_GENERATE_H
#define WEBNNC_DECODER_GENERATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "convert.h"
#include "decoder_loop.h"
#include "decoder_step.h"

/* Only the next token's logits are used: runs pass last_logits on g (the head on the last
 * position) unless WEBNNC_ALL_LOGITS=1 keeps every position (to compare).  Returns g, or NULL (g
 * freed) + diagnostic. */
Graph *decoder_last_logits(Graph *g);
/* The decoder graph of PATH: a webnn-graph read and fused with copt->fuse_mask, or an ONNX model
 * converted with copt (KV capacity lowered to fit device `device`, capacity_fit.h);
 * decoder_last_logits applied.  NULL + diagnostic, *code the exit code. */
Graph *decoder_load_graph(const char *path, const ConvertOptions *copt, int device, int *code);

typedef struct {
    double load_s;     /* context creation, graph load, caches made resident, pipelines warmed */
    double ttft_s;     /* the prefill step (time to first token) */
    double decode_s;   /* the steps after the first */
    int warmed;        /* dispatch plans whose pipelines were created at load (WEBNNC_WARM=0: none) */
    int64_t n_generated; /* new tokens: max_new, or fewer when on_step stopped at one */
    bool kv_resident;  /* the graph has KV caches, kept on the device */
    char device[256];  /* the Vulkan device's name */
    WnrtStats stats;   /* the runtime's statistics after the last step */
} DecoderResult;

/* Prefill + up to max_new - 1 decode steps on device `device` (-1: auto); tokens[0 .. n_prompt)
 * is the prompt, tokens[n_prompt ..] (room for max_new) receives the new ids.  Checks the graph's
 * inputs (decoder_inputs), its length against n_prompt + max_new - 1 and the prompt ids against
 * the vocabulary.  d->g set; d->loop, on_load, on_step optional; d->m is NULL again after.
 * Returns WN_EXIT_OK, or WN_EXIT_BAD_INPUT + diagnostic. */
int decoder_generate(Decoder *d, int device, long long max_new, int64_t *tokens, int n_prompt, DecoderResult *res);

/* The verbose lines of `generate -v` (runtime recordings, device loop submissions, warmed plans). */
void decoder_print_stats(FILE *f, const DecoderResult *res);

#endif
