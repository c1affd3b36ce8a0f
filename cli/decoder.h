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
#include "decoder_step.h"
#include "webnnc_runtime.h"

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
/* Prefill + max_new - 1 decode steps on device `device`; tokens[n_prompt ..] receive the new ids.
 * Prints the ids (stdout) and TTFT / tokens/s (stderr) unless quiet.  An exit code. */
int decoder_generate(Decoder *d, int device, long long max_new, int64_t *tokens, int n_prompt);

#endif
