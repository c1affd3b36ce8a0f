/* cmd_generate.c - `webnnc generate MODEL (--prompt-ids 1,17,42,99 | --prompt TEXT [--ids])
 * --max-new 12 [--temperature T [--top-k K] [--top-p P] [--seed N]] [--device N] [--fuse all|none|LIST]
 * [--fix NAME=N]... [--dim NAME=MAX]... [-v] [--json]`: greedy decoding (or sampling) on the Vulkan runtime.
 *
 * MODEL is a webnn-graph (file or output folder) or an ONNX model (file or folder), converted in
 * memory first by convert's pipeline (convert_pipeline.c).  The graph's inputs must be input_ids,
 * optionally attention_mask and position_ids, and KV caches (Graph.kv bindings).  With caches, the
 * prompt is the prefill step and each later step feeds the one new token; the caches stay on the
 * device (wnrt_kv_resident: the present of a step is the next step's past, nothing is copied
 * between host and device).  Without caches (e.g. torch-dynamo exports) every step feeds the whole
 * sequence so far.  The next token is the argmax of the last logits row (first index on ties),
 * picked on the device with KV caches (lib/run/decoder_loop.c, runtime/loop.c: several steps per
 * submission, only the ids read back; sampling options there only), else on the host.
 * Prints the generated ids (comma-separated) on stdout; time to first token and decode tokens/s
 * on stderr.  With --prompt the model folder's tokenizer encodes the text and the generated text
 * streams to stdout as tokens arrive, ending at an eos id of genai_config.json (generate_text.c);
 * --ids adds a line with the ids.  Exit 2 on bad input.  The loop is lib/run/decoder_generate.c
 * (shared with `webnnc profile` and webnnc_generate); decoder.c parses its options and prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "decoder.h"
#include "core.h"
#include "generate_text.h"

static const ArgSpec specs[] = {
    {"prompt-ids", 0, ARG_VALUE, "I,J,...", "prompt token ids (comma-separated)"},
    {"prompt", 0, ARG_VALUE, "TEXT", "prompt text, tokenized with the model folder's tokenizer.json; the output streams as text "
                                     "and stops at an eos id of genai_config.json"},
    {"ids", 0, ARG_FLAG, NULL, "with --prompt: also print the generated ids (a last line)"},
    {"max-new", 0, ARG_VALUE, "N", "tokens to generate (default 12)"},
    ARG_SPEC_DEVICE,
    {"fuse", 0, ARG_VALUE, "all|none|LIST", "fuse into extension ops first (default none)"},
    {"fix", 0, ARG_LIST, "NAME=N", "ONNX input: freeze dimension NAME to N (as in convert)"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "ONNX input: keep NAME dynamic with upper bound MAX (as in convert)"},
    {"verbose", 'v', ARG_FLAG, NULL, "conversion stage timings and runtime recording statistics on stderr"},
    DECODER_LOOP_ARG_SPECS,
    ARG_SPEC_JSON,
};

/* The decoding part of cmd_generate: tokens[0 .. n_prompt) hold the prompt; gt->tok set with --prompt. */
static int generate_run(const CliCommand *self, const ArgResult *r, GenerateText *gt, int64_t *tokens, int n_prompt) {
    long long max_new;
    int device;
    if (decoder_parse_max_new(self, r, "max-new", 12, n_prompt, &max_new) < 0 || args_device(self, r, &device) < 0) return WN_EXIT_BAD_INPUT;
    unsigned fuse;
    DecoderLoop loop;
    if (args_fuse(r, &fuse) < 0 || decoder_loop_options(self, r, &loop) < 0) return WN_EXIT_BAD_INPUT;
    const char *path = r->pos[0];
    diag_set_file(path);
    Decoder d = {0};
    DecoderPrint pr = {0};
    int rc;
    d.g = decoder_cli_load(self, r, path, fuse, device, &rc);
    if (!d.g && rc < 0) return WN_EXIT_BAD_INPUT; /* usage error already printed */
    cJSON *report = args_count(r, "json") ? report_new(self->name) : NULL;
    if (report) cJSON_AddStringToObject(report, "model", path);
    if (!d.g) return report_fail(report, path, rc);
    pr.report = report;
    pr.verbose = args_count(r, "verbose") > 0;
    d.loop = &loop;
    if (gt->tok) {
        d.on_step = generate_text_on_step;
        d.user = gt;
        pr.hide_ids = true; /* printed after the text, with --ids */
    }
    rc = decoder_generate_print(&d, &pr, device, max_new, tokens, n_prompt);
    if (rc == WN_EXIT_OK && gt->tok && text_stream_finish(&gt->stream) < 0) rc = WN_EXIT_BAD_INPUT;
    if (rc == WN_EXIT_OK && gt->tok && report)
        cJSON_AddItemToObject(report, "text", cJSON_CreateString(gt->stream.text ? gt->stream.text : ""));
    else if (rc == WN_EXIT_OK && gt->tok) {
        printf("\n"); /* ends the streamed text */
        for (int64_t k = 0; args_count(r, "ids") && k < pr.n_generated; k++)
            printf("%lld%s", (long long)tokens[n_prompt + k], k + 1 < pr.n_generated ? "," : "\n");
    }
    free(d.out);
    graph_free(d.g);
    if (rc == WN_EXIT_BAD_INPUT && diag_has_error()) return report_fail(report, path, rc);
    return report ? report_end(report, rc) : rc;
}

int cmd_generate(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *prompt = args_value(&r, "prompt"), *path = r.pos[0];
    if (!prompt == !args_value(&r, "prompt-ids")) return cli_usage_error(self, "give --prompt TEXT or --prompt-ids I,J,...");
    if (args_count(&r, "ids") && !prompt) return cli_usage_error(self, "--ids goes with --prompt");
    static int64_t tokens[MAX_TOKENS];
    GenerateText gt = {0};
    bool json = args_count(&r, "json") > 0;
    int n_prompt;
    if (prompt) {
        diag_set_file(path);
        if (generate_text_open(&gt, path, json ? NULL : stdout) < 0 ||
            (n_prompt = generate_text_encode(&gt, prompt, tokens, MAX_TOKENS - 1)) < 0) {
            generate_text_close(&gt);
            return cli_fail(path, WN_EXIT_BAD_INPUT);
        }
    } else if ((n_prompt = decoder_parse_ids(self, args_value(&r, "prompt-ids"), tokens, MAX_TOKENS - 1)) < 0)
        return WN_EXIT_BAD_INPUT;
    rc = generate_run(self, &r, &gt, tokens, n_prompt);
    generate_text_close(&gt);
    return rc;
}
