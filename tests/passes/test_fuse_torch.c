/* test_fuse_torch.c - groupQueryAttention without a KV cache (reference vs decomposition, a
 * hand-computed case, inference rejections) and the torch-export fusions fuse_torch_rotary and
 * fuse_torch_attention on hand-built graphs shaped like the torch-dynamo exports of
 * ../shared/models/{llama,qwen2}-fp32-torch-dynamo (head reshape/transpose, rotate_half rotary with
 * run-time cos/sin of invFreq x positions or constant tables, repeat_kv by reshape/expand/reshape,
 * matmul * scale + causal mask, softmax, matmul, transpose/reshape).  Each fusion case builds the
 * same random graph twice: one copy is only folded (spec ops), the other fused first; the fused copy
 * must hold the expected extension op and fold (CPU reference, lib/eval) to the same outputs.  The
 * other export forms (issue 11): positions from an input (per-token rotary kept as rotaryEmbedding of
 * the GQA operands), q/k rmsNorm (absorbed as qNormWeight/kNormWeight, or kept before a per-token
 * rotation), SDPA's sqrt(scale) on each side with its 3-D K transpose, a [S, S] mask sliced from a
 * larger constant.  Near misses (non-causal mask, per-head scale, probabilities used elsewhere,
 * reversed rotation, a norm on q only, SDPA's scale on one side only) stay unfused. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "decompose_test_util.h"
#include "test_util.h"
#include "core.h"
#include "eval_internal.h"
#include "pass.h"

#define B 1
#define S 6
#define H 8
#define NQ 4
#define NKV 2

/* ---- small builders -------------------------------------------------------------------------- */

static Value *inserted(Graph *g, Node *n) {
    dt_insert(g, n);
    return n->outputs[0];
}
static Value *op1(Graph *g, OpId op, Value *x) { return inserted(g, dt_node(g, op, 1, (Value *[]){x})); }
static Value *op2(Graph *g, OpId op, Value *a, Value *b) { return inserted(g, dt_node(g, op, 2, (Value *[]){a, b})); }

static Value *with_ints(Graph *g, OpId op, Value *x, const char *key, int n, const int64_t *v) {
    Node *nd = graph_new_node(g, op, NULL);
    node_add_input(g, nd, x);
    node_set_ints(g, nd, key, n, v);
    dt_insert(g, nd);
    return nd->outputs[0];
}

static Value *reshape(Graph *g, Value *x, int rank, const int64_t *shape) {
    Dim d[WN_MAX_RANK];
    for (int i = 0; i < rank; i++) d[i] = dim_static(shape[i]);
    Node *nd = graph_new_node(g, OP_RESHAPE, NULL);
    node_add_input(g, nd, x);
    node_set_dims(g, nd, "newShape", rank, d);
    dt_insert(g, nd);
    return nd->outputs[0];
}

static Value *expand(Graph *g, Value *x, int rank, const int64_t *shape) {
    Dim d[WN_MAX_RANK];
    for (int i = 0; i < rank; i++) d[i] = dim_static(shape[i]);
    Node *nd = graph_new_node(g, OP_EXPAND, NULL);
    node_add_input(g, nd, x);
    node_set_dims(g, nd, "newShape", rank, d);
    dt_insert(g, nd);
    return nd->outputs[0];
}

static Value *slice_last(Graph *g, Value *x, int64_t start, int64_t size) {
    int64_t starts[WN_MAX_RANK] = {0};
    Dim sizes[WN_MAX_RANK];
    for (int i = 0; i < x->rank; i++) sizes[i] = x->shape[i];
    starts[x->rank - 1] = start;
    sizes[x->rank - 1] = dim_static(size);
    Node *nd = graph_new_node(g, OP_SLICE, NULL);
    node_add_input(g, nd, x);
    node_set_ints(g, nd, "starts", x->rank, starts);
    node_set_dims(g, nd, "sizes", x->rank, sizes);
    dt_insert(g, nd);
    return nd->outputs[0];
}

static Value *concat(Graph *g, Value *a, Value *b, int axis) {
    Node *nd = graph_new_node(g, OP_CONCAT, NULL);
    node_add_input(g, nd, a);
    node_add_input(g, nd, b);
    node_set_uint(g, nd, "axis", axis);
    dt_insert(g, nd);
    return nd->outputs[0];
}

static Value *input(Graph *g, const char *name, int rank, const int64_t *shape) {
    Value *x = dt_random(g, name, DT_F32, rank, shape, -1, 1);
    x->flags = (x->flags & ~(unsigned)VF_CONST) | VF_INPUT; /* nothing folds before the passes */
    return x;
}

static void fold(Graph *g) {
    for (int i = 0; i < g->n_values; i++) /* the activations made by input() */
        if (g->values[i] && (g->values[i]->flags & VF_INPUT) && g->values[i]->data)
            g->values[i]->flags = (g->values[i]->flags & ~(unsigned)VF_INPUT) | VF_CONST;
    dt_run_pass(g, "fold_constants");
}

static void same_outputs(Graph *a, Graph *b, double tol) {
    fold(a), fold(b);
    ck_assert_int_eq(a->n_outputs, b->n_outputs);
    for (int i = 0; i < a->n_outputs; i++) {
        Ten x, y;
        ck_assert_msg(ten_from_value(NULL, a->outputs[i], &x) == 0 && ten_from_value(NULL, b->outputs[i], &y) == 0,
                      "output %d did not fold", i);
        ck_assert_int_eq(x.count, y.count);
        for (int64_t e = 0; e < x.count; e++) {
            double p = ten_getf(&x, e), q = ten_getf(&y, e);
            ck_assert_msg(fabs(p - q) <= tol * (1 + fabs(p)), "output %d element %lld: %.9g vs %.9g", i, (long long)e, p, q);
        }
    }
}

/* ---- groupQueryAttention without a cache ------------------------------------------------------- */

static Node *gqa_nc(Graph *g, Value *q, Value *k, Value *v, Value *cos, Value *sin, int64_t nq, int64_t nkv) {
    Node *n = graph_new_node(g, OP_GROUP_QUERY_ATTENTION, "gqa");
    Value *ops[] = {q, k, v, NULL, NULL, NULL, NULL, cos, sin};
    for (int i = 0; i < (cos ? 9 : 3); i++) node_add_input(g, n, ops[i]);
    node_set_uint(g, n, "numHeads", nq);
    node_set_uint(g, n, "kvNumHeads", nkv);
    if (cos) node_set_bool(g, n, "doRotary", true);
    return n;
}

START_TEST(no_cache_decomposition) { /* reference (eval_gqa.c) vs decompose_gqa, rotary and not */
    for (int rot = 0; rot < 2; rot++) {
        dt_seed(11 + (uint64_t)rot);
        Graph *g = graph_new("nc");
        Value *q = dt_random(g, "q", DT_F32, 3, (int64_t[]){2, S, NQ * H}, -1, 1);
        Value *k = dt_random(g, "k", DT_F32, 3, (int64_t[]){2, S, NKV * H}, -1, 1);
        Value *v = dt_random(g, "v", DT_F32, 3, (int64_t[]){2, S, NKV * H}, -1, 1);
        Value *c = rot ? dt_random(g, "c", DT_F32, 2, (int64_t[]){S + 2, H / 2}, -1, 1) : NULL;
        Value *s = rot ? dt_random(g, "s", DT_F32, 2, (int64_t[]){S + 2, H / 2}, -1, 1) : NULL;
        Node *n = gqa_nc(g, q, k, v, c, s, NQ, NKV);
        dt_insert(g, n);
        ck_assert_int_eq(n->n_outputs, 1);
        ck_assert_int_gt(dt_check(g, n, "decompose_gqa", 1e-5, 1e-5), 10);
        graph_free(g);
    }
}
END_TEST

START_TEST(no_cache_by_hand) { /* S = 2, one head, H = 1: out0 = v0, out1 = softmax(q1 k0, q1 k1) . v */
    Graph *g = graph_new("hand");
    Value *q = dt_values(g, "q", DT_F32, 3, (int64_t[]){1, 2, 1}, (double[]){0.5, 2.0});
    Value *k = dt_values(g, "k", DT_F32, 3, (int64_t[]){1, 2, 1}, (double[]){1.0, 1.0});
    Value *v = dt_values(g, "v", DT_F32, 3, (int64_t[]){1, 2, 1}, (double[]){3.0, 5.0});
    Node *n = gqa_nc(g, q, k, v, NULL, NULL, 1, 1);
    dt_insert(g, n);
    graph_add_output(g, n->outputs[0]);
    dt_run_pass(g, "fold_constants");
    Ten t;
    ck_assert_int_eq(ten_from_value(NULL, g->outputs[0], &t), 0);
    ck_assert(fabs(ten_getf(&t, 0) - 3.0) < 1e-6); /* token 0 sees only key 0 */
    ck_assert(fabs(ten_getf(&t, 1) - 4.0) < 1e-6); /* equal scores: the mean of 3 and 5 */
    graph_free(g);
}
END_TEST

START_TEST(no_cache_rejections) {
    Graph *g = graph_new("bad");
    Value *q = dt_random(g, "q", DT_F32, 3, (int64_t[]){1, S, NQ * H}, -1, 1);
    Value *k = dt_random(g, "k", DT_F32, 3, (int64_t[]){1, S, NKV * H}, -1, 1);
    Value *seq = dt_values(g, "sl", DT_I32, 1, (int64_t[]){1}, (double[]){S - 1});
    Node *n = gqa_nc(g, q, k, k, NULL, NULL, NQ, NKV);
    node_add_input(g, n, NULL), node_add_input(g, n, NULL), node_add_input(g, n, seq); /* seqlensK without a cache */
    diag_clear();
    ck_assert_int_lt(graph_insert_node(g, n), 0);
    ck_assert_ptr_nonnull(strstr(diag_message(), "seqlensK"));
    Value *k5 = dt_random(g, "k5", DT_F32, 3, (int64_t[]){1, S, NKV * H + 1}, -1, 1);
    n = gqa_nc(g, q, k5, k5, NULL, NULL, NQ, NKV); /* key width not a multiple of kvNumHeads */
    diag_clear();
    ck_assert_int_lt(graph_insert_node(g, n), 0);
    diag_clear();
    graph_free(g);
}
END_TEST

/* ---- torch-form graphs --------------------------------------------------------------------------- */

typedef struct {
    bool table_const;   /* cos/sin tables as constants [S, H] (else run-time invFreq x positions) */
    bool reverse_rot;   /* rotate_half the wrong way round (x2, -x1): not a rotary */
    bool non_causal;    /* a mask with one visible future key */
    bool per_head_scale;/* the scale is a [1, N, 1, 1] tensor */
    bool probs_out;     /* the probabilities are also a graph output */
    int64_t kv;         /* kv heads (NQ: no repeat_kv) */
    bool positions_in;  /* run-time tables from positions that are an input (per-token rotary) */
    bool q_norm, k_norm;/* rmsNorm over H on the q / k heads */
    bool sdpa;          /* matmul(mul(q, sqrt s), mul(K^T, sqrt s)), K^T by 3-D reshape/transpose */
    bool sdpa_one_side; /* ... with the scale on q only (the scores then lack a factor) */
    bool mask_2d;       /* the mask a [S, S] prefix slice of a [S + 2, S + 2] constant */
} TorchCase;

/* cos/sin tables [1, S, H] (halves equal): run-time cos/sin(concat(f, f)) or constants. */
static void tables(Graph *g, const TorchCase *c, Value **cos_t, Value **sin_t) {
    float inv[H / 2], pos[S];
    for (int i = 0; i < H / 2; i++) inv[i] = (float)pow(10000.0, -2.0 * i / H);
    for (int p = 0; p < S; p++) pos[p] = (float)p;
    if (!c->table_const) {
        Value *iv = graph_add_const_copy(g, "inv_freq", DT_F32, 3, (int64_t[]){1, H / 2, 1}, inv, sizeof inv);
        Value *ps = c->positions_in ? input(g, "positions", 3, (int64_t[]){1, 1, S})
                                    : graph_add_const_copy(g, "positions", DT_F32, 3, (int64_t[]){1, 1, S}, pos, sizeof pos);
        Value *f = with_ints(g, OP_TRANSPOSE, op2(g, OP_MATMUL, iv, ps), "permutation", 3, (int64_t[]){0, 2, 1});
        Value *e = concat(g, f, f, 2);
        *cos_t = op1(g, OP_COS, e), *sin_t = op1(g, OP_SIN, e);
        return;
    }
    float ct[S * H], st[S * H];
    for (int p = 0; p < S; p++)
        for (int i = 0; i < H; i++) {
            double a = (double)(float)(inv[i % (H / 2)] * pos[p]);
            ct[p * H + i] = (float)cos(a), st[p * H + i] = (float)sin(a);
        }
    *cos_t = graph_add_const_copy(g, "cos_table", DT_F32, 3, (int64_t[]){1, S, H}, ct, sizeof ct);
    *sin_t = graph_add_const_copy(g, "sin_table", DT_F32, 3, (int64_t[]){1, S, H}, st, sizeof st);
}

/* x * cos + rotate_half(x) * sin on x [1, n, S, H]. */
static Value *torch_rotary(Graph *g, const TorchCase *c, Value *x, Value *cos4, Value *sin4) {
    Value *x1 = slice_last(g, x, 0, H / 2), *x2 = slice_last(g, x, H / 2, H / 2);
    Value *rh = c->reverse_rot ? concat(g, x2, op1(g, OP_NEG, x1), 3) : concat(g, op1(g, OP_NEG, x2), x1, 3);
    return op2(g, OP_ADD, op2(g, OP_MUL, x, cos4), op2(g, OP_MUL, rh, sin4));
}

static Value *heads(Graph *g, Value *x3, int64_t n, bool norm) {
    Value *x4 = reshape(g, x3, 4, (int64_t[]){B, S, n, H});
    if (norm) {
        Node *nd = graph_new_node(g, OP_RMS_NORM, NULL);
        node_add_input(g, nd, x4);
        node_add_input(g, nd, dt_random(g, "norm_w", DT_F32, 1, (int64_t[]){H}, 0.5, 1.5));
        node_set_uint(g, nd, "axis", 3);
        node_set_float(g, nd, "epsilon", 1e-6);
        x4 = inserted(g, nd);
    }
    return with_ints(g, OP_TRANSPOSE, x4, "permutation", 4, (int64_t[]){0, 2, 1, 3});
}

/* K^T as SDPA's lowering writes it: reshape(transpose(reshape(k, [N, S, H]), [0, 2, 1]), [1, N, H, S]). */
static Value *transpose_3d(Graph *g, Value *k) {
    Value *k3 = reshape(g, k, 3, (int64_t[]){NQ, S, H});
    k3 = with_ints(g, OP_TRANSPOSE, k3, "permutation", 3, (int64_t[]){0, 2, 1});
    return reshape(g, k3, 4, (int64_t[]){B, NQ, H, S});
}

static Value *repeat_kv(Graph *g, Value *x, int64_t kv) {
    if (kv == NQ) return x;
    Value *r = reshape(g, x, 5, (int64_t[]){B, kv, 1, S, H});
    r = expand(g, r, 5, (int64_t[]){B, kv, NQ / kv, S, H});
    return reshape(g, r, 4, (int64_t[]){B, NQ, S, H});
}

static Graph *torch_graph(const TorchCase *c, uint64_t seed) {
    dt_seed(seed);
    Graph *g = graph_new("torch");
    int64_t kv = c->kv;
    Value *q3 = input(g, "q_proj", 3, (int64_t[]){B, S, NQ * H});
    Value *k3 = input(g, "k_proj", 3, (int64_t[]){B, S, kv * H});
    Value *v3 = input(g, "v_proj", 3, (int64_t[]){B, S, kv * H});
    Value *cos, *sin;
    tables(g, c, &cos, &sin);
    Value *cos4 = reshape(g, cos, 4, (int64_t[]){1, 1, S, H}), *sin4 = reshape(g, sin, 4, (int64_t[]){1, 1, S, H});
    Value *q = torch_rotary(g, c, heads(g, q3, NQ, c->q_norm), cos4, sin4);
    Value *k = repeat_kv(g, torch_rotary(g, c, heads(g, k3, kv, c->k_norm), cos4, sin4), kv);
    Value *v = repeat_kv(g, heads(g, v3, kv, false), kv);
    Value *kt = c->sdpa || c->sdpa_one_side ? transpose_3d(g, k) : with_ints(g, OP_TRANSPOSE, k, "permutation", 4, (int64_t[]){0, 1, 3, 2});
    double scale[NQ];
    for (int i = 0; i < NQ; i++) scale[i] = 1.0 / sqrt((double)H) * (c->per_head_scale ? 1.0 + 0.1 * i : 1.0);
    Value *sc = c->per_head_scale ? dt_values(g, "scale", DT_F32, 4, (int64_t[]){1, NQ, 1, 1}, scale)
                                  : dt_values(g, "scale", DT_F32, 0, NULL, scale);
    enum { M = S + 2 };
    double mask[M * M];
    int64_t rows = c->mask_2d ? M : S;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < rows; j++) mask[i * rows + j] = j <= i || (c->non_causal && j == i + 1) ? 0.0 : -3.4028234663852886e38;
    Value *m = c->mask_2d ? dt_values(g, "mask", DT_F32, 2, (int64_t[]){M, M}, mask)
                          : dt_values(g, "mask", DT_F32, 4, (int64_t[]){1, 1, S, S}, mask);
    if (c->mask_2d) { /* the [S, S] prefix */
        Node *nd = graph_new_node(g, OP_SLICE, NULL);
        node_add_input(g, nd, m);
        node_set_ints(g, nd, "starts", 2, (int64_t[]){0, 0});
        node_set_dims(g, nd, "sizes", 2, (Dim[]){dim_static(S), dim_static(S)});
        m = inserted(g, nd);
    }
    Value *scores;
    if (c->sdpa || c->sdpa_one_side) {
        double root = sqrt(scale[0]);
        Value *r = dt_values(g, "sqrt_scale", DT_F32, 0, NULL, &root);
        scores = op2(g, OP_MATMUL, op2(g, OP_MUL, q, r), c->sdpa_one_side ? kt : op2(g, OP_MUL, kt, r));
    } else {
        scores = op2(g, OP_MUL, op2(g, OP_MATMUL, q, kt), sc);
    }
    Value *logits = op2(g, OP_ADD, scores, m);
    Node *sm = graph_new_node(g, OP_SOFTMAX, NULL);
    node_add_input(g, sm, logits);
    node_set_uint(g, sm, "axis", 3);
    dt_insert(g, sm);
    Value *o = op2(g, OP_MATMUL, sm->outputs[0], v);
    o = with_ints(g, OP_TRANSPOSE, o, "permutation", 4, (int64_t[]){0, 2, 1, 3});
    graph_add_output(g, reshape(g, o, 3, (int64_t[]){B, S, NQ * H}));
    if (c->probs_out) graph_add_output(g, sm->outputs[0]);
    return g;
}

/* Fuses a copy with `passes` (NULL-terminated), checks the op counts (rmsNorm too, when want_norms
 * >= 0) and compares with the unfused copy. */
static void torch_case_norms(const TorchCase *c, const char *const *passes, int want_gqa, int want_rotary, int want_norms) {
    Graph *ref = torch_graph(c, 5), *f = torch_graph(c, 5);
    for (int i = 0; passes[i]; i++) dt_run_pass(f, passes[i]);
    dt_run_pass(f, "dce");
    ck_assert_int_eq(dt_count_op(f, OP_GROUP_QUERY_ATTENTION), want_gqa);
    ck_assert_int_eq(dt_count_op(f, OP_ROTARY_EMBEDDING), want_rotary);
    if (want_gqa) ck_assert_int_eq(dt_count_op(f, OP_SOFTMAX), 0);
    if (want_norms >= 0) ck_assert_int_eq(dt_count_op(f, OP_RMS_NORM), want_norms);
    ck_assert_int_eq(graph_verify(f, 0), 0);
    same_outputs(ref, f, 2e-5);
    graph_free(ref);
    graph_free(f);
}

static void torch_case(const TorchCase *c, const char *const *passes, int want_gqa, int want_rotary) {
    torch_case_norms(c, passes, want_gqa, want_rotary, -1);
}

static const char *const ATT[] = {"fuse_torch_attention", NULL};
static const char *const ROT[] = {"fuse_torch_rotary", NULL};
static const char *const ROT_ATT[] = {"fuse_torch_rotary", "fuse_torch_attention", NULL};

START_TEST(torch_attention_fuses) {
    for (int tc = 0; tc < 2; tc++) {
        TorchCase c = {.table_const = tc, .kv = NKV};
        torch_case(&c, ATT, 1, 0);     /* rotary read inline into doRotary */
        torch_case(&c, ROT_ATT, 1, 0); /* rotaryEmbedding nodes folded into doRotary */
        torch_case(&c, ROT, 0, 2);     /* q and k rotaries alone */
    }
    TorchCase mha = {.kv = NQ}; /* no repeat_kv */
    torch_case(&mha, ATT, 1, 0);
}
END_TEST

START_TEST(torch_export_forms) {
    TorchCase pt = {.kv = NKV, .positions_in = true}; /* per-token: rotaryEmbedding of q and k stay */
    torch_case(&pt, ROT_ATT, 1, 2);
    torch_case(&pt, ATT, 0, 0); /* per-token tables need fuse_torch_rotary first */
    TorchCase qkn = {.kv = NKV, .q_norm = true, .k_norm = true}; /* norms absorbed */
    torch_case_norms(&qkn, ROT_ATT, 1, 0, 0);
    TorchCase qkn_pt = {.kv = NKV, .q_norm = true, .k_norm = true, .positions_in = true}; /* norms kept */
    torch_case_norms(&qkn_pt, ROT_ATT, 1, 2, 2);
    TorchCase sdpa = {.kv = NKV, .sdpa = true, .mask_2d = true};
    torch_case(&sdpa, ROT_ATT, 1, 0);
    TorchCase all = {.kv = NKV, .sdpa = true, .mask_2d = true, .q_norm = true, .k_norm = true, .table_const = true};
    torch_case_norms(&all, ATT, 1, 0, 0);
}
END_TEST

START_TEST(torch_near_misses) {
    TorchCase nc = {.kv = NKV, .non_causal = true};
    torch_case(&nc, ROT_ATT, 0, 2);
    TorchCase ph = {.kv = NKV, .per_head_scale = true};
    torch_case(&ph, ROT_ATT, 0, 2);
    TorchCase po = {.kv = NKV, .probs_out = true};
    torch_case(&po, ROT_ATT, 0, 2);
    TorchCase rr = {.kv = NKV, .reverse_rot = true};
    torch_case(&rr, ROT_ATT, 0, 0);
    TorchCase qn = {.kv = NKV, .q_norm = true}; /* a norm on q only, static rotary */
    torch_case_norms(&qn, ROT_ATT, 0, 2, 1);
    TorchCase one = {.kv = NKV, .sdpa_one_side = true};
    torch_case(&one, ROT_ATT, 0, 2);
    TorchCase nc2 = {.kv = NKV, .mask_2d = true, .non_causal = true};
    torch_case(&nc2, ROT_ATT, 0, 2);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("fuse_torch");
    TCase *tc = tcase_create("torch");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, no_cache_decomposition);
    tcase_add_test(tc, no_cache_by_hand);
    tcase_add_test(tc, no_cache_rejections);
    tcase_add_test(tc, torch_attention_fuses);
    tcase_add_test(tc, torch_export_forms);
    tcase_add_test(tc, torch_near_misses);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    diag_clear();
    return tu_run_suite(suite());
}
