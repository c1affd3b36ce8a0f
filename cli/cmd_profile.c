/* cmd_profile.c - `webnnc profile MODEL|OUTDIR [--prompt-ids I,J,..|--prompt-len N] [--new N]
 * [--fuse all|none|LIST] [--trace FILE] [--json] [--device N] [--fix NAME=N]... [--dim NAME=MAX]...`:
 * greedy decoding (the loop of `webnnc generate`, lib/run/decoder_generate.c; host argmax) of a
 * prefill step and N decode steps with the runtime's profiler on (webnnc_profile.h), then per
 * phase (prefill, decode) the GPU time per op type and per node (timestamps around every
 * dispatch), the host split (shape binding, recording, submit, wait, read-back) and the wall time
 * per step (profile_report.c).  --json prints
 * the same as one object; --trace writes a Chrome trace (profile_trace.c).  Without timestamp
 * support (or with WEBNNC_NO_TIMESTAMPS=1) it says so and reports host times only.  Exit 2 on bad
 * input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "convert.h"
#include "decoder.h"
#include "core.h"
#include "profile_report.h"
#include "webnnc_runtime.h"

static const ArgSpec specs[] = {
    {"prompt-ids", 0, ARG_VALUE, "I,J,...", "prompt token ids (comma-separated)"},
    {"prompt-len", 0, ARG_VALUE, "N", "prompt of N token ids 1, 7920, ... (modulo the vocabulary; default 8)"},
    {"new", 0, ARG_VALUE, "N", "decode steps after the prefill (default 16)"},
    {"fuse", 0, ARG_VALUE, "all|none|LIST", "fuse into extension ops first (default none)"},
    {"trace", 0, ARG_VALUE, "FILE", "write a Chrome trace (Perfetto, chrome://tracing): host and GPU tracks"},
    {"json", 0, ARG_FLAG, NULL, "print the profile as one JSON object"},
    ARG_SPEC_DEVICE,
    {"fix", 0, ARG_LIST, "NAME=N", "ONNX input: freeze dimension NAME to N (as in convert)"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "ONNX input: keep NAME dynamic with upper bound MAX (as in convert)"},
};

typedef struct {
    ProfReport rep;
    ProfInfo info;
    char device[256];
    double t0;
} ProfileRun;

static int on_load(Decoder *d, WnrtContext *ctx) {
    ProfileRun *p = d->user;
    snprintf(p->device, sizeof p->device, "%s", wnrt_context_device(ctx)->name);
    p->info.device = p->device;
    p->info.load_ms = (convert_now_s() - p->t0) * 1e3;
    return wnrt_profile_enable(d->m, &p->info.no_gpu) < 0 || prof_report_model(&p->rep, d->m) < 0 ? -1 : 0;
}

static int on_step(Decoder *d, long long k, double begin_s, double end_s) {
    ProfileRun *p = d->user;
    WnrtProfStep s;
    if (wnrt_profile_take(d->m, &s) < 0) return -1;
    return prof_report_step(&p->rep, k ? 1 : 0, &s, begin_s * 1e9, end_s * 1e9);
}

/* --prompt-ids or --prompt-len into tokens; the count, or -1 after a usage error. */
static int prompt(const CliCommand *self, const ArgResult *r, const Graph *g, int64_t *tokens) {
    const char *ids = args_value(r, "prompt-ids"), *len = args_value(r, "prompt-len");
    if (ids && len) return cli_usage_error(self, "give --prompt-ids or --prompt-len, not both"), -1;
    if (ids) return decoder_parse_ids(self, ids, tokens, MAX_TOKENS - 1);
    long long n = 8;
    char *end = NULL;
    if (len && ((n = strtoll(len, &end, 10)) < 1 || n >= MAX_TOKENS || *end || end == len))
        return cli_usage_error(self, "--prompt-len takes a count 1..%d", MAX_TOKENS - 1), -1;
    int64_t vocab = 0; /* the logits' last dim */
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i]->rank >= 2 && dim_is_static(g->outputs[i]->shape[g->outputs[i]->rank - 1]))
            vocab = vocab ? vocab : g->outputs[i]->shape[g->outputs[i]->rank - 1].v;
    for (long long k = 0; k < n; k++) tokens[k] = vocab > 1 ? (1 + 7919 * k) % vocab : 0;
    return (int)n;
}

int cmd_profile(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    int device;
    unsigned fuse;
    if (args_device(self, &r, &device) < 0 || args_fuse(&r, &fuse) < 0) return WN_EXIT_BAD_INPUT;
    long long steps;
    if (decoder_parse_max_new(self, &r, "new", 16, 1, &steps) < 0) return WN_EXIT_BAD_INPUT;
    const char *path = r.pos[0];
    diag_set_file(path);
    static int64_t tokens[MAX_TOKENS];
    ProfileRun p = {.info = {.model = path, .device = "?", .fuse = args_value(&r, "fuse")}};
    Decoder d = {.on_load = on_load, .on_step = on_step, .user = &p};
    DecoderResult res;
    p.t0 = convert_now_s();
    d.g = decoder_cli_load(self, &r, path, fuse, device, &rc);
    if (!d.g) return rc < 0 ? WN_EXIT_BAD_INPUT : cli_fail(path, rc);
    static const char *const phases[] = {"prefill", "decode"};
    int n_prompt = prompt(self, &r, d.g, tokens);
    if (n_prompt < 0 || steps + 1 > MAX_TOKENS - n_prompt) {
        if (n_prompt >= 0) cli_usage_error(self, "--new takes a count 1..%d", MAX_TOKENS - 1 - n_prompt);
        graph_free(d.g);
        return WN_EXIT_BAD_INPUT;
    }
    const char *trace = args_value(&r, "trace");
    p.info.prompt_tokens = n_prompt;
    p.info.new_tokens = (int)steps;
    rc = prof_report_init(&p.rep, d.g, phases, 2, trace != NULL) < 0 ? WN_EXIT_BAD_INPUT
                                                                       : decoder_generate(&d, device, steps + 1, tokens, n_prompt, &res);
    if (rc == WN_EXIT_OK && trace && prof_trace_write(&p.rep, &p.info, trace) < 0) rc = WN_EXIT_BAD_INPUT;
    if (rc == WN_EXIT_OK) {
        if (args_count(&r, "json")) prof_report_json(&p.rep, &p.info, stdout);
        else prof_report_print(&p.rep, &p.info, stdout);
    }
    prof_report_free(&p.rep);
    free(d.out);
    graph_free(d.g);
    if (rc == WN_EXIT_BAD_INPUT && diag_has_error()) return cli_fail(path, rc);
    return rc;
}
