/* api_run.c - the running half of the public API (include/webnnc/webnnc.h): tensor facts of a
 * graph, sessions on the Vulkan runtime (runtime/webnnc_runtime.h), webnnc_run with named buffers,
 * and greedy webnnc_generate on the decoding loop of `webnnc generate` (lib/run/decoder_generate.c). */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "decoder_generate.h"
#include "diag.h"
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
    if (!(s->ctx = wnrt_create(device)) || !(s->rt = wnrt_load(s->ctx, g))) {
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

/* Binds inputs[] after checking each names a graph input of its dtype. */
static int bind_inputs(webnnc_session *s, const webnnc_tensor *inputs, int n_inputs) {
    const Graph *g = s->model->g;
    for (int k = 0; k < n_inputs; k++) {
        const webnnc_tensor *t = &inputs[k];
        const Value *v = NULL;
        for (int i = 0; i < g->n_inputs && !v; i++)
            if (t->name && (!strcmp(g->inputs[i]->name, t->name) || (g->inputs[i]->origin && !strcmp(g->inputs[i]->origin, t->name))))
                v = g->inputs[i];
        if (!v) return api_fail("input %s: not a graph input", t->name ? t->name : "(no name)");
        if ((int)t->dtype != (int)v->dtype)
            return api_fail("input %s: given %s, the graph expects %s", t->name, webnnc_dtype_name(t->dtype), dtype_name(v->dtype));
        if (t->rank < 0 || t->rank > WEBNNC_MAX_RANK) return api_fail("input %s: rank %d", t->name, t->rank);
        if (wnrt_bind_input(s->rt, v->name, t->data, t->nbytes, t->rank, t->shape) < 0) return WEBNNC_BAD_INPUT;
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
        if (wnrt_output_info(s->rt, i, &info) < 0) goto fail;
        t->dtype = (webnnc_dtype)info.dtype;
        t->rank = info.rank;
        memcpy(t->shape, info.shape, sizeof t->shape);
        t->nbytes = info.nbytes;
        if (!(t->name = strdup(info.name)) || !(t->data = malloc(info.nbytes ? (size_t)info.nbytes : 1))) {
            diag_error("out of memory");
            goto fail;
        }
        if (wnrt_read_output(s->rt, i, t->data, info.nbytes) < 0) goto fail;
    }
    *outputs = outs;
    *n_outputs = n;
    return api_end(WEBNNC_OK, NULL);
fail:
    webnnc_tensors_free(outs, n);
    return api_end(WEBNNC_BAD_INPUT, "reading the outputs failed");
}

int webnnc_generate(webnnc_model *m, int device, const int64_t *prompt_ids, int n_prompt, int max_new, int64_t *out_ids) {
    api_begin(m ? m->path : NULL);
    Decoder d = {.g = api_graph(m)};
    if (!d.g) return WEBNNC_BAD_INPUT;
    if (n_prompt < 1 || max_new < 1 || (int64_t)n_prompt + max_new > MAX_TOKENS || !prompt_ids || !out_ids)
        return api_fail("a prompt of 1.. ids and 1.. new tokens (at most %d in all) expected", MAX_TOKENS);
    int64_t *tokens = malloc(((size_t)n_prompt + (size_t)max_new) * sizeof *tokens);
    if (!tokens) return api_fail("out of memory");
    memcpy(tokens, prompt_ids, (size_t)n_prompt * sizeof *tokens);
    DecoderLoop loop; /* greedy, on the device where it can run: the loop of `webnnc generate` */
    decoder_loop_init(&loop, 0, 0, 1, 0);
    d.loop = &loop;
    DecoderResult res;
    int code = decoder_generate(&d, device, max_new, tokens, n_prompt, &res);
    if (code == WEBNNC_OK) memcpy(out_ids, tokens + n_prompt, (size_t)max_new * sizeof *out_ids);
    free(d.out);
    free(tokens);
    return api_end(code, "generation failed");
}
