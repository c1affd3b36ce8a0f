/* test_fuse_blocks.c - the block-level fusion passes: fuse_gqa, fuse_rotary (and the fold of
 * rotaries into GQA), fuse_qkv and fuse_gated_mlp.  Every case builds the same random graph twice
 * (same seed): one copy is only folded (the CPU reference evaluator runs the extension ops with ORT
 * semantics, lib/eval), the other is decomposed and/or fused first; the fused copy must hold the
 * expected extension op and fold to the same outputs.  Near misses (another scale, a non-causal mask,
 * an interior value used elsewhere, a different rotation, mismatched block sizes, another activation)
 * must leave the graph unfused.  Activations are graph inputs while passes run (nothing folds early)
 * and become constants only for the evaluation. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "decompose_test_util.h"
#include "test_util.h"
#include "core.h"
#include "eval_internal.h"
#include "pass.h"

#define MAX_ACT 8

typedef struct {
    Graph *g;
    Value *acts[MAX_ACT];
    int n_acts;
} Twin;

static Value *act(Twin *t, const char *name, DType dt, int rank, const int64_t *shape, double lo, double hi) {
    Value *x = dt_random(t->g, name, dt, rank, shape, lo, hi);
    x->flags = (x->flags & ~(unsigned)VF_CONST) | VF_INPUT;
    if (t->n_acts < MAX_ACT) t->acts[t->n_acts++] = x;
    return x;
}

static void fold(Twin *t) {
    for (int i = 0; i < t->n_acts; i++) t->acts[i]->flags = (t->acts[i]->flags & ~(unsigned)VF_INPUT) | VF_CONST;
    dt_run_pass(t->g, "fold_constants");
}

/* Outputs of a (folded) and b (folded) agree within tol. */
static void same_outputs(Twin *a, Twin *b, double tol) {
    fold(a), fold(b);
    ck_assert_int_eq(a->g->n_outputs, b->g->n_outputs);
    for (int i = 0; i < a->g->n_outputs; i++) {
        Ten x, y;
        ck_assert_msg(ten_from_value(NULL, a->g->outputs[i], &x) == 0 && ten_from_value(NULL, b->g->outputs[i], &y) == 0,
                      "output %d did not fold", i);
        ck_assert_int_eq(x.count, y.count);
        for (int64_t e = 0; e < x.count; e++) {
            double p = ten_getf(&x, e), q = ten_getf(&y, e);
            ck_assert_msg(fabs(p - q) <= tol * (1 + fabs(p)), "output %d element %lld: %.9g vs %.9g", i, (long long)e, p, q);
        }
    }
}

static void twin_free(Twin *t) { graph_free(t->g); }

/* ---- groupQueryAttention ------------------------------------------------------------------------ */

typedef struct {
    bool packed, rotary, interleaved, softcap, window, smooth, f16;
} GqaCase;

enum { B = 1, S = 4, N = 4, KV = 2, H = 16, C = 16, PAST = 3, MAXPOS = 32 };

static Node *gqa(Twin *t, const GqaCase *c) {
    Graph *g = t->g;
    DType dt = c->f16 ? DT_F16 : DT_F32;
    Value *in[GQA_SLOTS] = {0};
    if (c->packed) {
        in[GQA_QUERY] = act(t, "qkv", dt, 3, (const int64_t[]){B, S, (N + 2 * KV) * H}, -1, 1);
    } else {
        in[GQA_QUERY] = act(t, "q", dt, 3, (const int64_t[]){B, S, N * H}, -1, 1);
        in[GQA_KEY] = act(t, "k", dt, 3, (const int64_t[]){B, S, KV * H}, -1, 1);
        in[GQA_VALUE] = act(t, "v", dt, 3, (const int64_t[]){B, S, KV * H}, -1, 1);
    }
    in[GQA_PAST_KEY] = act(t, "past_k", dt, 4, (const int64_t[]){B, KV, C, H}, -1, 1);
    in[GQA_PAST_VALUE] = act(t, "past_v", dt, 4, (const int64_t[]){B, KV, C, H}, -1, 1);
    in[GQA_SEQLENS_K] = act(t, "seqlens_k", DT_I32, 1, (const int64_t[]){B}, PAST + S - 1, PAST + S - 1);
    in[GQA_TOTAL_SEQ] = dt_values(g, "total", DT_I32, 1, (const int64_t[]){1}, (const double[]){PAST + S});
    if (c->rotary) {
        in[GQA_COS] = dt_random(g, "cos", dt, 2, (const int64_t[]){MAXPOS, H / 2}, -1, 1);
        in[GQA_SIN] = dt_random(g, "sin", dt, 2, (const int64_t[]){MAXPOS, H / 2}, -1, 1);
    }
    Node *n = dt_node(g, OP_GROUP_QUERY_ATTENTION, GQA_SLOTS, in);
    node_set_uint(g, n, "numHeads", N);
    node_set_uint(g, n, "kvNumHeads", KV);
    if (c->rotary) node_set_bool(g, n, "doRotary", true);
    if (c->interleaved) node_set_bool(g, n, "rotaryInterleaved", true);
    if (c->softcap) node_set_float(g, n, "softcap", 30.0);
    if (c->window) node_set_int(g, n, "localWindowSize", 3);
    if (c->smooth) node_set_bool(g, n, "smoothSoftmax", true);
    dt_insert(g, n);
    for (int i = 0; i < n->n_outputs; i++) graph_add_output(g, n->outputs[i]);
    return n;
}

static Twin gqa_twin(const GqaCase *c) {
    Twin t = {.g = graph_new("gqa")};
    dt_seed(11);
    gqa(&t, c);
    return t;
}

START_TEST(gqa_round_trip) {
    static const GqaCase cases[] = {
        {.packed = true, .rotary = true}, {.rotary = true, .interleaved = true}, {.softcap = true},
        {.window = true, .rotary = true}, {.smooth = true}, {.packed = true, .rotary = true, .f16 = true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Twin ref = gqa_twin(&cases[i]), fused = gqa_twin(&cases[i]);
        dt_run_pass(fused.g, "decompose_gqa");
        ck_assert_int_eq(dt_count_op(fused.g, OP_GROUP_QUERY_ATTENTION), 0);
        dt_run_pass(fused.g, "fuse_gqa");
        dt_run_pass(fused.g, "dce");
        ck_assert_msg(dt_count_op(fused.g, OP_GROUP_QUERY_ATTENTION) == 1, "case %zu did not fuse", i);
        ck_assert_int_eq(graph_node_count(fused.g), 1);
        Node *f = fused.g->nodes[0];
        ck_assert_int_eq(node_bool(f, "doRotary", false), cases[i].rotary);
        ck_assert_int_eq(node_int(f, "localWindowSize", 0), cases[i].window ? 3 : 0);
        same_outputs(&ref, &fused, cases[i].f16 ? 2e-3 : 1e-5);
        twin_free(&ref), twin_free(&fused);
    }
}
END_TEST

static Node *find(Graph *g, OpId op) {
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->op == op) return g->nodes[i];
    return NULL;
}

/* The scores' scale becomes `scale` (rank 0) or a different value per head. */
static void set_scale(Graph *g, bool per_head) {
    Node *mm = find(g, OP_SOFTMAX);
    Node *wh = mm->inputs[0]->producer, *sc = wh->inputs[1]->producer;
    ck_assert_int_eq(sc->op, OP_MUL);
    sc->inputs[1] = per_head ? dt_values(g, "scale", DT_F32, 4, (const int64_t[]){1, N, 1, 1}, (const double[]){0.3, 0.2, 0.3, 0.3})
                             : dt_values(g, "scale", DT_F32, 0, NULL, (const double[]){0.3});
}
static void other_scale(Graph *g) { set_scale(g, false); }
static void per_head_scale(Graph *g) { set_scale(g, true); }
static void non_causal(Graph *g) { find(g, OP_LESSER_OR_EQUAL)->op = OP_GREATER_OR_EQUAL; }
static void probs_used(Graph *g) { graph_add_output(g, find(g, OP_SOFTMAX)->outputs[0]); }
static void nothing(Graph *g) { (void)g; }

/* The decomposed attention, changed in one place, must not fuse. */
static int gqa_after(void (*change)(Graph *g)) {
    GqaCase c = {.rotary = true};
    Twin t = gqa_twin(&c);
    dt_run_pass(t.g, "decompose_gqa");
    change(t.g);
    dt_run_pass(t.g, "fuse_gqa");
    int fused = dt_count_op(t.g, OP_GROUP_QUERY_ATTENTION);
    if (change == other_scale && fused) ck_assert_float_eq_tol(node_float(find(t.g, OP_GROUP_QUERY_ATTENTION), "scale", 0), 0.3, 1e-7);
    twin_free(&t);
    return fused;
}

START_TEST(gqa_near_misses) {
    ck_assert_int_eq(gqa_after(nothing), 1); /* the unchanged decomposition does fuse */
    ck_assert_int_eq(gqa_after(other_scale), 1); /* another uniform scale is GQA with that scale option */
    ck_assert_int_eq(gqa_after(per_head_scale), 0);
    ck_assert_int_eq(gqa_after(non_causal), 0);
    ck_assert_int_eq(gqa_after(probs_used), 0);
}
END_TEST

/* ---- rotaryEmbedding ----------------------------------------------------------------------------- */

static Node *rotary(Twin *t, Value *x, Value *pos, Value *cos, Value *sin, int64_t heads, bool inter, int64_t rot_dim) {
    Node *n = dt_node(t->g, OP_ROTARY_EMBEDDING, 4, (Value *[]){x, pos, cos, sin});
    node_set_uint(t->g, n, "numHeads", heads);
    if (inter) node_set_bool(t->g, n, "interleaved", true);
    if (rot_dim) node_set_uint(t->g, n, "rotaryEmbeddingDim", rot_dim);
    dt_insert(t->g, n);
    return n;
}

static Twin rotary_twin(bool inter, bool partial) {
    Twin t = {.g = graph_new("rotary")};
    dt_seed(5);
    int64_t half = partial ? H / 4 : H / 2;
    Value *x = act(&t, "x", DT_F32, 3, (const int64_t[]){B, S, N * H}, -1, 1);
    Value *pos = act(&t, "pos", DT_I64, 2, (const int64_t[]){B, S}, 0, MAXPOS - 1);
    Value *cs = dt_random(t.g, "cos", DT_F32, 2, (const int64_t[]){MAXPOS, half}, -1, 1);
    Value *sn = dt_random(t.g, "sin", DT_F32, 2, (const int64_t[]){MAXPOS, half}, -1, 1);
    graph_add_output(t.g, rotary(&t, x, pos, cs, sn, N, inter, partial ? 2 * half : 0)->outputs[0]);
    return t;
}

START_TEST(rotary_round_trip) {
    for (int v = 0; v < 4; v++) {
        Twin ref = rotary_twin(v & 1, v & 2), fused = rotary_twin(v & 1, v & 2);
        dt_run_pass(fused.g, "decompose_rotary");
        dt_run_pass(fused.g, "fuse_rotary");
        dt_run_pass(fused.g, "dce");
        ck_assert_msg(dt_count_op(fused.g, OP_ROTARY_EMBEDDING) == 1 && graph_node_count(fused.g) == 1, "variant %d", v);
        same_outputs(&ref, &fused, 1e-6);
        twin_free(&ref), twin_free(&fused);
    }
}
END_TEST

START_TEST(rotary_near_miss) { /* y1 = x1 c + x2 s (a rotation the other way) is not rotaryEmbedding */
    Twin t = rotary_twin(false, false);
    dt_run_pass(t.g, "decompose_rotary");
    find(t.g, OP_SUB)->op = OP_ADD;
    dt_run_pass(t.g, "fuse_rotary");
    ck_assert_int_eq(dt_count_op(t.g, OP_ROTARY_EMBEDDING), 0);
    twin_free(&t);
}
END_TEST

/* rotary(q), rotary(k) -> GQA (the dml form) becomes one GQA with doRotary and positionIds. */
static Twin dml_twin(bool k_other_pos) {
    GqaCase c = {0};
    Twin t = {.g = graph_new("dml")};
    dt_seed(3);
    Node *n = gqa(&t, &c);
    Value *pos = act(&t, "pos", DT_I64, 2, (const int64_t[]){B, S}, PAST, PAST + S - 1);
    Value *pos2 = k_other_pos ? act(&t, "pos2", DT_I64, 2, (const int64_t[]){B, S}, 0, MAXPOS - 1) : pos;
    Value *cs = dt_random(t.g, "cos", DT_F32, 2, (const int64_t[]){MAXPOS, H / 2}, -1, 1);
    Value *sn = dt_random(t.g, "sin", DT_F32, 2, (const int64_t[]){MAXPOS, H / 2}, -1, 1);
    Node *rq = rotary(&t, n->inputs[GQA_QUERY], pos, cs, sn, N, false, 0);
    Node *rk = rotary(&t, n->inputs[GQA_KEY], pos2, cs, sn, KV, false, 0);
    n->inputs[GQA_QUERY] = rq->outputs[0], n->inputs[GQA_KEY] = rk->outputs[0];
    /* keep the topological order: the rotaries were appended after the GQA node */
    for (int i = 0; i < t.g->n_nodes; i++)
        if (t.g->nodes[i] == n) {
            memmove(t.g->nodes + i, t.g->nodes + i + 1, sizeof *t.g->nodes * (size_t)(t.g->n_nodes - i - 1));
            t.g->nodes[t.g->n_nodes - 1] = n;
            break;
        }
    for (int i = 0; i < t.g->n_nodes; i++) t.g->nodes[i]->index = i;
    return t;
}

START_TEST(rotary_into_gqa) {
    Twin ref = dml_twin(false), fused = dml_twin(false);
    dt_run_pass(fused.g, "fuse_rotary");
    dt_run_pass(fused.g, "dce");
    ck_assert_int_eq(graph_node_count(fused.g), 1);
    ck_assert(node_bool(fused.g->nodes[0], "doRotary", false));
    same_outputs(&ref, &fused, 1e-5);
    twin_free(&ref), twin_free(&fused);
    Twin other = dml_twin(true); /* q and k rotated at different positions: stays outside */
    dt_run_pass(other.g, "fuse_rotary");
    ck_assert_int_eq(dt_count_op(other.g, OP_ROTARY_EMBEDDING), 2);
    twin_free(&other);
}
END_TEST

/* ---- qkvProjection / gatedMlp ---------------------------------------------------------------------- */

enum { K = 64, BLOCK = 32 };

static Node *nbits(Twin *t, Value *a, int64_t n, int64_t block, bool zp, bool bias) {
    int64_t kb = K / block;
    Value *b = dt_random(t->g, "b", DT_U8, 3, (const int64_t[]){n, kb, block / 2}, 0, 255);
    Value *s = dt_random(t->g, "s", DT_F32, 2, (const int64_t[]){n, kb}, -0.2, 0.2);
    Value *z = zp ? dt_random(t->g, "z", DT_U8, 2, (const int64_t[]){n, (kb + 1) / 2}, 0, 255) : NULL;
    Value *bi = bias ? dt_random(t->g, "bias", DT_F32, 1, &n, -1, 1) : NULL;
    Node *nd = dt_node(t->g, OP_MATMUL_NBITS, 5, (Value *[]){a, b, s, z, bi});
    node_set_uint(t->g, nd, "k", K);
    node_set_uint(t->g, nd, "n", n);
    node_set_uint(t->g, nd, "bits", 4);
    node_set_uint(t->g, nd, "blockSize", block);
    dt_insert(t->g, nd);
    return nd;
}

/* skip ? skipRmsNorm (sum used later) : rmsNorm, then projections as `kind` says:
 * 0: q, k, v (k's block `kblock`); 1: gate/up with silu (`act_op` on the gate); 2: one projection
 * of 8 * K columns (a vocabulary head: left alone); 3: one of 2 * K (a packed QKV). */
static Twin proj_twin(bool skip, int kind, int64_t kblock, OpId act_op, bool leak) {
    Twin t = {.g = graph_new("proj")};
    dt_seed(9);
    Graph *g = t.g;
    Value *x = act(&t, "x", DT_F32, 3, (const int64_t[]){1, S, K}, -2, 2);
    Value *w = dt_random(g, "w", DT_F32, 1, (const int64_t[]){K}, 0.5, 1.5);
    Node *norm;
    if (skip) {
        Value *r = act(&t, "res", DT_F32, 3, (const int64_t[]){1, S, K}, -2, 2);
        norm = dt_node(g, OP_SKIP_RMS_NORM, 3, (Value *[]){x, r, w});
        node_set_uint(g, norm, "outputCount", 2);
    } else {
        norm = dt_node(g, OP_RMS_NORM, 2, (Value *[]){x, w});
        node_set_uint(g, norm, "axis", 2);
    }
    node_set_float(g, norm, "epsilon", 1e-6);
    dt_insert(g, norm);
    Value *h = norm->outputs[0];
    if (skip) graph_add_output(g, norm->outputs[1]);
    if (leak) graph_add_output(g, h);
    if (kind >= 2) {
        graph_add_output(g, nbits(&t, h, kind == 2 ? 8 * K : 2 * K, BLOCK, false, false)->outputs[0]);
    } else if (kind == 0) {
        graph_add_output(g, nbits(&t, h, 32, BLOCK, true, true)->outputs[0]);
        graph_add_output(g, nbits(&t, h, 16, kblock, false, true)->outputs[0]);
        graph_add_output(g, nbits(&t, h, 16, BLOCK, true, false)->outputs[0]);
    } else {
        Node *gate = nbits(&t, h, 24, BLOCK, true, false), *up = nbits(&t, h, 24, BLOCK, false, false);
        Node *a = dt_node(g, act_op, 1, (Value *[]){gate->outputs[0]});
        dt_insert(g, a);
        Node *mul = dt_node(g, OP_MUL, 2, (Value *[]){up->outputs[0], a->outputs[0]});
        dt_insert(g, mul);
        graph_add_output(g, mul->outputs[0]);
    }
    return t;
}

START_TEST(qkv_round_trip) {
    for (int skip = 0; skip < 2; skip++) {
        Twin ref = proj_twin(skip, 0, BLOCK, OP_SILU, false), fused = proj_twin(skip, 0, BLOCK, OP_SILU, false);
        dt_run_pass(fused.g, "fuse_qkv");
        dt_run_pass(fused.g, "dce");
        ck_assert_int_eq(dt_count_op(fused.g, OP_QKV_PROJECTION), 1);
        ck_assert_int_eq(graph_node_count(fused.g), 1);
        ck_assert_int_eq(node_bool(fused.g->nodes[0], "outputSum", false), skip);
        same_outputs(&ref, &fused, 1e-5);
        twin_free(&ref), twin_free(&fused);
    }
}
END_TEST

START_TEST(qkv_near_misses) {
    Twin blocks = proj_twin(false, 0, 16, OP_SILU, false); /* k's block size differs */
    dt_run_pass(blocks.g, "fuse_qkv");
    ck_assert_int_eq(dt_count_op(blocks.g, OP_QKV_PROJECTION), 0);
    twin_free(&blocks);
    Twin leak = proj_twin(false, 0, BLOCK, OP_SILU, true); /* the normalized value is also an output */
    dt_run_pass(leak.g, "fuse_qkv");
    ck_assert_int_eq(dt_count_op(leak.g, OP_QKV_PROJECTION), 0);
    twin_free(&leak);
    for (int kind = 2; kind <= 3; kind++) { /* a vocabulary head stays a norm + matmulNBits; a packed QKV fuses */
        Twin one = proj_twin(true, kind, BLOCK, OP_SILU, false);
        dt_run_pass(one.g, "fuse_qkv");
        ck_assert_int_eq(dt_count_op(one.g, OP_QKV_PROJECTION), kind == 3);
        twin_free(&one);
    }
}
END_TEST

/* rmsNorm, then separate q, k and v projections (created v, q, k: graph order is not the attention's)
 * read only by a groupQueryAttention over a KV cache; `leak`: q is also a graph output. */
static Twin qkv_gqa_twin(bool leak) {
    Twin t = {.g = graph_new("qkv_gqa")};
    dt_seed(13);
    Graph *g = t.g;
    Value *x = act(&t, "x", DT_F32, 3, (const int64_t[]){1, S, K}, -2, 2);
    Value *w = dt_random(g, "w", DT_F32, 1, (const int64_t[]){K}, 0.5, 1.5);
    Node *norm = dt_node(g, OP_RMS_NORM, 2, (Value *[]){x, w});
    node_set_uint(g, norm, "axis", 2);
    node_set_float(g, norm, "epsilon", 1e-6);
    dt_insert(g, norm);
    Value *h = norm->outputs[0];
    Value *v = nbits(&t, h, KV * H, BLOCK, true, true)->outputs[0];
    Value *q = nbits(&t, h, N * H, BLOCK, false, true)->outputs[0];
    Value *k = nbits(&t, h, KV * H, BLOCK, true, false)->outputs[0];
    if (leak) graph_add_output(g, q);
    Value *in[GQA_SLOTS] = {0};
    in[GQA_QUERY] = q, in[GQA_KEY] = k, in[GQA_VALUE] = v;
    in[GQA_PAST_KEY] = act(&t, "past_k", DT_F32, 4, (const int64_t[]){1, KV, C, H}, -1, 1);
    in[GQA_PAST_VALUE] = act(&t, "past_v", DT_F32, 4, (const int64_t[]){1, KV, C, H}, -1, 1);
    in[GQA_SEQLENS_K] = act(&t, "seqlens_k", DT_I32, 1, (const int64_t[]){1}, PAST + S - 1, PAST + S - 1);
    in[GQA_TOTAL_SEQ] = dt_values(g, "total", DT_I32, 1, (const int64_t[]){1}, (const double[]){PAST + S});
    Node *att = dt_node(g, OP_GROUP_QUERY_ATTENTION, GQA_SLOTS, in);
    node_set_uint(g, att, "numHeads", N);
    node_set_uint(g, att, "kvNumHeads", KV);
    dt_insert(g, att);
    for (int i = 0; i < att->n_outputs; i++) graph_add_output(g, att->outputs[i]);
    return t;
}

/* Separate q, k, v read only by one attention become its packed QKV (q, k, v along n); with q read
 * elsewhere too, they stay three outputs. */
START_TEST(qkv_into_packed_attention) {
    for (int leak = 0; leak < 2; leak++) {
        Twin ref = qkv_gqa_twin(leak), fused = qkv_gqa_twin(leak);
        dt_run_pass(fused.g, "fuse_qkv");
        dt_run_pass(fused.g, "dce");
        Node *f = find(fused.g, OP_QKV_PROJECTION), *att = find(fused.g, OP_GROUP_QUERY_ATTENTION);
        ck_assert_msg(f && att, "leak %d: no qkvProjection", leak);
        ck_assert_int_eq(graph_node_count(fused.g), 2);
        const int64_t *splits;
        int n = node_ints(f, "splits", &splits);
        ck_assert_int_eq(n, leak ? 3 : 1);
        if (!leak) {
            ck_assert_int_eq(splits[0], (N + 2 * KV) * H);
            ck_assert_ptr_eq(att->inputs[GQA_QUERY], f->outputs[0]);
            ck_assert_ptr_null(att->inputs[GQA_KEY]);
            ck_assert_ptr_null(att->inputs[GQA_VALUE]);
        } else {
            ck_assert_ptr_nonnull(att->inputs[GQA_KEY]);
        }
        same_outputs(&ref, &fused, 1e-5);
        twin_free(&ref), twin_free(&fused);
    }
}
END_TEST

START_TEST(gated_mlp_round_trip) {
    for (int skip = 0; skip < 2; skip++) {
        Twin ref = proj_twin(skip, 1, BLOCK, OP_SILU, false), fused = proj_twin(skip, 1, BLOCK, OP_SILU, false);
        dt_run_pass(fused.g, "fuse_qkv"); /* a gated pair is not a qkv projection */
        ck_assert_int_eq(dt_count_op(fused.g, OP_QKV_PROJECTION), 0);
        dt_run_pass(fused.g, "fuse_gated_mlp");
        dt_run_pass(fused.g, "dce");
        ck_assert_int_eq(dt_count_op(fused.g, OP_GATED_MLP), 1);
        ck_assert_int_eq(graph_node_count(fused.g), 1);
        same_outputs(&ref, &fused, 1e-5);
        twin_free(&ref), twin_free(&fused);
    }
    Twin relu = proj_twin(false, 1, BLOCK, OP_RELU, false); /* another activation */
    dt_run_pass(relu.g, "fuse_gated_mlp");
    ck_assert_int_eq(dt_count_op(relu.g, OP_GATED_MLP), 0);
    twin_free(&relu);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("fuse_blocks");
    TCase *tc = tcase_create("blocks");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gqa_round_trip);
    tcase_add_test(tc, gqa_near_misses);
    tcase_add_test(tc, rotary_round_trip);
    tcase_add_test(tc, rotary_near_miss);
    tcase_add_test(tc, rotary_into_gqa);
    tcase_add_test(tc, qkv_round_trip);
    tcase_add_test(tc, qkv_into_packed_attention);
    tcase_add_test(tc, qkv_near_misses);
    tcase_add_test(tc, gated_mlp_round_trip);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    diag_clear();
    return tu_run_suite(suite());
}
