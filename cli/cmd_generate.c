/* cmd_generate.c - `webnnc generate MODEL --prompt-ids 1,17,42,99 --max-new 12 [--device N]
 * [--fuse all|none|LIST] [--fix NAME=N]... [--dim NAME=MAX]... [-v]`: greedy decoding on the
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
 * on stderr.  Exit 2 on bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "convert_pipeline.h"
#include "diag.h"
#include "input_kind.h"
#include "kv_io.h"
#include "tensor_compare.h"
#include "webnnc_runtime.h"

#define MAX_TOKENS 65536

static const ArgSpec specs[] = {
    {"prompt-ids", 0, ARG_VALUE, "I,J,...", "prompt token ids (comma-separated, required)"},
    {"max-new", 0, ARG_VALUE, "N", "tokens to generate (default 12)"},
    ARG_SPEC_DEVICE,
    {"fuse", 0, ARG_VALUE, "all|none|LIST", "fuse into extension ops first (default none)"},
    {"fix", 0, ARG_LIST, "NAME=N", "ONNX input: freeze dimension NAME to N (as in convert)"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "ONNX input: keep NAME dynamic with upper bound MAX (as in convert)"},
    {"verbose", 'v', ARG_FLAG, NULL, "conversion stage timings and runtime recording statistics on stderr"},
};

typedef struct {
    Graph *g;
    WnrtModel *m;
    int ids, mask, pos; /* graph input indices (-1: absent) */
    int logits;         /* graph output index */
    void *out;          /* logits buffer */
    uint64_t out_cap;
} Decoder;

/* Parses "1,17,42" into ids; returns the count, or -1 after a usage error. */
static int parse_ids(const CliCommand *self, const char *s, int64_t *ids, int max) {
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

static bool named(const Value *v, const char *name) {
    return strcmp(v->name, name) == 0 || (v->origin && strcmp(v->origin, name) == 0);
}

static int find_value(Value **vals, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (named(vals[i], name)) return i;
    return -1;
}

/* Finds the inputs and the logits output; every other input must be a KV cache. */
static int decoder_inputs(Decoder *d) {
    Graph *g = d->g;
    d->ids = find_value(g->inputs, g->n_inputs, "input_ids");
    d->mask = find_value(g->inputs, g->n_inputs, "attention_mask");
    d->pos = find_value(g->inputs, g->n_inputs, "position_ids");
    d->logits = find_value(g->outputs, g->n_outputs, "logits");
    if (d->ids < 0 || d->logits < 0) {
        diag_error("generate needs an input named input_ids and an output named logits");
        return -1;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        if (i != d->ids && i != d->mask && i != d->pos && !kv_binding_of(g, v, false)) {
            diag_error("input %s: generate feeds only input_ids, attention_mask, position_ids and KV caches",
                       value_display_name(v));
            return -1;
        }
        if ((i == d->ids || i == d->mask || i == d->pos) && (v->rank != 2 || !dtype_is_int(v->dtype))) {
            diag_error("input %s: expected an integer tensor [batch, length]", value_display_name(v));
            return -1;
        }
    }
    if (g->n_kv && d->mask < 0) {
        diag_error("a graph with KV caches needs an attention_mask input (it carries the total length)");
        return -1;
    }
    const Value *lg = g->outputs[d->logits];
    if (lg->rank < 2 || !dtype_is_float(lg->dtype)) {
        diag_error("output %s: expected float logits [.., length, vocab]", value_display_name(lg));
        return -1;
    }
    return 0;
}

/* The longest total sequence the graph takes: the KV capacity, and each input's length bound. */
static int64_t max_total(const Decoder *d) {
    const Graph *g = d->g;
    int64_t best = g->inputs[d->ids]->shape[1].v;
    if (g->n_kv) best = INT64_MAX; /* with caches input_ids holds only the new tokens */
    for (int i = 0; i < g->n_kv; i++)
        if (g->kv[i].capacity < best) best = g->kv[i].capacity;
    if (d->mask >= 0 && g->inputs[d->mask]->shape[1].v < best) best = g->inputs[d->mask]->shape[1].v;
    return best;
}

/* Binds integer input `i` as [1, n] from values vals (converted to the input's 32/64-bit dtype). */
static int bind_ints(Decoder *d, int i, const int64_t *vals, int64_t n) {
    const Value *v = d->g->inputs[i];
    int bits = dtype_bits(v->dtype);
    if (bits != 32 && bits != 64) {
        diag_error("input %s: %s is not supported (32 or 64-bit integers)", value_display_name(v), dtype_name(v->dtype));
        return -1;
    }
    uint64_t nbytes = dtype_storage_bytes(v->dtype, (uint64_t)n);
    uint8_t *buf = malloc(nbytes ? (size_t)nbytes : 1);
    if (!buf) {
        diag_error("out of memory");
        return -1;
    }
    for (int64_t k = 0; k < n; k++) {
        if (bits == 64) memcpy(buf + 8 * k, &vals[k], 8);
        else memcpy(buf + 4 * k, &(int32_t){(int32_t)vals[k]}, 4);
    }
    int rc = wnrt_bind_input(d->m, v->name, buf, nbytes, 2, (int64_t[]){1, n});
    free(buf);
    return rc;
}

/* One step: tokens[start .. start+count) are new, the sequence holds start+count tokens.
 * Writes the argmax of the last logits row to *next. */
static int step(Decoder *d, const int64_t *tokens, int64_t start, int64_t count, int64_t *next) {
    static int64_t scratch[MAX_TOKENS];
    int64_t total = start + count;
    if (bind_ints(d, d->ids, tokens + start, count) < 0) return -1;
    if (d->mask >= 0) {
        for (int64_t k = 0; k < total; k++) scratch[k] = 1;
        if (bind_ints(d, d->mask, scratch, total) < 0) return -1;
    }
    if (d->pos >= 0) {
        for (int64_t k = 0; k < count; k++) scratch[k] = start + k;
        if (bind_ints(d, d->pos, scratch, count) < 0) return -1;
    }
    WnrtTensorInfo info;
    if (wnrt_run(d->m) < 0 || wnrt_output_info(d->m, d->logits, &info) < 0) return -1;
    if (info.nbytes > d->out_cap) {
        free(d->out);
        d->out_cap = 0;
        if (!(d->out = malloc((size_t)info.nbytes))) {
            diag_error("out of memory");
            return -1;
        }
        d->out_cap = info.nbytes;
    }
    if (wnrt_read_output(d->m, d->logits, d->out, d->out_cap) < 0) return -1;
    int64_t vocab = info.shape[info.rank - 1];
    uint64_t numel = 1;
    for (int k = 0; k < info.rank; k++) numel *= (uint64_t)info.shape[k];
    if (vocab <= 0 || numel < (uint64_t)vocab) {
        diag_error("output %s: empty logits", info.name);
        return -1;
    }
    uint64_t row = numel - (uint64_t)vocab;
    double best = tensor_elem(info.dtype, d->out, row);
    *next = 0;
    for (int64_t k = 1; k < vocab; k++) {
        double x = tensor_elem(info.dtype, d->out, row + (uint64_t)k);
        if (x > best) best = x, *next = k;
    }
    return 0;
}

static Graph *load_graph(const CliCommand *self, const ArgResult *r, const char *path, unsigned fuse, int *code) {
    *code = WN_EXIT_BAD_INPUT;
    if (input_kind(path) == INPUT_WEBNN) return read_webnn_fused(path, fuse);
    static DimSettingList fix, dim;
    if (convert_dim_options(self, r, &fix, &dim) < 0) {
        *code = -1; /* usage error already printed */
        return NULL;
    }
    size_t onnx_nodes;
    ConvertOptions copt = {&fix, &dim, fuse, args_count(r, "verbose")};
    return convert_onnx(path, &copt, &onnx_nodes, code);
}

/* --max-new N (default 12) -> *max_new; 0 or -1 after a usage error. */
static int parse_max_new(const CliCommand *self, const ArgResult *r, int n_prompt, long long *max_new) {
    const char *s = args_value(r, "max-new");
    *max_new = 12;
    if (!s) return 0;
    char *end;
    *max_new = strtoll(s, &end, 10);
    if (*end || end == s || *max_new < 1 || *max_new > MAX_TOKENS - n_prompt)
        return cli_usage_error(self, "--max-new takes a count 1..%d", MAX_TOKENS - n_prompt), -1;
    return 0;
}

/* -v: the runtime's recording statistics (webnnc_runtime.h WnrtStats). */
static void print_run_stats(const WnrtModel *m) {
    WnrtStats st;
    wnrt_stats(m, &st);
    fprintf(stderr,
            "webnnc: runtime: %d recordings, %d replays (%s), %d dispatches and %d barriers per step, host prepare "
            "%.1f us per step (last %.1f us, %d parameter slots written)\n",
            st.recordings, st.replays, st.replay ? "one recording per dispatch plan" : "WEBNNC_REPLAY=0: one per size",
            st.dispatches, st.barriers, st.runs ? (double)st.prepare_ns_total / 1e3 / (double)st.runs : 0.0,
            (double)st.prepare_ns / 1e3, st.params_written);
}

static int generate(Decoder *d, int device, long long max_new, int64_t *tokens, int n_prompt, bool verbose) {
    if (decoder_inputs(d) < 0) return WN_EXIT_BAD_INPUT;
    int64_t longest = max_total(d), need = n_prompt + max_new - 1;
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
    double t0 = cli_now_s(), ttft = 0;
    if (!(d->m = wnrt_load(ctx, d->g)) || (d->g->n_kv && wnrt_kv_resident(d->m) < 0)) goto done;
    double t_load = cli_now_s() - t0;
    int64_t n = n_prompt;
    for (long long k = 0; k < max_new; k++, n++) {
        double ts = cli_now_s();
        int64_t start = d->g->n_kv ? (k ? n - 1 : 0) : 0; /* with caches only the new tokens */
        if (step(d, tokens, start, n - start, &tokens[n]) < 0) goto done;
        if (k == 0) ttft = cli_now_s() - ts;
    }
    double decode = cli_now_s() - t0 - t_load - ttft;
    for (int64_t k = n_prompt; k < n; k++) printf("%s%lld", k > n_prompt ? "," : "", (long long)tokens[k]);
    printf("\n");
    fprintf(stderr, "webnnc: %s: load %.1f ms, prefill %d tokens (TTFT) %.1f ms, decode %lld tokens %.1f ms = %.1f tokens/s (%s)\n",
            wnrt_context_device(ctx)->name, t_load * 1e3, n_prompt, ttft * 1e3, max_new - 1, decode * 1e3,
            max_new > 1 && decode > 0 ? (double)(max_new - 1) / decode : 0.0,
            d->g->n_kv ? "KV caches resident on the device" : "no KV cache: whole sequence each step");
    if (verbose) print_run_stats(d->m);
    code = WN_EXIT_OK;
done:
    wnrt_free(d->m);
    d->m = NULL;
    wnrt_destroy(ctx);
    return code;
}

int cmd_generate(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    if (!args_value(&r, "prompt-ids")) return cli_usage_error(self, "--prompt-ids is required");
    static int64_t tokens[MAX_TOKENS];
    int n_prompt = parse_ids(self, args_value(&r, "prompt-ids"), tokens, MAX_TOKENS - 1);
    if (n_prompt < 0) return WN_EXIT_BAD_INPUT;
    long long max_new;
    int device;
    if (parse_max_new(self, &r, n_prompt, &max_new) < 0 || args_device(self, &r, &device) < 0) return WN_EXIT_BAD_INPUT;
    unsigned fuse;
    if (args_fuse(&r, &fuse) < 0) return WN_EXIT_BAD_INPUT;
    const char *path = r.pos[0];
    diag_set_file(path);
    Decoder d = {0};
    d.g = load_graph(self, &r, path, fuse, &rc);
    if (!d.g) return rc < 0 ? WN_EXIT_BAD_INPUT : cli_fail(path, rc);
    rc = generate(&d, device, max_new, tokens, n_prompt, args_count(&r, "verbose") > 0);
    free(d.out);
    graph_free(d.g);
    if (rc == WN_EXIT_BAD_INPUT && diag_has_error()) return cli_fail(path, rc);
    return rc;
}
