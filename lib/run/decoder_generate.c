/* decoder_generate.c - the decoding loop (decoder_generate.h), moved from cli/decoder.c so that
 * `webnnc generate` / `profile` and webnnc_generate run the same code: the graph's inputs and
 * bounds are checked, the model is loaded with its KV caches resident, the prefill and decode
 * pipelines are warmed, then each step's next token comes from decoder_next (decoder_loop.c: on
 * the device where it can, else decoder_step's host argmax) until max_new tokens or a stop from
 * on_step; the timings and the runtime's statistics go into the DecoderResult. */
#include "decoder_generate.h"

#include <stdlib.h>
#include <string.h>

#include "capacity_fit.h"
#include "core.h"
#include "convert.h"
#include "pipeline_plan.h"

Graph *decoder_last_logits(Graph *g) {
    const char *env = getenv("WEBNNC_ALL_LOGITS");
    if (!g || (env && strcmp(env, "1") == 0)) return g;
    if (pipeline_run(g, PIPE_LAST_LOGITS, NULL) == 0) return g;
    graph_free(g);
    return NULL;
}

Graph *decoder_load_graph(const char *path, const ConvertOptions *copt, int device, int *code) {
    *code = WN_EXIT_BAD_INPUT;
    if (convert_input_kind(path) == INPUT_WEBNN) return decoder_last_logits(convert_read_webnn_fused(path, copt->fuse_mask));
    size_t onnx_nodes;
    /* capacity lowered to fit the device */
    return decoder_last_logits(run_convert_onnx_fitting(path, copt, device, &onnx_nodes, code));
}

/* The prompt fits the graph's length and (a static vocabulary) its ids are inside the vocabulary:
 * out-of-range ids would be clamped by the embedding gather, so they are refused instead. */
static int check_prompt(const Decoder *d, const int64_t *tokens, int n_prompt, long long max_new) {
    int64_t longest = decoder_max_total(d), need = n_prompt + max_new - 1;
    if (need > longest) {
        diag_error("prompt (%d) + new tokens (%lld) need %lld positions, the graph takes at most %lld", n_prompt, max_new,
                   (long long)need, (long long)longest);
        return -1;
    }
    const Value *lg = d->g->outputs[d->logits];
    Dim vocab = lg->shape[lg->rank - 1];
    for (int i = 0; i < n_prompt && dim_is_static(vocab); i++)
        if (tokens[i] < 0 || tokens[i] >= vocab.v) {
            diag_error("prompt: token id %lld is outside the vocabulary (0..%lld)", (long long)tokens[i],
                       (long long)vocab.v - 1);
            return -1;
        }
    return 0;
}

int decoder_generate(Decoder *d, int device, long long max_new, int64_t *tokens, int n_prompt, DecoderResult *res) {
    memset(res, 0, sizeof *res);
    if (decoder_inputs(d) < 0 || check_prompt(d, tokens, n_prompt, max_new) < 0) return WN_EXIT_BAD_INPUT;
    WnrtContext *ctx = wnrt_create(device);
    if (!ctx) return WN_EXIT_BAD_INPUT;
    snprintf(res->device, sizeof res->device, "%s", wnrt_context_device(ctx)->name);
    res->kv_resident = d->g->n_kv > 0;
    int code = WN_EXIT_BAD_INPUT;
    double t0 = convert_now_s(), ttft = 0;
    if (!(d->m = wnrt_load(ctx, d->g)) || (d->g->n_kv && wnrt_kv_resident(d->m) < 0)) goto done;
    if (d->on_load && d->on_load(d, ctx) < 0) goto done;
    if (decoder_loop_begin(d) < 0) goto done; /* before the warm-up: the token pick's pipeline with it */
    const char *warm = getenv("WEBNNC_WARM");
    const int64_t plans[2] = {n_prompt, 1}; /* the prefill and a decode step: their pipelines now, not in the TTFT */
    res->warmed = warm && strcmp(warm, "0") == 0 ? 0 : wnrt_warm(d->m, 2, plans);
    if (res->warmed && decoder_loop_prepare(d, n_prompt, max_new) < 0) goto done; /* not under WEBNNC_WARM=0 */
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
    res->decode_s = convert_now_s() - t0 - t_load - ttft;
    res->load_s = t_load;
    res->ttft_s = ttft;
    res->n_generated = n - n_prompt;
    wnrt_stats(d->m, &res->stats);
    code = WN_EXIT_OK;
done:
    wnrt_free(d->m);
    d->m = NULL;
    wnrt_destroy(ctx);
    return code;
}

void decoder_print_stats(FILE *f, const DecoderResult *res) {
    const WnrtStats *st = &res->stats;
    fprintf(f,
            "webnnc: runtime: %d recordings, %d replays (%s), %llu steps, %d dispatches and %d barriers per step, host "
            "prepare %.1f us per step (last %.1f us, %d parameter slots written)\n",
            st->recordings, st->replays, st->replay ? "one recording per dispatch plan" : "WEBNNC_REPLAY=0: one per size",
            (unsigned long long)st->runs, st->dispatches, st->barriers,
            st->runs ? (double)st->prepare_ns_total / 1e3 / (double)st->runs : 0.0, (double)st->prepare_ns / 1e3,
            st->params_written);
    if (st->loop_submits)
        fprintf(f, "webnnc: device token loop: %llu decode steps in %llu submissions, %llu of them prepared ahead (at load or "
                   "while the one before ran)\n",
                (unsigned long long)st->loop_steps, (unsigned long long)st->loop_submits, (unsigned long long)st->loop_ahead);
    if (st->loop_submits)
        fprintf(f, "webnnc: device token loop: nothing queued on the device for %.1f us before its first submission "
                   "(after the prefill's wait) and %.1f us before each later one\n",
                (double)st->loop_idle_first_ns / 1e3,
                st->loop_submits > 1 ? (double)st->loop_idle_ns / 1e3 / (double)(st->loop_submits - 1) : 0.0);
    if (st->loop_submits)
        fprintf(f, "webnnc: device token loop: %d dispatches of each step take their parameters as push constants "
                   "(WEBNNC_PUSH_PARAMS=0: none)\n",
                st->loop_pushed);
    if (st->loop_submits && st->loop_pick_fused)
        fprintf(f, "webnnc: device token loop: each step's greedy pick made by the dispatch that writes its logits\n");
    fprintf(f, "webnnc: pipelines of %d dispatch plans created at load (WEBNNC_WARM=0: none), %d more during the runs\n",
            res->warmed, st->run_pipelines);
}
