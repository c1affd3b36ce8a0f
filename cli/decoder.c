/* decoder.c - the greedy decoding loop of `webnnc generate` and `webnnc profile` (decoder.h),
 * moved from cmd_generate.c (which documents the behavior); each next token comes from
 * decoder_next (decoder_loop.c: on the device where it can), one step from decoder_step
 * (lib/run/decoder_step.c, shared with the library API). */
#include "decoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capacity_fit.h"
#include "convert_pipeline.h"
#include "decoder_loop.h"
#include "diag.h"
#include "input_kind.h"
#include "pipeline_plan.h"
#include "report.h"

/* Parses "1,17,42" into ids; returns the count, or -1 after a usage error. */
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

/* Only the next token's logits are used: the head runs on the last position (pass last_logits),
 * unless WEBNNC_ALL_LOGITS=1 keeps every position (to compare). */
static Graph *last_logits_only(Graph *g) {
    const char *env = getenv("WEBNNC_ALL_LOGITS");
    if (!g || (env && strcmp(env, "1") == 0)) return g;
    if (pipeline_run(g, PIPE_LAST_LOGITS, NULL) == 0) return g;
    graph_free(g);
    return NULL;
}

Graph *decoder_load_graph(const CliCommand *self, const ArgResult *r, const char *path, unsigned fuse, int device,
                          int *code) {
    *code = WN_EXIT_BAD_INPUT;
    if (input_kind(path) == INPUT_WEBNN) return last_logits_only(read_webnn_fused(path, fuse));
    static DimSettingList fix, dim;
    if (convert_dim_options(self, r, &fix, &dim) < 0) {
        *code = -1; /* usage error already printed */
        return NULL;
    }
    size_t onnx_nodes;
    ConvertOptions copt = {&fix, &dim, fuse, args_count(r, "verbose")};
    /* capacity lowered to fit the device */
    return last_logits_only(convert_onnx_fitting(path, &copt, device, &onnx_nodes, code));
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

/* -v: the runtime's recording statistics (webnnc_runtime.h WnrtStats). */
static void print_run_stats(const WnrtModel *m) {
    WnrtStats st;
    wnrt_stats(m, &st);
    fprintf(stderr,
            "webnnc: runtime: %d recordings, %d replays (%s), %llu steps, %d dispatches and %d barriers per step, host "
            "prepare %.1f us per step (last %.1f us, %d parameter slots written)\n",
            st.recordings, st.replays, st.replay ? "one recording per dispatch plan" : "WEBNNC_REPLAY=0: one per size",
            (unsigned long long)st.runs, st.dispatches, st.barriers,
            st.runs ? (double)st.prepare_ns_total / 1e3 / (double)st.runs : 0.0,
            (double)st.prepare_ns / 1e3, st.params_written);
    if (st.loop_submits)
        fprintf(stderr, "webnnc: device token loop: %llu decode steps in %llu submissions\n",
                (unsigned long long)st.loop_steps, (unsigned long long)st.loop_submits);
}

/* --json: the generated ids and the timings of the stderr line. */
static void json_result(cJSON *r, const WnrtContext *ctx, const Decoder *d, const int64_t *tokens, int n_prompt,
                        int64_t n, const double *ms) {
    cJSON *ids = report_add_array(r, "tokens");
    for (int64_t k = n_prompt; k < n; k++) cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)tokens[k]));
    cJSON_AddNumberToObject(r, "promptTokens", n_prompt);
    cJSON_AddStringToObject(r, "device", wnrt_context_device(ctx)->name);
    cJSON_AddNumberToObject(r, "loadMs", ms[0]);
    cJSON_AddNumberToObject(r, "ttftMs", ms[1]);
    cJSON_AddNumberToObject(r, "decodeMs", ms[2]);
    cJSON_AddNumberToObject(r, "tokensPerSecond", n - n_prompt > 1 && ms[2] > 0 ? (double)(n - n_prompt - 1) / ms[2] * 1e3 : 0);
    cJSON_AddBoolToObject(r, "kvResident", d->g->n_kv > 0);
}

int decoder_generate(Decoder *d, int device, long long max_new, int64_t *tokens, int n_prompt) {
    if (decoder_inputs(d) < 0) return WN_EXIT_BAD_INPUT;
    int64_t longest = decoder_max_total(d), need = n_prompt + max_new - 1;
    if (need > longest) {
        diag_error("prompt (%d) + new tokens (%lld) need %lld positions, the graph takes at most %lld", n_prompt, max_new,
                   (long long)need, (long long)longest);
        return WN_EXIT_BAD_INPUT;
    }
    /* Out-of-range ids would be clamped by the embedding gather: refuse them instead. */
    const Value *lg = d->g->outputs[d->logits];
    Dim vocab = lg->shape[lg->rank - 1];
    for (int i = 0; i < n_prompt && dim_is_static(vocab); i++)
        if (tokens[i] >= vocab.v) {
            diag_error("--prompt-ids: token id %lld is outside the vocabulary (0..%lld)", (long long)tokens[i],
                       (long long)vocab.v - 1);
            return WN_EXIT_BAD_INPUT;
        }
    WnrtContext *ctx = wnrt_create(device);
    if (!ctx) return WN_EXIT_BAD_INPUT;
    int code = WN_EXIT_BAD_INPUT;
    double t0 = convert_now_s(), ttft = 0;
    if (!(d->m = wnrt_load(ctx, d->g)) || (d->g->n_kv && wnrt_kv_resident(d->m) < 0)) goto done;
    if (d->on_load && d->on_load(d, ctx) < 0) goto done;
    const char *warm = getenv("WEBNNC_WARM");
    const int64_t plans[2] = {n_prompt, 1}; /* the prefill and a decode step: their pipelines now, not in the TTFT */
    int warmed = warm && strcmp(warm, "0") == 0 ? 0 : wnrt_warm(d->m, 2, plans);
    double t_load = convert_now_s() - t0;
    int64_t n = n_prompt;
    for (long long k = 0; k < max_new; k++, n++) {
        double ts = convert_now_s();
        int64_t start = d->g->n_kv ? (k ? n - 1 : 0) : 0; /* with caches only the new tokens */
        if (decoder_next(d, tokens, start, n, k, max_new) < 0) goto done;
        if (k == 0) ttft = convert_now_s() - ts;
        int after = d->on_step ? d->on_step(d, k, ts, convert_now_s()) : 0;
        if (after < 0) goto done;
        if (after > 0) { /* stop token: generation ends with it */
            n++;
            break;
        }
    }
    long long decoded = n - n_prompt - 1; /* tokens after the first */
    double decode = convert_now_s() - t0 - t_load - ttft;
    if (d->quiet) {
        code = WN_EXIT_OK;
        goto done;
    }
    if (d->report) {
        double ms[3] = {t_load * 1e3, ttft * 1e3, decode * 1e3};
        json_result(d->report, ctx, d, tokens, n_prompt, n, ms);
    } else if (!d->hide_ids) {
        for (int64_t k = n_prompt; k < n; k++) printf("%s%lld", k > n_prompt ? "," : "", (long long)tokens[k]);
        printf("\n");
    }
    fprintf(stderr, "webnnc: %s: load %.1f ms, prefill %d tokens (TTFT) %.1f ms, decode %lld tokens %.1f ms = %.1f tokens/s (%s)\n",
            wnrt_context_device(ctx)->name, t_load * 1e3, n_prompt, ttft * 1e3, decoded, decode * 1e3,
            decoded > 0 && decode > 0 ? (double)decoded / decode : 0.0,
            d->g->n_kv ? "KV caches resident on the device" : "no KV cache: whole sequence each step");
    if (d->verbose) {
        print_run_stats(d->m);
        fprintf(stderr, "webnnc: pipelines of %d dispatch plans created at load (WEBNNC_WARM=0: none)\n", warmed);
    }
    d->n_generated = n - n_prompt;
    code = WN_EXIT_OK;
done:
    wnrt_free(d->m);
    d->m = NULL;
    wnrt_destroy(ctx);
    return code;
}
