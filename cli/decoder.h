/* decoder.h - the CLI side of the decoding loop (decoder.c) for `webnnc generate` and `webnnc
 * profile`: parsing --prompt-ids, --max-new, --fix/--dim and the sampling options, and printing
 * the ids (stdout, or --json) and the timing line (stderr).  The loop itself is
 * lib/run/decoder_generate.c (shared with webnnc_generate). */
#ifndef WEBNNC_CLI_DECODER_H
#define WEBNNC_CLI_DECODER_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "run.h"
#include "report.h"

/* generate's sampling options (ArgSpec entries), parsed by decoder_loop_options */
#define DECODER_LOOP_ARG_SPECS                                                                                         \
    {"temperature", 0, ARG_VALUE, "T", "sample on the device at temperature T > 0 (default 0: greedy, the exact argmax)"}, \
    {"top-k", 0, ARG_VALUE, "K", "sampling: keep the K most likely tokens (default 0: all)"},                          \
    {"top-p", 0, ARG_VALUE, "P", "sampling: then the fewest most likely tokens whose probability reaches P (default 1)"}, \
    {"seed", 0, ARG_VALUE, "N", "sampling: random seed (default 0); the same seed gives the same tokens"}

/* Parses "1,17,42" into ids; returns the count, or -1 after a usage error. */
int decoder_parse_ids(const CliCommand *self, const char *s, int64_t *ids, int max);
/* decoder_load_graph (lib/run) with --fix/--dim/-v of r and fuse.  NULL with *code the exit code
 * (-1: usage error already printed). */
Graph *decoder_cli_load(const CliCommand *self, const ArgResult *r, const char *path, unsigned fuse, int device,
                        int *code);
/* --OPT N (generate: --max-new, default 12) -> *max_new; 0 or -1 after a usage error. */
int decoder_parse_max_new(const CliCommand *self, const ArgResult *r, const char *opt, long long def, int n_prompt,
                          long long *max_new);
/* --temperature/--top-k/--top-p/--seed into *o (greedy when none is given).  0, or -1 after a
 * usage error. */
int decoder_loop_options(const CliCommand *self, const ArgResult *r, DecoderLoop *o);

typedef struct {
    bool hide_ids;        /* the caller prints the result (generate --prompt streams text) */
    bool verbose;         /* -v: the runtime's recording statistics on stderr after the timing line */
    struct cJSON *report; /* --json: the ids and timings go here instead of stdout */
    int64_t n_generated;  /* after decoder_generate_print: new tokens (fewer than max_new after a stop) */
} DecoderPrint;

/* decoder_generate (lib/run), then the ids on stdout (or in p->report) and the TTFT / tokens/s line
 * on stderr.  An exit code. */
int decoder_generate_print(Decoder *d, DecoderPrint *p, int device, long long max_new, int64_t *tokens, int n_prompt);

#endif
