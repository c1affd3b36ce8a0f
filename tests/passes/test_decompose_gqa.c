/* test_decompose_gqa.c - Check tests of the groupQueryAttention extension op: shape inference and
 * its rejections, a hand-computed case of the CPU reference (lib/eval/eval_gqa.c), the reference
 * against ONNX Runtime's CPU kernel (testdata/contrib/gqa/gqa_cases.json, made by gen_gqa.py +
 * run_ort.mjs), and the decomposition pass (passes/decompose_gqa.c) against the reference over many
 * variants: packed/separate QKV, head ratios, prefill/decode, batch 2 with different seqlensK,
 * rotary (half, interleaved, partial, positionIds), softcap, local window, smooth softmax, head
 * sink, attention bias, q/k norm and float16; presents included.  Graphs are built in code with
 * constant operands; the decomposed graph is evaluated node by node with eval_fold_node (lib/eval).
 * Also: the com.microsoft GroupQueryAttention importer handler and the kv_cache pass on a layer with
 * ORT-GenAI's interface names and symbolic dims (testdata/contrib/gqa/gqa_genai_interface.onnx). */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core.h"
#include "eval.h"
#include "eval_internal.h"
#include "onnx_import.h"
#include "onnx_model.h"
#include "pass.h"
#include "test_util.h"

/* ---- building GQA graphs ----------------------------------------------------------------------- */

typedef struct {
    int B, S, N, KV, H, C;
    int seqlens[2];
    bool packed, rotary, interleaved, smooth, sink, qknorm, bias, posids, f16;
    int rot; /* rotary dim, 0 = H */
    double softcap, scale;
    int window; /* 0 = option absent */
} Case;

static uint32_t rng_state;
static double rnd(void) { /* deterministic values in [-1, 1) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / (double)(1u << 23) - 1.0;
}

/* Constant of dtype dt filled by fill(i) (or random when fill is NULL). */
static Value *constant(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const double *vals) {
    int64_t count = 1;
    for (int i = 0; i < rank; i++) count *= shape[i];
    uint64_t bytes = dtype_storage_bytes(dt, (uint64_t)count);
    void *buf = graph_alloc(g, (size_t)bytes + 1);
    Ten t = {.dt = dt, .rank = rank, .count = count, .data = buf};
    for (int64_t i = 0; i < count; i++) ten_setf(&t, i, vals ? vals[i] : rnd());
    return graph_add_const(g, name, dt, rank, shape, buf, bytes);
}

static Node *build(Graph *g, const Case *c) {
    DType dt = c->f16 ? DT_F16 : DT_F32;
    int64_t B = c->B, S = c->S, H = c->H;
    int rot = c->rotary ? (c->rot ? c->rot : c->H) : 0;
    Node *n = graph_new_node(g, OP_GROUP_QUERY_ATTENTION, "gqa");
    Value *in[GQA_SLOTS] = {0};
    int64_t qw = (c->packed ? c->N + 2 * c->KV : c->N) * H, kvw = c->KV * H;
    in[GQA_QUERY] = constant(g, "q", dt, 3, (int64_t[]){B, S, qw}, NULL);
    if (!c->packed) {
        in[GQA_KEY] = constant(g, "k", dt, 3, (int64_t[]){B, S, kvw}, NULL);
        in[GQA_VALUE] = constant(g, "v", dt, 3, (int64_t[]){B, S, kvw}, NULL);
    }
    int64_t cache[4] = {B, c->KV, c->C, H};
    in[GQA_PAST_KEY] = constant(g, "past_k", dt, 4, cache, NULL);
    in[GQA_PAST_VALUE] = constant(g, "past_v", dt, 4, cache, NULL);
    double sl[2] = {c->seqlens[0], c->seqlens[1]}, total = c->seqlens[0] + 1;
    if (B == 2 && c->seqlens[1] + 1 > total) total = c->seqlens[1] + 1;
    in[GQA_SEQLENS_K] = constant(g, "seqlens_k", DT_I32, 1, &B, sl);
    in[GQA_TOTAL_SEQ] = constant(g, "total", DT_I32, 0, NULL, &total);
    if (rot) {
        int64_t half = rot / 2, rows = c->C + 3;
        double *cs = malloc(sizeof *cs * (size_t)(rows * half)), *sn = malloc(sizeof *sn * (size_t)(rows * half));
        for (int64_t p = 0; p < rows; p++)
            for (int64_t j = 0; j < half; j++) {
                double f = p * pow(10000.0, -2.0 * (double)j / (double)rot);
                cs[p * half + j] = cos(f);
                sn[p * half + j] = sin(f);
            }
        in[GQA_COS] = constant(g, "cos", dt, 2, (int64_t[]){rows, half}, cs);
        in[GQA_SIN] = constant(g, "sin", dt, 2, (int64_t[]){rows, half}, sn);
        free(cs);
        free(sn);
        if (c->posids) {
            double pos[16];
            for (int i = 0; i < B * S; i++) pos[i] = (i * 5 + 2) % (c->C + 3);
            in[GQA_POSITION_IDS] = constant(g, "pos", DT_I64, 2, (int64_t[]){B, S}, pos);
        }
    }
    if (c->bias) in[GQA_ATTENTION_BIAS] = constant(g, "bias", dt, 4, (int64_t[]){1, c->N, S, c->C}, NULL);
    if (c->sink) in[GQA_HEAD_SINK] = constant(g, "sink", dt, 1, (int64_t[]){c->N}, NULL);
    if (c->qknorm) {
        in[GQA_Q_NORM] = constant(g, "qn", dt, 1, &H, NULL);
        in[GQA_K_NORM] = constant(g, "kn", dt, 1, &H, NULL);
    }
    int last = GQA_SLOTS - 1;
    while (!in[last]) last--;
    for (int i = 0; i <= last; i++) node_add_input(g, n, in[i]);
    node_set_uint(g, n, "numHeads", c->N);
    node_set_uint(g, n, "kvNumHeads", c->KV);
    if (c->scale) node_set_float(g, n, "scale", c->scale);
    if (c->softcap) node_set_float(g, n, "softcap", c->softcap);
    if (c->window) node_set_int(g, n, "localWindowSize", c->window);
    if (rot) node_set_bool(g, n, "doRotary", true);
    if (c->interleaved) node_set_bool(g, n, "rotaryInterleaved", true);
    if (c->smooth) node_set_bool(g, n, "smoothSoftmax", true);
    return n;
}

static void wnrt_tensor_of(const Value *v, const void *data, Ten *t) {
    memset(t, 0, sizeof *t);
    t->dt = v->dtype;
    t->rank = v->rank;
    t->count = 1;
    for (int i = 0; i < v->rank; i++) {
        t->shape[i] = v->shape[i].v;
        t->count *= v->shape[i].v;
    }
    t->data = (void *)data;
}

/* Largest |a - b| / (atol + rtol |b|) over two tensors (> 1 = mismatch). */
static double mismatch(const Ten *a, const Ten *b, double atol, double rtol, int64_t *where) {
    ck_assert_int_eq(a->count, b->count);
    double worst = 0;
    for (int64_t i = 0; i < a->count; i++) {
        double x = ten_getf(a, i), y = ten_getf(b, i);
        double e = fabs(x - y) / (atol + rtol * fabs(y));
        if (!(e <= worst)) {
            worst = isnan(e) ? INFINITY : e;
            *where = i;
        }
    }
    return worst;
}

/* Decomposes g (one GQA node whose outputs are the graph outputs, constant operands), checks that
 * only spec ops remain, evaluates every node and compares the outputs with want[] (> 1 = mismatch). */
static void decompose_and_compare(Graph *g, const Ten *want, double atol, double rtol, const char *what) {
    const char *dec[] = {"decompose_gqa"};
    ck_assert_msg(pass_run_list(g, dec, 1, NULL) == 0, "%s: decompose: %s", what, diag_message());
    ck_assert_msg(graph_verify(g, VERIFY_SPEC_ONLY) == 0, "%s: verify: %s", what, diag_message());
    for (int i = 0; i < g->n_nodes; i++) ck_assert(op_info(g->nodes[i]->op)->flags & OPF_SPEC);
    /* evaluate every node (fold_constants would keep the ones producing graph outputs) */
    for (int i = 0; i < g->n_nodes; i++)
        ck_assert_msg(eval_fold_node(g, g->nodes[i]) == 1, "%s: node %s not evaluated: %s", what,
                      node_display_name(g->nodes[i]), diag_message());
    ck_assert_int_eq(g->n_outputs, GQA_OUTPUTS);
    for (int k = 0; k < GQA_OUTPUTS; k++) {
        int i = (k + 1) % GQA_OUTPUTS; /* presents first: a wrong cache explains a wrong output */
        const Value *v = g->outputs[i];
        ck_assert_msg(v->flags & VF_CONST, "%s: output %d was not evaluated", what, i);
        Ten got;
        wnrt_tensor_of(v, v->data, &got);
        int64_t at = -1;
        double e = mismatch(&got, &want[i], atol, rtol, &at);
        ck_assert_msg(e <= 1.0, "%s: output %d differs at %lld: %g vs %g", what, i, (long long)at,
                      at >= 0 ? ten_getf(&got, at) : 0.0, at >= 0 ? ten_getf(&want[i], at) : 0.0);
    }
}

/* Reference (eval of the ext node) vs the folded decomposition, all three outputs. */
static void check_case(const Case *c, const char *what) {
    diag_clear();
    rng_state = 12345u + (uint32_t)(c->B * 7 + c->S * 131 + c->N * 17 + c->H);
    Graph *g = graph_new("gqa");
    Node *n = build(g, c);
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s: %s", what, diag_message());
    for (int i = 0; i < GQA_OUTPUTS; i++) graph_add_output(g, n->outputs[i]);
    const void *ref[GQA_OUTPUTS];
    uint64_t ref_bytes[GQA_OUTPUTS];
    ck_assert_msg(eval_node(g, n, ref, ref_bytes) == 0, "%s: reference: %s", what, diag_message());
    Ten want[GQA_OUTPUTS];
    for (int i = 0; i < GQA_OUTPUTS; i++) wnrt_tensor_of(n->outputs[i], ref[i], &want[i]);
    decompose_and_compare(g, want, c->f16 ? 4e-3 : 2e-6, c->f16 ? 4e-3 : 2e-5, what);
    graph_free(g);
}

/* ---- decomposition vs reference ------------------------------------------------------------- */

static const Case base = {.B = 1, .S = 4, .N = 4, .KV = 2, .H = 8, .C = 8, .seqlens = {3, 0}, .packed = true};

START_TEST(decompose_prefill_packed) { check_case(&base, "prefill packed"); }
END_TEST

START_TEST(decompose_variants) {
    struct {
        const char *name;
        Case c;
    } cases[] = {
        {"separate qkv", {.B = 1, .S = 3, .N = 4, .KV = 2, .H = 8, .C = 6, .seqlens = {2}}},
        {"one kv head", {.B = 1, .S = 2, .N = 4, .KV = 1, .H = 4, .C = 5, .seqlens = {1}, .packed = true}},
        {"equal heads", {.B = 1, .S = 2, .N = 3, .KV = 3, .H = 4, .C = 5, .seqlens = {1}, .packed = true}},
        {"decode with past", {.B = 1, .S = 1, .N = 4, .KV = 2, .H = 8, .C = 8, .seqlens = {5}, .packed = true}},
        {"chunk after past", {.B = 1, .S = 3, .N = 2, .KV = 1, .H = 4, .C = 8, .seqlens = {6}}},
        {"batch 2 decode", {.B = 2, .S = 1, .N = 4, .KV = 2, .H = 4, .C = 8, .seqlens = {2, 6}, .packed = true}},
        {"batch 2 prefill", {.B = 2, .S = 3, .N = 2, .KV = 2, .H = 4, .C = 6, .seqlens = {2, 4}}},
        {"full cache", {.B = 1, .S = 1, .N = 2, .KV = 1, .H = 4, .C = 6, .seqlens = {5}, .packed = true}},
        {"rotary half", {.B = 2, .S = 2, .N = 4, .KV = 2, .H = 8, .C = 8, .seqlens = {3, 5}, .packed = true, .rotary = true}},
        {"rotary interleaved", {.B = 1, .S = 3, .N = 2, .KV = 1, .H = 8, .C = 8, .seqlens = {4}, .rotary = true, .interleaved = true}},
        {"rotary partial", {.B = 1, .S = 2, .N = 2, .KV = 2, .H = 8, .C = 6, .seqlens = {3}, .packed = true, .rotary = true, .rot = 4}},
        {"rotary partial interleaved", {.B = 1, .S = 2, .N = 2, .KV = 1, .H = 8, .C = 6, .seqlens = {1}, .rotary = true, .interleaved = true, .rot = 4}},
        {"rotary position ids", {.B = 2, .S = 2, .N = 2, .KV = 1, .H = 4, .C = 6, .seqlens = {1, 4}, .packed = true, .rotary = true, .posids = true}},
        {"softcap", {.B = 1, .S = 3, .N = 2, .KV = 1, .H = 4, .C = 6, .seqlens = {4}, .packed = true, .softcap = 0.7, .scale = 2.5}},
        {"local window prefill", {.B = 1, .S = 6, .N = 2, .KV = 1, .H = 4, .C = 8, .seqlens = {5}, .packed = true, .window = 2}},
        {"local window decode", {.B = 2, .S = 1, .N = 2, .KV = 2, .H = 4, .C = 8, .seqlens = {1, 7}, .window = 3}},
        {"smooth softmax", {.B = 1, .S = 3, .N = 2, .KV = 1, .H = 4, .C = 6, .seqlens = {3}, .packed = true, .smooth = true}},
        {"head sink", {.B = 2, .S = 1, .N = 4, .KV = 2, .H = 4, .C = 6, .seqlens = {0, 3}, .sink = true}},
        {"attention bias", {.B = 1, .S = 2, .N = 2, .KV = 1, .H = 4, .C = 5, .seqlens = {3}, .packed = true, .bias = true}},
        {"q/k norm + rotary", {.B = 1, .S = 3, .N = 4, .KV = 2, .H = 8, .C = 6, .seqlens = {2}, .packed = true, .qknorm = true, .rotary = true}},
        {"float16", {.B = 1, .S = 3, .N = 4, .KV = 2, .H = 8, .C = 6, .seqlens = {4}, .packed = true, .rotary = true, .f16 = true}},
        {"float16 all options", {.B = 2, .S = 2, .N = 2, .KV = 1, .H = 8, .C = 6, .seqlens = {1, 5}, .rotary = true, .interleaved = true, .rot = 4, .softcap = 1.5, .window = 2, .sink = true, .qknorm = true, .bias = true, .f16 = true}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(&cases[i].c, cases[i].name);
}
END_TEST

/* ---- hand-computed reference ------------------------------------------------------------------- */

/* B = 1, N = kvN = 1, H = 2, C = 3, decode S = 1 with seqlensK = 1 (one past row), scale 1.
 * past K row 0 = [1, 0], V row 0 = [1, 2]; packed token q = [1, 1], k = [0, 2], v = [3, 4].
 * Scores: q.k0 = 1, q.k1 = 2 -> p0 = 1 / (1 + e), p1 = e / (1 + e); out = p0 [1, 2] + p1 [3, 4].
 * presentKey = [[1, 0], [0, 2], [9, 9]] (row 2 kept from the past), presentValue likewise. */
START_TEST(reference_hand_computed) {
    diag_clear();
    Graph *g = graph_new("hand");
    static const double qkv[6] = {1, 1, 0, 2, 3, 4}, pk[6] = {1, 0, 9, 9, 9, 9}, pv[6] = {1, 2, 9, 9, 9, 9};
    static const double seqlens = 1, total = 2;
    Node *n = graph_new_node(g, OP_GROUP_QUERY_ATTENTION, "hand");
    node_add_input(g, n, constant(g, "qkv", DT_F32, 3, (int64_t[]){1, 1, 6}, qkv));
    node_add_input(g, n, NULL);
    node_add_input(g, n, NULL);
    node_add_input(g, n, constant(g, "pk", DT_F32, 4, (int64_t[]){1, 1, 3, 2}, pk));
    node_add_input(g, n, constant(g, "pv", DT_F32, 4, (int64_t[]){1, 1, 3, 2}, pv));
    node_add_input(g, n, constant(g, "sl", DT_I32, 1, (int64_t[]){1}, &seqlens));
    node_add_input(g, n, constant(g, "total", DT_I32, 0, NULL, &total));
    node_set_uint(g, n, "numHeads", 1);
    node_set_uint(g, n, "kvNumHeads", 1);
    node_set_float(g, n, "scale", 1.0);
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    const void *out[3];
    uint64_t bytes[3];
    ck_assert_msg(eval_node(g, n, out, bytes) == 0, "%s", diag_message());
    const float *o = out[0], *k = out[1], *v = out[2];
    double e = exp(1.0), p0 = 1 / (1 + e), p1 = e / (1 + e);
    ck_assert_float_eq_tol(o[0], p0 * 1 + p1 * 3, 1e-6);
    ck_assert_float_eq_tol(o[1], p0 * 2 + p1 * 4, 1e-6);
    static const float want_k[6] = {1, 0, 0, 2, 9, 9}, want_v[6] = {1, 2, 3, 4, 9, 9};
    for (int i = 0; i < 6; i++) {
        ck_assert_float_eq(k[i], want_k[i]);
        ck_assert_float_eq(v[i], want_v[i]);
    }
    /* seqlensK + 1 beyond the capacity cannot be evaluated */
    static const double bad = 3;
    n->inputs[GQA_SEQLENS_K] = constant(g, "bad", DT_I32, 1, (int64_t[]){1}, &bad);
    diag_clear();
    ck_assert_int_eq(eval_node(g, n, out, bytes), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "seqlensK"));
    graph_free(g);
}
END_TEST

/* ---- shape inference and rejections ------------------------------------------------------------ */

static Value *sym_input(Graph *g, const char *name, DType dt, int rank, const Dim *shape) {
    return graph_add_input(g, name, dt, rank, shape);
}

/* Symbolic batch and sequence: outputs [B, S, N*H] and the cache shapes; the decomposition is
 * spec-only and exportable. */
START_TEST(infer_symbolic_and_decompose) {
    diag_clear();
    Graph *g = graph_new("sym");
    Dim B = dim_symbol(g, "batch_size", 4), S = dim_symbol(g, "sequence_length", 16);
    Node *n = graph_new_node(g, OP_GROUP_QUERY_ATTENTION, "gqa");
    node_add_input(g, n, sym_input(g, "qkv", DT_F16, 3, (Dim[]){B, S, dim_static(8 * 16)}));
    node_add_input(g, n, NULL);
    node_add_input(g, n, NULL);
    Dim cache[4] = {B, dim_static(2), dim_static(32), dim_static(16)};
    node_add_input(g, n, sym_input(g, "past_key_values.0.key", DT_F16, 4, cache));
    node_add_input(g, n, sym_input(g, "past_key_values.0.value", DT_F16, 4, cache));
    node_add_input(g, n, sym_input(g, "seqlens_k", DT_I32, 1, &B));
    node_add_input(g, n, sym_input(g, "total_sequence_length", DT_I32, 0, NULL));
    rng_state = 7;
    node_add_input(g, n, constant(g, "cos", DT_F16, 2, (int64_t[]){64, 4}, NULL));
    node_add_input(g, n, constant(g, "sin", DT_F16, 2, (int64_t[]){64, 4}, NULL));
    node_set_uint(g, n, "numHeads", 4);
    node_set_uint(g, n, "kvNumHeads", 2);
    node_set_bool(g, n, "doRotary", true);
    node_set_int(g, n, "localWindowSize", 8);
    node_set_bool(g, n, "smoothSoftmax", true);
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    ck_assert_int_eq(n->n_outputs, 3);
    const Value *o = n->outputs[0];
    ck_assert(o->dtype == DT_F16 && o->rank == 3 && dim_equal(o->shape[0], B) && dim_equal(o->shape[1], S));
    ck_assert_int_eq(o->shape[2].v, 64);
    for (int i = 1; i < 3; i++) {
        ck_assert_int_eq(n->outputs[i]->rank, 4);
        for (int d = 0; d < 4; d++) ck_assert(dim_equal(n->outputs[i]->shape[d], cache[d]));
        graph_add_output(g, n->outputs[i]);
    }
    graph_add_output(g, n->outputs[0]);
    const char *dec[] = {"decompose_gqa"};
    ck_assert_msg(pass_run_list(g, dec, 1, NULL) == 0, "%s", diag_message());
    ck_assert_msg(graph_verify(g, VERIFY_SPEC_ONLY | VERIFY_EXPORTABLE) == 0, "%s", diag_message());
    graph_free(g);
}
END_TEST

/* Each mutation of a valid prefill case must be rejected by shape inference with a message. */
typedef void (*Mutate)(Graph *g, Node *n);
static void m_heads(Graph *g, Node *n) { node_set_uint(g, n, "numHeads", 3); }
static void m_kscale(Graph *g, Node *n) {
    while (n->n_inputs <= GQA_K_SCALE) node_add_input(g, n, NULL);
    n->inputs[GQA_K_SCALE] = n->inputs[GQA_SEQLENS_K];
}
static void m_seqlens_dtype(Graph *g, Node *n) {
    n->inputs[GQA_SEQLENS_K] = constant(g, "sl64", DT_I64, 1, (int64_t[]){1}, NULL);
}
static void m_capacity(Graph *g, Node *n) {
    int64_t small[4] = {1, 2, 3, 8};
    n->inputs[GQA_PAST_KEY] = constant(g, "pk3", DT_F32, 4, small, NULL);
    n->inputs[GQA_PAST_VALUE] = constant(g, "pv3", DT_F32, 4, small, NULL);
}
static void m_rot(Graph *g, Node *n) {
    node_set_bool(g, n, "doRotary", true);
    while (n->n_inputs <= GQA_SIN) node_add_input(g, n, NULL);
    n->inputs[GQA_COS] = constant(g, "c", DT_F32, 2, (int64_t[]){8, 5}, NULL);
    n->inputs[GQA_SIN] = constant(g, "s", DT_F32, 2, (int64_t[]){8, 5}, NULL);
}
static void m_no_cos(Graph *g, Node *n) { node_set_bool(g, n, "doRotary", true); }
static void m_width(Graph *g, Node *n) { n->inputs[GQA_QUERY] = constant(g, "q7", DT_F32, 3, (int64_t[]){1, 4, 7}, NULL); }
static void m_kv_dtype(Graph *g, Node *n) {
    n->inputs[GQA_PAST_VALUE] = constant(g, "pv16", DT_F16, 4, (int64_t[]){1, 2, 8, 8}, NULL);
}
static void m_window(Graph *g, Node *n) { node_set_int(g, n, "localWindowSize", -2); }
static void m_softcap(Graph *g, Node *n) { node_set_float(g, n, "softcap", -1.0); }

START_TEST(infer_rejections) {
    static const Mutate muts[] = {m_heads, m_kscale, m_seqlens_dtype, m_capacity, m_rot,
                                  m_no_cos, m_width, m_kv_dtype, m_window, m_softcap};
    for (size_t i = 0; i < sizeof muts / sizeof *muts; i++) {
        diag_clear();
        Graph *g = graph_new("bad");
        Node *n = build(g, &base);
        muts[i](g, n);
        ck_assert_msg(graph_insert_node(g, n) == -1, "mutation %zu was accepted", i);
        ck_assert_msg(strstr(diag_message(), "gqa") != NULL, "mutation %zu: %s", i, diag_message());
        graph_free(g);
    }
}
END_TEST

/* ---- ONNX Runtime cases ------------------------------------------------------------------------ */

/* testdata/contrib/gqa/FILE below the source root. */
static const char *testdata_path(const char *file, char *buf, size_t len) {
    const char *src = getenv("WEBNNC_SOURCE_ROOT");
    snprintf(buf, len, "%s/testdata/contrib/gqa/%s", src ? src : ".", file);
    return buf;
}

static char *read_text(const char *path) {
    struct stat st;
    FILE *f = fopen(path, "rb");
    char *buf = f && fstat(fileno(f), &st) == 0 ? calloc(1, (size_t)st.st_size + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) buf[0] = 0;
    if (f) fclose(f);
    return buf;
}

/* {"dtype", "shape": [...], "data": [...]} -> constant (data NULL for outputs). */
static Value *json_tensor(Graph *g, const cJSON *t, const char *name, Ten *as_ten) {
    DType dt = dtype_from_name(cJSON_GetObjectItem(t, "dtype")->valuestring);
    const cJSON *shape = cJSON_GetObjectItem(t, "shape"), *data = cJSON_GetObjectItem(t, "data");
    int64_t dims[WN_MAX_RANK], count = 1;
    int rank = cJSON_GetArraySize(shape);
    ck_assert(dt != DT_INVALID && rank <= WN_MAX_RANK);
    for (int i = 0; i < rank; i++) count *= dims[i] = (int64_t)cJSON_GetArrayItem(shape, i)->valuedouble;
    ck_assert_int_eq(cJSON_GetArraySize(data), count);
    double *vals = malloc(sizeof *vals * (size_t)count);
    for (int64_t i = 0; i < count; i++) vals[i] = cJSON_GetArrayItem(data, (int)i)->valuedouble;
    Value *v = constant(g, name, dt, rank, dims, vals);
    free(vals);
    if (as_ten) wnrt_tensor_of(v, v->data, as_ten);
    return v;
}

/* The reference and the decomposition against ONNX Runtime 1.30 CPU outputs of single-node
 * com.microsoft GroupQueryAttention models with capacity-sized past buffers. */
START_TEST(reference_matches_onnxruntime) {
    char path[1024];
    char *text = read_text(testdata_path("gqa_cases.json", path, sizeof path));
    ck_assert_msg(text != NULL, "cannot read %s", path);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    const cJSON *c;
    int count = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "cases")) {
        diag_clear();
        const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
        Graph *g = graph_new(name);
        Node *n = graph_new_node(g, OP_GROUP_QUERY_ATTENTION, name);
        const cJSON *ins = cJSON_GetObjectItem(c, "inputs"), *t;
        Value *slots[GQA_SLOTS] = {0};
        int last = 0;
        cJSON_ArrayForEach(t, ins) {
            int slot = cJSON_GetObjectItem(t, "slot")->valueint;
            ck_assert(slot >= 0 && slot < GQA_SLOTS);
            slots[slot] = json_tensor(g, t, cJSON_GetObjectItem(t, "name")->valuestring, NULL);
            if (slot > last) last = slot;
        }
        for (int i = 0; i <= last; i++) node_add_input(g, n, slots[i]);
        const cJSON *opt;
        cJSON_ArrayForEach(opt, cJSON_GetObjectItem(c, "options")) {
            if (cJSON_IsBool(opt)) node_set_bool(g, n, opt->string, cJSON_IsTrue(opt));
            else if (strcmp(opt->string, "scale") == 0 || strcmp(opt->string, "softcap") == 0)
                node_set_float(g, n, opt->string, opt->valuedouble);
            else node_set_int(g, n, opt->string, (int64_t)opt->valuedouble);
        }
        ck_assert_msg(graph_insert_node(g, n) == 0, "%s: %s", name, diag_message());
        for (int i = 0; i < GQA_OUTPUTS; i++) graph_add_output(g, n->outputs[i]);
        Ten want[GQA_OUTPUTS];
        const cJSON *outs = cJSON_GetObjectItem(c, "outputs");
        ck_assert_int_eq(cJSON_GetArraySize(outs), GQA_OUTPUTS);
        for (int i = 0; i < GQA_OUTPUTS; i++) json_tensor(g, cJSON_GetArrayItem(outs, i), "ort", &want[i]);
        bool f16 = n->outputs[0]->dtype == DT_F16;
        double atol = f16 ? 2e-3 : 1e-5, rtol = f16 ? 4e-3 : 1e-4;
        const void *ref[GQA_OUTPUTS];
        uint64_t bytes[GQA_OUTPUTS];
        ck_assert_msg(eval_node(g, n, ref, bytes) == 0, "%s: %s", name, diag_message());
        for (int i = 0; i < GQA_OUTPUTS; i++) {
            Ten got;
            wnrt_tensor_of(n->outputs[i], ref[i], &got);
            int64_t at = -1;
            double e = mismatch(&got, &want[i], atol, rtol, &at);
            ck_assert_msg(e <= 1.0, "%s: reference output %d differs from ORT at %lld: %g vs %g", name, i,
                          (long long)at, at >= 0 ? ten_getf(&got, at) : 0.0, at >= 0 ? ten_getf(&want[i], at) : 0.0);
        }
        decompose_and_compare(g, want, atol, rtol, name);
        graph_free(g);
        count++;
    }
    ck_assert_int_ge(count, 4);
    cJSON_Delete(root);
    free(text);
}
END_TEST

/* ---- importer and kv_cache ------------------------------------------------------------------------ */

static Graph *import_testdata(const char *file, const ImportOptions *opt) {
    char path[1024];
    diag_clear();
    OnnxModel *m = onnx_model_load(testdata_path(file, path, sizeof path));
    ck_assert_msg(m != NULL, "%s: %s", path, diag_message());
    Graph *g = onnx_import(m, opt);
    if (!g) onnx_model_free(m);
    return g;
}

static const Value *graph_input(const Graph *g, const char *origin) {
    for (int i = 0; i < g->n_inputs; i++)
        if (g->inputs[i]->origin && strcmp(g->inputs[i]->origin, origin) == 0) return g->inputs[i];
    return NULL;
}

START_TEST(import_and_kv_cache) {
    static const DimSetting fix[] = {{"batch_size", 1}};
    static const DimSetting bound[] = {{"sequence_length", 16}, {"past_sequence_length", 32}, {"total_sequence_length", 32}};
    ImportOptions io = {fix, 1, bound, 3};
    Graph *g = import_testdata("gqa_genai_interface.onnx", &io);
    ck_assert_msg(g != NULL, "%s", diag_message());
    Node *n = NULL;
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == OP_GROUP_QUERY_ATTENTION) n = g->nodes[i];
    ck_assert_ptr_nonnull(n);
    ck_assert_int_eq(node_int(n, "numHeads", 0), 4);
    ck_assert_int_eq(node_int(n, "kvNumHeads", 0), 2);
    ck_assert(node_bool(n, "doRotary", false));
    ck_assert_int_eq(node_int(n, "localWindowSize", 0), -1);
    ck_assert_double_eq_tol(node_float(n, "scale", 0), 0.25, 1e-7);
    ck_assert(!dim_is_static(n->inputs[GQA_PAST_KEY]->shape[2]));
    /* without a capacity the decomposition refuses the symbolic cache length */
    const char *dec[] = {"decompose_gqa"};
    ck_assert_int_eq(pass_run_list(g, dec, 1, NULL), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "kv_cache"));
    diag_clear();
    const char *both[] = {"kv_cache", "decompose_gqa"};
    PassOptions po = {0};
    ck_assert_msg(pass_run_list(g, both, 2, &po) == 0, "%s", diag_message());
    ck_assert_msg(graph_verify(g, VERIFY_SPEC_ONLY | VERIFY_EXPORTABLE) == 0, "%s", diag_message());
    const Value *pk = graph_input(g, "past_key_values.0.key");
    ck_assert_ptr_nonnull(pk);
    ck_assert(dim_is_static(pk->shape[2]) && pk->shape[2].v == 32);
    ck_assert_int_eq(g->n_kv, 2);
    ck_assert_str_eq(g->kv[0].past, pk->name);
    ck_assert_int_eq(g->kv[0].axis, 2);
    ck_assert_int_eq(g->kv[0].capacity, 32);
    ck_assert_str_eq(g->kv[0].total_dim, "total_sequence_length");
    bool found = false;
    for (int i = 0; i < g->n_outputs; i++) {
        const Value *o = g->outputs[i];
        if (strcmp(o->name, g->kv[0].present) != 0) continue;
        found = true;
        ck_assert_str_eq(o->origin, "present.0.key");
        ck_assert(o->rank == 4 && dim_is_static(o->shape[2]) && o->shape[2].v == 32);
    }
    ck_assert(found);
    graph_free(g);

    /* an explicit capacity wins; a second run keeps the bindings */
    g = import_testdata("gqa_genai_interface.onnx", &io);
    ck_assert_ptr_nonnull(g);
    po.kv_capacity = 24;
    const char *kv[] = {"kv_cache", "kv_cache"};
    ck_assert_msg(pass_run_list(g, kv, 2, &po) == 0, "%s", diag_message());
    ck_assert_int_eq(g->n_kv, 2);
    ck_assert_int_eq(graph_input(g, "past_key_values.0.value")->shape[2].v, 24);
    graph_free(g);

    /* capacity below the sequence bound: inference rejects it */
    g = import_testdata("gqa_genai_interface.onnx", &io);
    po.kv_capacity = 8;
    ck_assert_int_eq(pass_run_list(g, kv, 1, &po), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "capacity"));
    graph_free(g);
}
END_TEST

START_TEST(import_rejects_qk_output) {
    static const DimSetting fix[] = {{"batch_size", 1}, {"sequence_length", 1}, {"past_sequence_length", 8},
                                     {"total_sequence_length", 9}};
    ImportOptions io = {fix, 4, NULL, 0};
    Graph *g = import_testdata("gqa_bad_qk_output.onnx", &io);
    ck_assert_ptr_null(g);
    ck_assert_msg(strstr(diag_message(), "/model/layers.0/attn/GroupQueryAttention") != NULL, "%s", diag_message());
    ck_assert_ptr_nonnull(strstr(diag_message(), "qk_output"));
}
END_TEST

static Suite *gqa_suite(void) {
    Suite *s = suite_create("decompose_gqa");
    TCase *tc = tcase_create("gqa");
    tcase_add_test(tc, decompose_prefill_packed);
    tcase_add_test(tc, decompose_variants);
    tcase_add_test(tc, reference_hand_computed);
    tcase_add_test(tc, infer_symbolic_and_decompose);
    tcase_add_test(tc, infer_rejections);
    tcase_add_test(tc, reference_matches_onnxruntime);
    tcase_add_test(tc, import_and_kv_cache);
    tcase_add_test(tc, import_rejects_qk_output);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(gqa_suite()); }
