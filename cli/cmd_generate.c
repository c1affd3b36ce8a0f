/* cmd_generate.c - `webnnc generate MODEL --prompt-ids 1,17,42,99 --max-new 12 [--device N]
 * [--fuse all|none|LIST] [--fix NAME=N]... [--dim NAME=MAX]... [-v] [--json]`: greedy decoding on the
 * Vulkan runtime.
 *
 * MODEL is a webnn-graph (file or output folder) or an ONNX model (file or folder), converted in
 * memory first by convert's pipeline (convert_pipeline.c).  The graph's inputs must be input_ids,
 * optionally attention_mask and position_ids, and KV caches (Graph.kv bindings).  With caches, the
 * prompt is the prefill step and each later step feeds the one new token; the caches stay on the
 * device (wnrt_kv_resident: the present of a step is the next step's past, nothing is copied
 * between host and device).  Without caches (e.g. torch-dynamo exports) every step feeds the whole
 * sequence so far.  The next token is the argmax of the last logits row (first index on ties).
 * Prints the generated ids (comma-separated) on stdout; time to first token and decode tokens/s
 * on stderr.  Exit 2 on bad input.  The loop is in decoder.c (shared with `webnnc profile`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "decoder.h"
#include "diag.h"

static const ArgSpec specs[] = {
    {"prompt-ids", 0, ARG_VALUE, "I,J,...", "prompt token ids (comma-separated, required)"},
    {"max-new", 0, ARG_VALUE, "N", "tokens to generate (default 12)"},
    ARG_SPEC_DEVICE,
    {"fuse", 0, ARG_VALUE, "all|none|LIST", "fuse into extension ops first (default none)"},
    {"fix", 0, ARG_LIST, "NAME=N", "ONNX input: freeze dimension NAME to N (as in convert)"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "ONNX input: keep NAME dynamic with upper bound MAX (as in convert)"},
    {"verbose", 'v', ARG_FLAG, NULL, "conversion stage timings and runtime recording statistics on stderr"},
    ARG_SPEC_JSON,
};

int cmd_generate(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    if (!args_value(&r, "prompt-ids")) return cli_usage_error(self, "--prompt-ids is required");
    static int64_t tokens[MAX_TOKENS];
    int n_prompt = decoder_parse_ids(self, args_value(&r, "prompt-ids"), tokens, MAX_TOKENS - 1);
    if (n_prompt < 0) return WN_EXIT_BAD_INPUT;
    long long max_new;
    int device;
    if (decoder_parse_max_new(self, &r, "max-new", 12, n_prompt, &max_new) < 0 || args_device(self, &r, &device) < 0) return WN_EXIT_BAD_INPUT;
    unsigned fuse;
    if (args_fuse(&r, &fuse) < 0) return WN_EXIT_BAD_INPUT;
    const char *path = r.pos[0];
    diag_set_file(path);
    Decoder d = {0};
    d.g = decoder_load_graph(self, &r, path, fuse, device, &rc);
    if (!d.g && rc < 0) return WN_EXIT_BAD_INPUT; /* usage error already printed */
    cJSON *report = args_count(&r, "json") ? report_new(self->name) : NULL;
    if (report) cJSON_AddStringToObject(report, "model", path);
    if (!d.g) return report_fail(report, path, rc);
    d.report = report;
    d.verbose = args_count(&r, "verbose") > 0;
    rc = decoder_generate(&d, device, max_new, tokens, n_prompt);
    free(d.out);
    graph_free(d.g);
    if (rc == WN_EXIT_BAD_INPUT && diag_has_error()) return report_fail(report, path, rc);
    return report ? report_end(report, rc) : rc;
}
