/* test_fuse.c - the fusion passes (passes/fuse_*.c).  Each pattern is matched (a) in the
 * decomposition its decompose pass emits for a reference extension node and (b) in the form torch
 * exports write by hand here; the fused graph must hold exactly the expected extension op and fold
 * (CPU evaluator) to the reference evaluation of the original extension node (lib/eval, ORT
 * semantics) on random inputs.  Near misses (an interior value used elsewhere, epsilon outside the
 * sqrt, a sigmoid of another value, a block that is not a power of two) must not fuse.  The
 * activation is a non-constant graph input while passes run (so nothing folds), made constant only
 * for the final evaluation. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "decompose_test_util.h"
#include "test_util.h"
#include "core.h"
#include "eval.h"
#include "eval_internal.h"
#include "pipeline_plan.h"
#include "pass.h"

static Graph *g;

static void setup(void) {
    diag_clear();
    g = graph_new("t");
    dt_seed(7);
}

static void teardown(void) {
    graph_free(g);
    g = NULL;
}

/* A random float activation that behaves as a graph input until `activate` makes it constant. */
static Value *act(const char *name, DType dt, int rank, const int64_t *shape) {
    Value *x = dt_random(g, name, dt, rank, shape, -2, 2);
    x->flags = (x->flags & ~(unsigned)VF_CONST) | VF_INPUT;
    return x;
}

static void activate(Value *x) { x->flags = (x->flags & ~(unsigned)VF_INPUT) | VF_CONST; }

static int count_op(OpId op) { return dt_count_op(g, op); }
static void run(const char *pass) { dt_run_pass(g, pass); }

/* Reference outputs of ext node n (evaluated now), kept as graph outputs. */
typedef struct {
    const void *data[4];
    Value *vals[4];
    int n;
} Ref;

static Ref reference(Node *n) {
    Ref r = {.n = n->n_outputs};
    uint64_t bytes[4];
    ck_assert_msg(eval_node(g, n, r.data, bytes) == 0, "reference: %s", diag_message());
    for (int i = 0; i < r.n; i++) r.vals[i] = n->outputs[i], graph_add_output(g, n->outputs[i]);
    return r;
}

/* Makes x constant, folds, compares every output with the reference. */
static void check_against(Ref *r, Value *x, double tol) {
    activate(x);
    run("fold_constants");
    for (int i = 0; i < r->n; i++) {
        Value *v = g->outputs[g->n_outputs - r->n + i];
        ck_assert_msg(v->flags & VF_CONST, "output %d did not fold", i);
        Ten got, want;
        ck_assert_int_eq(ten_from_value(NULL, v, &got), 0);
        want = got;
        want.data = (void *)r->data[i];
        for (int64_t e = 0; e < got.count; e++) {
            double a = ten_getf(&got, e), b = ten_getf(&want, e);
            ck_assert_msg(fabs(a - b) <= tol * (1 + fabs(b)), "output %d element %lld: %.9g vs %.9g", i, (long long)e, a, b);
        }
    }
}

/* ---- matmulNBits ------------------------------------------------------------------------------ */

static Node *nbits_node(DType dt, Value *a, int64_t k, int64_t n, int64_t block, int zp, bool bias) {
    int64_t kb = (k + block - 1) / block;
    Value *b = dt_random(g, "b", DT_U8, 3, (const int64_t[]){n, kb, block / 2}, 0, 255);
    Value *s = dt_random(g, "s", dt, 2, (const int64_t[]){n, kb}, -0.2, 0.2);
    Value *z = zp ? dt_random(g, "z", DT_U8, 2, (const int64_t[]){n, (kb + 1) / 2}, 0, 255) : NULL;
    Value *bi = bias ? dt_random(g, "bias", dt, 1, &n, -1, 1) : NULL;
    Node *nd = dt_node(g, OP_MATMUL_NBITS, 5, (Value *[]){a, b, s, z, bi});
    node_set_uint(g, nd, "k", k);
    node_set_uint(g, nd, "n", n);
    node_set_uint(g, nd, "bits", 4);
    node_set_uint(g, nd, "blockSize", block);
    dt_insert(g, nd);
    return nd;
}

START_TEST(matmul_nbits_round_trip) {
    static const struct { int64_t k, n, block; int zp; bool bias, f16; } cases[] = {
        {64, 8, 32, 0, false, false}, {64, 8, 16, 1, true, false}, {80, 5, 32, 1, false, false}, {128, 6, 64, 1, true, true}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        teardown();
        setup();
        DType dt = cases[i].f16 ? DT_F16 : DT_F32;
        Value *x = act("x", dt, 3, (const int64_t[]){1, 3, cases[i].k});
        Node *n = nbits_node(dt, x, cases[i].k, cases[i].n, cases[i].block, cases[i].zp, cases[i].bias);
        Ref r = reference(n);
        run("decompose_matmul_nbits");
        ck_assert_int_eq(count_op(OP_MATMUL_NBITS), 0);
        ck_assert_int_eq(count_op(OP_DEQUANTIZE_LINEAR), 1);
        run("fuse_matmul_nbits");
        run("dce");
        ck_assert_int_eq(count_op(OP_MATMUL_NBITS), 1);
        ck_assert_int_eq(graph_node_count(g), 1);
        check_against(&r, x, cases[i].f16 ? 2e-3 : 1e-6);
    }
}
END_TEST

/* The dequantized weight is also a graph output: the interior value is used elsewhere. */
START_TEST(matmul_nbits_interior_used_elsewhere) {
    Value *x = act("x", DT_F32, 2, (const int64_t[]){2, 64});
    nbits_node(DT_F32, x, 64, 4, 32, 0, false);
    graph_add_output(g, g->nodes[0]->outputs[0]);
    run("decompose_matmul_nbits");
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == OP_DEQUANTIZE_LINEAR) graph_add_output(g, g->nodes[i]->outputs[0]);
    run("fuse_matmul_nbits");
    ck_assert_int_eq(count_op(OP_MATMUL_NBITS), 0);
}
END_TEST

/* Blockwise dequantization with a block of 24 (not a power of two) must not become matmulNBits. */
START_TEST(matmul_nbits_bad_block) {
    Value *x = act("x", DT_F32, 2, (const int64_t[]){2, 48});
    Value *q = dt_random(g, "q", DT_U8, 3, (const int64_t[]){4, 2, 24}, 0, 255);
    Value *s = dt_random(g, "s", DT_F32, 3, (const int64_t[]){4, 2, 1}, -1, 1);
    Value *z = dt_random(g, "z", DT_U8, 3, (const int64_t[]){4, 2, 1}, 0, 255);
    Node *dq = dt_node(g, OP_DEQUANTIZE_LINEAR, 3, (Value *[]){q, s, z});
    dt_insert(g, dq);
    Node *rs = dt_node(g, OP_RESHAPE, 1, (Value *[]){dq->outputs[0]});
    node_set_dims(g, rs, "newShape", 2, (const Dim[]){dim_static(4), dim_static(48)});
    dt_insert(g, rs);
    Node *tr = dt_node(g, OP_TRANSPOSE, 1, (Value *[]){rs->outputs[0]});
    node_set_ints(g, tr, "permutation", 2, (const int64_t[]){1, 0});
    dt_insert(g, tr);
    Node *mm = dt_node(g, OP_MATMUL, 2, (Value *[]){x, tr->outputs[0]});
    dt_insert(g, mm);
    graph_add_output(g, mm->outputs[0]);
    run("fuse_matmul_nbits");
    ck_assert_int_eq(count_op(OP_MATMUL_NBITS), 0);
    ck_assert_int_eq(count_op(OP_MATMUL), 1);
}
END_TEST

/* ---- gatherBlockQuantized ---------------------------------------------------------------------- */

/* dt_gbq_node with its indices as a graph input (so the gathers stay while passes run); returns
 * the indices. */
static Value *gbq_with_input_indices(const DtGbqCase *c, Node **node) {
    *node = dt_gbq_node(g, c);
    Value *idx = (*node)->inputs[1];
    idx->flags = (idx->flags & ~(unsigned)VF_CONST) | VF_INPUT;
    return idx;
}

/* Decomposes, folds (2-bit tables unpack to uint8 constants) and fuses. */
static void gbq_decompose_and_fuse(void) {
    run("decompose_gather_block_quantized");
    ck_assert_int_eq(count_op(OP_GATHER_BLOCK_QUANTIZED), 0);
    run("fold_constants");
    run("fuse_gather_block_quantized");
    run("dce");
}

START_TEST(gather_block_quantized_round_trip) {
    static const DtGbqCase cases[] = {
        {DT_U8, 4, 32, 6, 64, false, false, true}, /* the ORT-GenAI tied embedding: default zero points */
        {DT_U8, 4, 16, 5, 48, true, false, false}, {DT_U8, 8, 16, 4, 64, false, false, false},
        {DT_U8, 8, 32, 4, 64, true, false, true},  {DT_U8, 2, 16, 4, 64, true, false, false}, /* 2-bit: as bits 8 */
        {DT_I4, 4, 16, 4, 32, false, false, false}, {DT_U4, 4, 16, 4, 32, true, true, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        teardown();
        setup();
        Node *n;
        Value *idx = gbq_with_input_indices(&cases[i], &n);
        Ref r = reference(n);
        gbq_decompose_and_fuse();
        ck_assert_msg(count_op(OP_GATHER_BLOCK_QUANTIZED) == 1 && graph_node_count(g) == 1, "case %zu: %d nodes", i,
                      graph_node_count(g));
        check_against(&r, idx, cases[i].f16 ? 1e-3 : 1e-6);
    }
}
END_TEST

/* A quantized axis that is not a multiple of the block (repeated, sliced scales), and a gathered
 * table row that is also a graph output, do not fuse. */
START_TEST(gather_block_quantized_near_misses) {
    Node *n;
    gbq_with_input_indices(&(DtGbqCase){DT_U8, 4, 32, 5, 48, false, false, false}, &n);
    graph_add_output(g, n->outputs[0]);
    gbq_decompose_and_fuse();
    ck_assert_int_eq(count_op(OP_GATHER_BLOCK_QUANTIZED), 0);
    teardown();
    setup();
    gbq_with_input_indices(&(DtGbqCase){DT_U8, 4, 32, 6, 64, false, false, false}, &n);
    graph_add_output(g, n->outputs[0]);
    run("decompose_gather_block_quantized");
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == OP_GATHER) {
            graph_add_output(g, g->nodes[i]->outputs[0]);
            break;
        }
    run("fuse_gather_block_quantized");
    ck_assert_int_eq(count_op(OP_GATHER_BLOCK_QUANTIZED), 0);
    ck_assert_int_eq(count_op(OP_DEQUANTIZE_LINEAR), 1);
}
END_TEST

/* ---- rmsNorm / skipRmsNorm -------------------------------------------------------------------- */

START_TEST(rms_norm_round_trip) {
    for (int i = 0; i < 4; i++) {
        teardown();
        setup();
        DType dt = i % 2 ? DT_F16 : DT_F32;
        Value *x = act("x", dt, 3, (const int64_t[]){2, 3, 16});
        Value *s = dt_random(g, "s", dt, 1, (const int64_t[]){16}, 0.5, 1.5);
        Node *n = dt_node(g, OP_RMS_NORM, 2, (Value *[]){x, s});
        node_set_uint(g, n, "axis", 2);
        node_set_float(g, n, "epsilon", i < 2 ? 1e-6 : 1e-2);
        dt_insert(g, n);
        Ref r = reference(n);
        run("decompose_rms_norm");
        ck_assert_int_eq(count_op(OP_RMS_NORM), 0);
        run("fuse_rms_norm");
        ck_assert_int_eq(count_op(OP_RMS_NORM), 1);
        ck_assert_int_eq(graph_node_count(g), 1);
        check_against(&r, x, dt == DT_F16 ? 2e-3 : 1e-6);
    }
}
END_TEST

START_TEST(skip_rms_norm_round_trip) {
    for (int i = 0; i < 4; i++) {
        teardown();
        setup();
        DType dt = i % 2 ? DT_F16 : DT_F32;
        Value *x = act("x", dt, 3, (const int64_t[]){1, 4, 16});
        Value *skip = dt_random(g, "skip", dt, 3, (const int64_t[]){1, 4, 16}, -2, 2);
        skip->flags = (skip->flags & ~(unsigned)VF_CONST) | VF_INPUT;
        Value *gamma = dt_random(g, "gamma", dt, 1, (const int64_t[]){16}, -1, 1);
        Value *bias = i >= 2 ? dt_random(g, "bias", dt, 1, (const int64_t[]){16}, -1, 1) : NULL;
        Node *n = dt_node(g, OP_SKIP_RMS_NORM, 4, (Value *[]){x, skip, gamma, bias});
        node_set_float(g, n, "epsilon", 1e-6);
        node_set_uint(g, n, "outputCount", 2);
        dt_insert(g, n);
        Ref r = reference(n);
        run("decompose_rms_norm");
        run("fuse_rms_norm");
        run("dce");
        ck_assert_int_eq(count_op(OP_SKIP_RMS_NORM), 1);
        ck_assert_int_eq(graph_node_count(g), 1);
        activate(skip);
        check_against(&r, x, dt == DT_F16 ? 2e-3 : 1e-6);
    }
}
END_TEST

static Value *bin(OpId op, Value *a, Value *b) {
    Node *n = dt_node(g, op, 2, (Value *[]){a, b});
    dt_insert(g, n);
    return n->outputs[0];
}

static Value *un(OpId op, Value *a) {
    Node *n = dt_node(g, op, 1, (Value *[]){a});
    dt_insert(g, n);
    return n->outputs[0];
}

static Value *scalar(double v) { return dt_values(g, "c", DT_F32, 0, NULL, (const double[]){v}); }

static Value *mean_last(Value *v) {
    Node *n = dt_node(g, OP_REDUCE_MEAN, 1, (Value *[]){v});
    node_set_ints(g, n, "axes", 1, (const int64_t[]){v->rank - 1});
    node_set_bool(g, n, "keepDimensions", true);
    dt_insert(g, n);
    return n->outputs[0];
}

/* torch: h = x + res; w * (h * reciprocal(sqrt(mean(pow(h, 2)) + eps))); h also feeds a later
 * residual (a graph output here).  eps_outside puts the epsilon after the sqrt (must not fuse). */
static int torch_rms(bool eps_outside, bool leak) {
    Value *x = act("x", DT_F32, 3, (const int64_t[]){1, 4, 16});
    Value *res = act("res", DT_F32, 3, (const int64_t[]){1, 4, 16});
    Value *w = dt_random(g, "w", DT_F32, 1, (const int64_t[]){16}, 0.5, 1.5);
    Value *h = bin(OP_ADD, x, res);
    Value *ms = mean_last(bin(OP_POW, h, scalar(2)));
    Value *rs = eps_outside ? bin(OP_ADD, un(OP_SQRT, ms), scalar(1e-6)) : un(OP_SQRT, bin(OP_ADD, ms, scalar(1e-6)));
    Value *y = bin(OP_MUL, w, bin(OP_MUL, h, un(OP_RECIPROCAL, rs)));
    graph_add_output(g, y);
    graph_add_output(g, bin(OP_MUL, h, scalar(0.5)));
    if (leak) graph_add_output(g, ms);
    /* reference */
    Node *ref = dt_node(g, OP_SKIP_RMS_NORM, 3, (Value *[]){x, res, w});
    node_set_float(g, ref, "epsilon", 1e-6);
    dt_insert(g, ref);
    const void *want[1];
    uint64_t bytes[1];
    ck_assert_int_eq(eval_node(g, ref, want, bytes), 0);
    ref->dead = true;
    graph_compact(g);
    run("fuse_rms_norm");
    int fused = count_op(OP_SKIP_RMS_NORM);
    if (fused) {
        activate(x), activate(res);
        run("fold_constants");
        Ten got;
        ck_assert_int_eq(ten_from_value(NULL, g->outputs[0], &got), 0);
        for (int64_t e = 0; e < got.count; e++)
            ck_assert_float_eq_tol(ten_getf(&got, e), ((const float *)want[0])[e], 1e-5);
    }
    return fused;
}

START_TEST(rms_norm_torch_form) { ck_assert_int_eq(torch_rms(false, false), 1); }
END_TEST
START_TEST(rms_norm_eps_outside_sqrt) { ck_assert_int_eq(torch_rms(true, false), 0); }
END_TEST
START_TEST(rms_norm_interior_used_elsewhere) { ck_assert_int_eq(torch_rms(false, true), 0); }
END_TEST

/* ---- silu / quickGelu ------------------------------------------------------------------------- */

START_TEST(quick_gelu_round_trip) {
    Value *x = act("x", DT_F32, 2, (const int64_t[]){3, 8});
    Node *n = dt_node(g, OP_QUICK_GELU, 1, (Value *[]){x});
    node_set_float(g, n, "alpha", 1.702);
    dt_insert(g, n);
    Ref r = reference(n);
    run("decompose_quick_gelu");
    ck_assert_int_eq(count_op(OP_SIGMOID), 1);
    run("fuse_silu");
    ck_assert_int_eq(count_op(OP_QUICK_GELU), 1);
    ck_assert_int_eq(graph_node_count(g), 1);
    check_against(&r, x, 1e-6);
}
END_TEST

START_TEST(silu_torch_form) {
    Value *x = act("x", DT_F32, 2, (const int64_t[]){3, 8});
    Value *y = bin(OP_MUL, un(OP_SIGMOID, x), x);
    graph_add_output(g, y);
    run("fuse_silu");
    ck_assert_int_eq(count_op(OP_SILU), 1);
    ck_assert_int_eq(graph_node_count(g), 1);
    activate(x);
    run("fold_constants");
    Ten got, in;
    ck_assert_int_eq(ten_from_value(NULL, g->outputs[0], &got), 0);
    ck_assert_int_eq(ten_from_value(NULL, x, &in), 0);
    for (int64_t e = 0; e < got.count; e++) { /* x * sigmoid(x) written out independently */
        double v = ten_getf(&in, e);
        ck_assert_float_eq_tol(ten_getf(&got, e), v / (1 + exp(-v)), 1e-6);
    }
}
END_TEST

START_TEST(silu_near_misses) {
    Value *x = act("x", DT_F32, 2, (const int64_t[]){3, 8}), *z = act("z", DT_F32, 2, (const int64_t[]){3, 8});
    graph_add_output(g, bin(OP_MUL, un(OP_SIGMOID, z), x)); /* sigmoid of another value */
    Value *s = un(OP_SIGMOID, x);
    graph_add_output(g, bin(OP_MUL, x, s));
    graph_add_output(g, s); /* interior value used elsewhere */
    run("fuse_silu");
    ck_assert_int_eq(count_op(OP_SILU), 0);
    ck_assert_int_eq(count_op(OP_QUICK_GELU), 0);
}
END_TEST

/* ---- --fuse parsing --------------------------------------------------------------------------- */

START_TEST(fuse_spec_parsing) {
    unsigned mask;
    ck_assert_int_eq(fuse_parse("none", &mask), 0);
    ck_assert_uint_eq(mask, 0);
    ck_assert_int_eq(fuse_parse("rmsNorm,silu", &mask), 0);
    ck_assert_uint_eq(__builtin_popcount(mask), 2);
    ck_assert_int_eq(fuse_parse("all", &mask), 0);
    ck_assert_uint_ge(__builtin_popcount(mask), 3);
    ck_assert_int_eq(fuse_parse("rmsNorm,bogus", &mask), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "bogus"));
}
END_TEST

/* The pipeline table: every pass it names is registered, the stage masks grow to `all`, and a
 * name outside passes.def is an error, not a skipped pass. */
START_TEST(pipeline_table) {
    for (int p = 0; p < PIPE_COUNT; p++) {
        const char *const *names = pipeline_passes((Pipeline)p);
        ck_assert_ptr_nonnull(names);
        ck_assert_ptr_nonnull(names[0]);
        for (int i = 0; names[i]; i++) ck_assert_msg(pass_find(names[i]), "pipeline %d: pass %s not in passes.def", p, names[i]);
    }
    ck_assert_ptr_null(pipeline_passes(PIPE_COUNT));
    unsigned all, prev = 0;
    ck_assert_int_eq(fuse_parse("all", &all), 0);
    for (int i = 0; i < fuse_pattern_count; i++) ck_assert_msg(pass_find(fuse_patterns[i].pass), "%s", fuse_patterns[i].pass);
    for (int s = 0; s < fuse_stage_count; s++) {
        unsigned m = fuse_stage_mask(s);
        ck_assert_uint_eq(m & prev, prev); /* cumulative */
        ck_assert_uint_ne(m, prev);        /* every stage adds a pattern */
        prev = m;
    }
    ck_assert_uint_eq(prev, all);
    Graph *gr = graph_new("unknown");
    const char *bogus = "fuse_everything";
    diag_clear();
    ck_assert_int_eq(pass_run_list(gr, &bogus, 1, NULL), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "fuse_everything"));
    diag_clear();
    graph_free(gr);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("fuse");
    TCase *tc = tcase_create("patterns");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, matmul_nbits_round_trip);
    tcase_add_test(tc, matmul_nbits_interior_used_elsewhere);
    tcase_add_test(tc, matmul_nbits_bad_block);
    tcase_add_test(tc, gather_block_quantized_round_trip);
    tcase_add_test(tc, gather_block_quantized_near_misses);
    tcase_add_test(tc, rms_norm_round_trip);
    tcase_add_test(tc, skip_rms_norm_round_trip);
    tcase_add_test(tc, rms_norm_torch_form);
    tcase_add_test(tc, rms_norm_eps_outside_sqrt);
    tcase_add_test(tc, rms_norm_interior_used_elsewhere);
    tcase_add_test(tc, quick_gelu_round_trip);
    tcase_add_test(tc, silu_torch_form);
    tcase_add_test(tc, silu_near_misses);
    tcase_add_test(tc, fuse_spec_parsing);
    tcase_add_test(tc, pipeline_table);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(suite()); }
