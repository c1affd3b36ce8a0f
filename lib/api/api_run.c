/* api_run.c - the running half of the public API (include/webnnc/webnnc.h): tensor facts of a
 * graph, sessions on the Vulkan runtime (runtime/webnnc_runtime.h), webnnc_run with named buffers,
 * and greedy webnnc_generate on the decoding loop of `webnnc generate` (lib/run/decoder_generate.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "run.h"
#include "core.h"
#include "webnnc_runtime.h"

_Static_assert(DT_F32 == (int)WEBNNC_FLOAT32 && DT_F16 == (int)WEBNNC_FLOAT16 && DT_I32 == (int)WEBNNC_INT32 &&
                   DT_U32 == (int)WEBNNC_UINT32 && DT_I64 == (int)WEBNNC_INT64 && DT_U64 == (int)WEBNNC_UINT64 &&
                   DT_I8 == (int)WEBNNC_INT8 && DT_U8 == (int)WEBNNC_UINT8 && DT_I4 == (int)WEBNNC_INT4 &&
                   DT_U4 == (int)WEBNNC_UINT4 && DT_COUNT == (int)WEBNNC_UINT4 + 1,
               "webnnc_dtype follows lib/core/dtype.def");
_Static_assert(WEBNNC_MAX_RANK == WN_MAX_RANK, "public rank limit");

struct webnnc_session {
    webnnc_model *model;
    WnrtContext *ctx;
    WnrtModel *rt;
    RunIo io; /* inputs bound in the ONNX KV interface, outputs read back (lib/run/run_io.c) */
};

const char *webnnc_dtype_name(webnnc_dtype dtype) { return dtype_name((DType)dtype); }

static int tensor_info(const webnnc_model *m, bool output, int i, webnnc_tensor *info) {
    api_begin(m ? m->path : NULL);
    const Graph *g = api_graph(m);
    if (!g) return WEBNNC_BAD_INPUT;
    int n = output ? g->n_outputs : g->n_inputs;
    if (i < 0 || i >= n) return api_fail("%s %d: the graph has %d", output ? "output" : "input", i, n);
    const Value *v = output ? g->outputs[i] : g->inputs[i];
    memset(info, 0, sizeof *info);
    info->name = v->name;
    info->dtype = (webnnc_dtype)v->dtype;
    info->rank = v->rank;
    bool is_static = true;
    for (int d = 0; d < v->rank; d++) {
        info->shape[d] = dim_is_static(v->shape[d]) ? v->shape[d].v : -1;
        is_static = is_static && info->shape[d] >= 0;
    }
    uint64_t numel = 1;
    for (int d = 0; d < v->rank && is_static; d++) numel *= (uint64_t)info->shape[d];
    info->nbytes = is_static ? dtype_storage_bytes(v->dtype, numel) : 0;
    return api_end(WEBNNC_OK, NULL);
}

int webnnc_model_input(const webnnc_model *m, int i, webnnc_tensor *info) { return tensor_info(m, false, i, info); }
int webnnc_model_output(const webnnc_model *m, int i, webnnc_tensor *info) { return tensor_info(m, true, i, info); }

int webnnc_session_create(webnnc_model *m, int device, webnnc_session **out) {
    *out = NULL;
    api_begin(m ? m->path : NULL);
    Graph *g = api_graph(m);
    if (!g) return WEBNNC_BAD_INPUT;
    webnnc_session *s = calloc(1, sizeof *s);
    if (!s) return api_fail("out of memory");
    s->model = m;
    if (run_io_init(&s->io, g) < 0 || !(s->ctx = wnrt_create(device)) || !(s->rt = wnrt_load(s->ctx, g))) {
        webnnc_session_free(s);
        return api_end(WEBNNC_BAD_INPUT, "cannot load the graph on the device");
    }
    *out = s;
    return api_end(WEBNNC_OK, NULL);
}

void webnnc_session_free(webnnc_session *s) {
    if (!s) return;
    wnrt_free(s->rt);
    wnrt_destroy(s->ctx);
    run_io_free(&s->io);
    free(s);
}

const char *webnnc_session_device(const webnnc_session *s) { return s ? wnrt_context_device(s->ctx)->name : ""; }

void webnnc_tensors_free(webnnc_tensor *tensors, int n) {
    for (int i = 0; tensors && i < n; i++) {
        free(tensors[i].data);
        free((char *)tensors[i].name);
    }
    free(tensors);
}

/* Binds inputs[] through run_io (as `webnnc run` binds its files) after checking each names a
 * graph input of its dtype. */
static int bind_inputs(webnnc_session *s, const webnnc_tensor *inputs, int n_inputs) {
    const Graph *g = s->model->g;
    s->io.onnx_kv = false; /* this run's inputs decide */
    for (int k = 0; k < n_inputs; k++) {
        const webnnc_tensor *t = &inputs[k];
        int i = 0;
        while (i < g->n_inputs && !(t->name && run_tensor_name_matches(g->inputs[i], t->name))) i++;
        if (i == g->n_inputs) return api_fail("input %s: not a graph input", t->name ? t->name : "(no name)");
        const Value *v = g->inputs[i];
        if ((int)t->dtype != (int)v->dtype)
            return api_fail("input %s: given %s, the graph expects %s", t->name, webnnc_dtype_name(t->dtype), dtype_name(v->dtype));
        if (t->rank < 0 || t->rank > WEBNNC_MAX_RANK) return api_fail("input %s: rank %d", t->name, t->rank);
        if (run_io_bind(&s->io, s->rt, i, t->rank, t->shape, t->data, t->nbytes) < 0) return WEBNNC_BAD_INPUT;
    }
    return WEBNNC_OK;
}

int webnnc_run(webnnc_session *s, const webnnc_tensor *inputs, int n_inputs, webnnc_tensor **outputs, int *n_outputs) {
    *outputs = NULL;
    *n_outputs = 0;
    api_begin(s ? s->model->path : NULL);
    if (!s) return api_fail("no session");
    if (n_inputs < 0 || (n_inputs && !inputs)) return api_fail("no inputs");
    if (bind_inputs(s, inputs, n_inputs) != WEBNNC_OK || wnrt_run(s->rt) < 0) return api_end(WEBNNC_BAD_INPUT, "run failed");
    int n = wnrt_output_count(s->rt);
    webnnc_tensor *outs = calloc(n > 0 ? (size_t)n : 1, sizeof *outs);
    if (!outs) return api_fail("out of memory");
    for (int i = 0; i < n; i++) {
        WnrtTensorInfo info;
        webnnc_tensor *t = &outs[i];
        if (!(t->data = run_io_read(&s->io, s->rt, i, &info))) goto fail;
        t->dtype = (webnnc_dtype)info.dtype;
        t->rank = info.rank;
        memcpy(t->shape, info.shape, sizeof t->shape);
        t->nbytes = info.nbytes;
        if (!(t->name = strdup(info.name))) {
            diag_error("out of memory");
            goto fail;
        }
    }
    *outputs = outs;
    *n_outputs = n;
    return api_end(WEBNNC_OK, NULL);
fail:
    webnnc_tensors_free(outs, n);
    return api_end(WEBNNC_BAD_INPUT, "reading the outputs failed");
}

void webnnc_generate_options_init(webnnc_generate_options *opt) {
    memset(opt, 0, sizeof *opt);
    opt->top_p = 1;
}

typedef struct {
    const webnnc_generate_options *opt;
    const int64_t *tokens;
    int n_prompt;
} EosStop;

/* Decoder.on_step (user: an EosStop): 1 (stop) after an eos id of the options. */
static int stop_at_eos(Decoder *d, long long k, double begin_s, double end_s) {
    (void)begin_s, (void)end_s;
    const EosStop *e = d->user;
    for (int i = 0; i < e->opt->n_eos; i++)
        if (e->opt->eos_ids[i] == e->tokens[e->n_prompt + k]) return 1;
    return 0;
}

int webnnc_generate_with(webnnc_model *m, int device, const int64_t *prompt_ids, int n_prompt, int max_new,
                         const webnnc_generate_options *opt, int64_t *out_ids, int *n_out) {
    api_begin(m ? m->path : NULL);
    webnnc_generate_options defaults;
    webnnc_generate_options_init(&defaults);
    if (!opt) opt = &defaults;
    if (n_out) *n_out = 0;
    Decoder d = {.g = api_graph(m)};
    if (!d.g) return WEBNNC_BAD_INPUT;
    if (n_prompt < 1 || max_new < 1 || (int64_t)n_prompt + max_new > MAX_TOKENS || !prompt_ids || !out_ids)
        return api_fail("a prompt of 1.. ids and 1.. new tokens (at most %d in all) expected", MAX_TOKENS);
    if (!(opt->temperature >= 0) || opt->top_k < 0 || !(opt->top_p > 0 && opt->top_p <= 1) || opt->n_eos < 0 ||
        (opt->n_eos && !opt->eos_ids))
        return api_fail("generate options: temperature >= 0, top_k >= 0, top_p in (0, 1] and eos ids expected");
    int64_t *tokens = malloc(((size_t)n_prompt + (size_t)max_new) * sizeof *tokens);
    if (!tokens) return api_fail("out of memory");
    memcpy(tokens, prompt_ids, (size_t)n_prompt * sizeof *tokens);
    DecoderLoop loop; /* on the device where it can run: the loop of `webnnc generate` */
    decoder_loop_init(&loop, opt->temperature, opt->top_k, opt->top_p, opt->seed);
    d.loop = &loop;
    EosStop eos = {opt, tokens, n_prompt};
    if (opt->n_eos) {
        d.on_step = stop_at_eos;
        d.user = &eos;
    }
    DecoderResult res;
    int code = decoder_generate(&d, device, max_new, tokens, n_prompt, &res);
    if (code == WEBNNC_OK) {
        memcpy(out_ids, tokens + n_prompt, (size_t)res.n_generated * sizeof *out_ids);
        if (n_out) *n_out = (int)res.n_generated;
        if (opt->verbose) decoder_print_stats(stderr, &res);
    }
    free(d.out);
    free(tokens);
    return api_end(code, "generation failed");
}

int webnnc_generate(webnnc_model *m, int device, const int64_t *prompt_ids, int n_prompt, int max_new, int64_t *out_ids) {
    return webnnc_generate_with(m, device, prompt_ids, n_prompt, max_new, NULL, out_ids, NULL);
}
