/* decoder.c - the CLI side of the decoding loop (decoder.h): argument parsing for `webnnc generate`
 * and `webnnc profile` and the printing of generate's result; the loop (prefill, next token on
 * the device or host, stop, timings) is decoder_generate in lib/run/decoder_generate.c. */
#include "decoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "convert.h"

int decoder_parse_ids(const CliCommand *self, const char *s, int64_t *ids, int max) {
    int n = 0;
    const char *p = s;
    while (p && *p) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || v > INT32_MAX || (*end && *end != ',') || n == max)
            return cli_usage_error(self, "--prompt-ids expects comma-separated token ids (0..2^31-1, at most %d), got '%s'",
                                   max, s), -1;
        ids[n++] = v;
        p = *end ? end + 1 : end;
    }
    if (n == 0) return cli_usage_error(self, "--prompt-ids needs at least one token id"), -1;
    return n;
}

Graph *decoder_cli_load(const CliCommand *self, const ArgResult *r, const char *path, unsigned fuse, int device,
                        int *code) {
    static DimSettingList fix, dim;
    *code = WN_EXIT_BAD_INPUT;
    /* a webnn-graph takes no --fix/--dim */
    if (convert_input_kind(path) != INPUT_WEBNN && convert_dim_options(self, r, &fix, &dim) < 0) {
        *code = -1; /* usage error already printed */
        return NULL;
    }
    ConvertOptions copt = {&fix, &dim, fuse, args_count(r, "verbose")};
    return decoder_load_graph(path, &copt, device, code);
}

int decoder_parse_max_new(const CliCommand *self, const ArgResult *r, const char *opt, long long def, int n_prompt,
                          long long *max_new) {
    const char *s = args_value(r, opt);
    *max_new = def;
    if (!s) return 0;
    char *end;
    *max_new = strtoll(s, &end, 10);
    if (*end || end == s || *max_new < 1 || *max_new > MAX_TOKENS - n_prompt)
        return cli_usage_error(self, "--%s takes a count 1..%d", opt, MAX_TOKENS - n_prompt), -1;
    return 0;
}

static int parse_number(const CliCommand *self, const ArgResult *r, const char *opt, double lo, double hi, double *v) {
    const char *s = args_value(r, opt);
    if (!s) return 0;
    char *end;
    *v = strtod(s, &end);
    if (end == s || *end || !(*v >= lo && *v <= hi))
        return cli_usage_error(self, "--%s takes a number in %g..%g, got '%s'", opt, lo, hi, s), -1;
    return 0;
}

int decoder_loop_options(const CliCommand *self, const ArgResult *r, DecoderLoop *o) {
    double t = 0, k = 0, p = 1, seed = 0;
    decoder_loop_init(o, 0, 0, 1, 0);
    if (parse_number(self, r, "temperature", 0, 1e6, &t) < 0 || parse_number(self, r, "top-k", 0, INT32_MAX, &k) < 0 ||
        parse_number(self, r, "top-p", 1e-9, 1, &p) < 0 || parse_number(self, r, "seed", 0, 9007199254740991.0, &seed) < 0)
        return -1;
    if (k != (double)(int64_t)k || seed != (double)(int64_t)seed)
        return cli_usage_error(self, "--top-k and --seed take whole numbers"), -1;
    if (t == 0 && (args_value(r, "top-k") || args_value(r, "top-p") || args_value(r, "seed")))
        return cli_usage_error(self, "--top-k, --top-p and --seed go with --temperature T > 0 (sampling)"), -1;
    decoder_loop_init(o, (float)t, (int)k, (float)p, (uint64_t)seed);
    return 0;
}

/* --json: the generated ids and the timings of the stderr line. */
static void json_result(cJSON *r, const DecoderResult *res, const int64_t *tokens, int n_prompt) {
    int64_t n = n_prompt + res->n_generated;
    cJSON *ids = report_add_array(r, "tokens");
    for (int64_t k = n_prompt; k < n; k++) cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)tokens[k]));
    cJSON_AddNumberToObject(r, "promptTokens", n_prompt);
    cJSON_AddStringToObject(r, "device", res->device);
    cJSON_AddNumberToObject(r, "loadMs", res->load_s * 1e3);
    cJSON_AddNumberToObject(r, "ttftMs", res->ttft_s * 1e3);
    cJSON_AddNumberToObject(r, "decodeMs", res->decode_s * 1e3);
    cJSON_AddNumberToObject(r, "tokensPerSecond",
                            n - n_prompt > 1 && res->decode_s > 0 ? (double)(n - n_prompt - 1) / res->decode_s : 0);
    cJSON_AddBoolToObject(r, "kvResident", res->kv_resident);
}

int decoder_generate_print(Decoder *d, DecoderPrint *p, int device, long long max_new, int64_t *tokens, int n_prompt) {
    DecoderResult res;
    int code = decoder_generate(d, device, max_new, tokens, n_prompt, &res);
    if (code != WN_EXIT_OK) return code;
    int64_t n = n_prompt + res.n_generated;
    long long decoded = res.n_generated - 1; /* tokens after the first */
    if (p->report) json_result(p->report, &res, tokens, n_prompt);
    else if (!p->hide_ids) {
        for (int64_t k = n_prompt; k < n; k++) printf("%s%lld", k > n_prompt ? "," : "", (long long)tokens[k]);
        printf("\n");
    }
    fprintf(stderr, "webnnc: %s: load %.1f ms, prefill %d tokens (TTFT) %.1f ms, decode %lld tokens %.1f ms = %.1f tokens/s (%s)\n",
            res.device, res.load_s * 1e3, n_prompt, res.ttft_s * 1e3, decoded, res.decode_s * 1e3,
            decoded > 0 && res.decode_s > 0 ? (double)decoded / res.decode_s : 0.0,
            res.kv_resident ? "KV caches resident on the device" : "no KV cache: whole sequence each step");
    if (p->verbose) decoder_print_stats(stderr, &res);
    p->n_generated = res.n_generated;
    return WN_EXIT_OK;
}
