/* decoder.h - the greedy decoding loop shared by `webnnc generate` and `webnnc profile`
 * (decoder.c): the graph's inputs (input_ids, attention_mask, position_ids, KV caches), one
 * prefill step and one step per new token with the caches resident on the device, argmax of the
 * last logits row on the host. */
#ifndef WEBNNC_CLI_DECODER_H
#define WEBNNC_CLI_DECODER_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "report.h"
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
    /* optional (profile): after the model is loaded, before the first step; after step k
     * (0 = prefill) with its wall time (cli_now_s clock); quiet: print neither the ids nor the timing line */
    int (*on_load)(Decoder *d, WnrtContext *ctx);
    int (*on_step)(Decoder *d, long long k, double begin_s, double end_s); /* > 0: stop after step k */
    void *user;
    bool quiet;
    bool hide_ids;   /* the caller prints the result (generate --prompt streams text) */
    int64_t n_generated; /* after decoder_generate: new tokens (fewer than max_new after a stop token) */
    bool verbose;  /* -v: the runtime's recording statistics on stderr after the timing line */
    cJSON *report; /* --json: the ids and timings go here instead of stdout */
    struct DecoderLoop *loop; /* generate: the device token loop (decoder_loop.h); NULL: host argmax */
};

/* Parses "1,17,42" into ids; returns the count, or -1 after a usage error. */
int decoder_parse_ids(const CliCommand *self, const char *s, int64_t *ids, int max);
/* A webnn-graph (fused with `fuse`) or an ONNX model converted in memory (--fix/--dim of r; KV
 * capacity lowered to fit device `device`).  NULL
 * with *code the exit code (-1: usage error already printed). */
Graph *decoder_load_graph(const CliCommand *self, const ArgResult *r, const char *path, unsigned fuse, int device,
                          int *code);
/* --OPT N (generate: --max-new, default 12) -> *max_new; 0 or -1 after a usage error. */
int decoder_parse_max_new(const CliCommand *self, const ArgResult *r, const char *opt, long long def, int n_prompt,
                          long long *max_new);
/* One step: tokens[start .. start+count) are new, the sequence holds start+count tokens.  Writes the
 * argmax of the last logits row to *next (next NULL: the logits stay on the device). */
int decoder_step(Decoder *d, const int64_t *tokens, int64_t start, int64_t count, int64_t *next);
/* Prefill + max_new - 1 decode steps on device `device`; tokens[n_prompt ..] receive the new ids.
 * Prints the ids (stdout) and TTFT / tokens/s (stderr) unless quiet.  An exit code. */
int decoder_generate(Decoder *d, int device, long long max_new, int64_t *tokens, int n_prompt);

#endif
