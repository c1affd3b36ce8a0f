/* test_rt_ext_fused.c - the fusion-only extension ops on the Vulkan runtime against the CPU
 * reference (lib/eval/eval_fused.c, which composes the component ops' references): silu, and the
 * fully fused normalized projections qkvProjection (1-3 splits) and gatedMlp (act(gate) * up: silu,
 * gelu, geluTanh) with
 * matmulNBits weights: rmsNorm or skip (+ skipBias) with the sum output, zero points absent / uint8 /
 * float, bias, decode, several activation rows and prefill (the tile kernel, partial tiles; gatedMlp's
 * GEMM with act(gate) * up in its epilogue, bit for bit its composed fallback, one weight window or two),
 * float32 and float16 (decode on the row mat-vec with the norm prologue: norm_proj_rows); and with float weights
 * (bits 0, W [k, n]): the mat-vec (vector and scalar weight loads, k over several staged chunks, 1-16
 * rows) and the tiled path (partial row and column tiles), skip / skipBias / sum / bias. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "test_rt_ext.h"

START_TEST(silu) {
    for (int f16 = 0; f16 < 2; f16++) {
        Graph *g = graph_new("t");
        unsigned s = 3;
        DType dt = f16 ? DT_F16 : DT_F32;
        Value *x = ext_rand(g, "x", dt, 2, (int64_t[]){5, 301}, &s, -9, 9);
        Node *n = graph_new_node(g, OP_SILU, NULL);
        node_add_input(g, n, x);
        ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
        ext_check(g, n, f16 ? 1e-3 : 2e-6, 1e-7, f16 ? "silu f16" : "silu f32");
        graph_free(g);
    }
}
END_TEST

typedef struct {
    OpId op;
    DType dt;
    int bits, block;
    int64_t M, K, N;
    int zp; /* 0 absent, 1 uint8, 2 float */
    bool skip, skip_bias, sum, bias;
    int n_splits;
    int64_t splits[3];
    const char *activation; /* gatedMlp: NULL = silu (option omitted) */
    double range;           /* input and skip in [-range, range] (0: 2) */
} FusedCase;

/* Case c's node in g (*node) and its label; `given` (NULL, or per operand slot) replaces the
 * random constant of a slot. */
static void fused_node(Graph *g, FusedCase c, Value *const *given, Node **node, char *label, size_t label_size) {
    unsigned s = 41 + (unsigned)c.K;
    int64_t kb = c.block ? (c.K + c.block - 1) / c.block : 0, blob = c.block * c.bits / 8, zrow = (kb * c.bits + 7) / 8;
    Value *in[FP_SLOTS] = {0};
    int64_t xs[3] = {1, c.M, c.K};
    double range = c.range > 0 ? c.range : 2;
    in[FP_INPUT] = ext_rand(g, "x", c.dt, 3, xs, &s, -range, range);
    if (c.skip) in[FP_SKIP] = ext_rand(g, "skip", c.dt, 3, xs, &s, -range, range);
    for (int i = 0; given && i < FP_SLOTS; i++)
        if (given[i]) in[i] = given[i];
    if (c.skip_bias) in[FP_SKIP_BIAS] = ext_rand(g, "skip_bias", c.dt, 1, &c.K, &s, -0.5, 0.5);
    in[FP_NORM_SCALE] = ext_rand(g, "gamma", c.dt, 1, &c.K, &s, 0.5, 1.5);
    if (c.bits == 0) { /* float weights [k, n], std about 1 / sqrt(k) */
        double r = 1.7 / sqrt((double)c.K);
        in[FP_WEIGHT] = ext_rand(g, "w", c.dt, 2, (int64_t[]){c.K, c.N}, &s, -r, r);
    } else {
        in[FP_WEIGHT] = ext_rand(g, "w", DT_U8, 3, (int64_t[]){c.N, kb, blob}, &s, 0, 0);
        in[FP_SCALES] = ext_rand(g, "scales", c.dt, 1, (int64_t[]){c.N * kb}, &s, 0.005, 0.04);
    }
    if (c.zp == 1) in[FP_ZERO_POINTS] = ext_rand(g, "zp", DT_U8, 1, (int64_t[]){c.N * zrow}, &s, 0, 0);
    if (c.zp == 2) in[FP_ZERO_POINTS] = ext_rand(g, "zp", c.dt, 1, (int64_t[]){c.N * kb}, &s, 0, (1 << c.bits) - 1);
    if (c.bias) in[FP_BIAS] = ext_rand(g, "bias", c.dt, 1, &c.N, &s, -0.5, 0.5);
    int last = FP_SLOTS - 1;
    while (!in[last]) last--;
    Node *n = graph_new_node(g, c.op, NULL);
    for (int i = 0; i <= last; i++) node_add_input(g, n, in[i]);
    node_set_float(g, n, "epsilon", 1e-6);
    node_set_uint(g, n, "k", c.K);
    node_set_uint(g, n, "n", c.N);
    if (c.bits) {
        node_set_uint(g, n, "bits", c.bits);
        node_set_uint(g, n, "blockSize", c.block);
    }
    if (c.sum) node_set_bool(g, n, "outputSum", true);
    if (c.op == OP_QKV_PROJECTION) node_set_ints(g, n, "splits", c.n_splits, c.splits);
    if (c.activation) node_set_string(g, n, "activation", c.activation);
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    snprintf(label, label_size, "%s %s M %lld K %lld N %lld bits %d zp %d skip %d/%d sum %d bias %d act %s",
             op_name(c.op), dtype_name(c.dt), (long long)c.M, (long long)c.K, (long long)c.N, c.bits, c.zp, c.skip,
             c.skip_bias, c.sum, c.bias, c.activation ? c.activation : "silu");
    *node = n;
}

/* The one-node graph of case c (*node) and its label. */
static Graph *fused_graph(FusedCase c, Node **node, char *label, size_t label_size) {
    Graph *g = graph_new("t");
    fused_node(g, c, NULL, node, label, label_size);
    return g;
}

/* The node against the reference.  f32: accumulation order; f16: the reference rounds every stage
 * (normed input, projection, silu) to f16 while the fused kernel keeps f32 in between: a few f16 ulps. */
static void fused_check(Graph *g, Node *n, DType dt, const char *label) {
    ext_check(g, n, dt == DT_F16 ? 8e-3 : 2e-5, dt == DT_F16 ? 4e-3 : 2e-5, label);
}

static void check_fused(FusedCase c) {
    char label[192];
    Node *n;
    Graph *g = fused_graph(c, &n, label, sizeof label);
    fused_check(g, n, c.dt, label);
    graph_free(g);
}

/* gatedMlp's prefill with act(gate) * up in the GEMM's epilogue (ext_matmul_nbits_gated_tiled.comp)
 * against the reference (check_gate_fold), and against the GEMM + ext_gate_mul.comp it replaces
 * (WEBNNC_FUSED_PREFILL=gate_mul): fewer dispatches, bit for bit the same results (the same f32
 * sums, gate and up rounded to the activation type, the same activation). */
/* Runs g (case c, output 0 set) with act(gate) * up in the GEMM's epilogue and with
 * WEBNNC_FUSED_PREFILL=gate_mul: asserts one dispatch fewer (ext_gate_mul's) and the same bits;
 * returns the first's dispatches. */
static int compare_gate_fold(Graph *g, FusedCase c, const char *label) {
    uint64_t count = (uint64_t)(c.M * c.N / 2), es = dtype_storage_bytes(c.dt, 1), i = 0;
    char *fold = malloc(count * es), *composed = malloc(count * es);
    ck_assert(fold && composed);
    int fold_dispatches = ext_run_dispatches(g, 0, fold, count * es, label);
    setenv("WEBNNC_FUSED_PREFILL", "gate_mul", 1);
    int composed_dispatches = ext_run_dispatches(g, 0, composed, count * es, label);
    unsetenv("WEBNNC_FUSED_PREFILL");
    ck_assert_msg(fold_dispatches == composed_dispatches - 1, "%s: %d dispatches, %d with ext_gate_mul", label, fold_dispatches,
                  composed_dispatches);
    /* The cooperative-matrix builds of the two are different shaders, whose float16 results the H100
     * driver rounds differently (0.836914062 against 0.837402344, -0.231689453 against
     * -0.231445312, gelu's -2.06e-5 against -2.07e-5): there within 1e-4 + 4e-3 relative (the
     * reference check before this holds the epilogue's results to WebNN's tolerance); bit for bit elsewhere. */
    bool coop = c.dt == DT_F16 && wnrt_context_device(rt_ctx)->coopmat_nv;
    while (i < count && (memcmp(fold + i * es, composed + i * es, es) == 0 ||
                         (coop && fabs(ten_f16_to_f64(((uint16_t *)fold)[i]) - ten_f16_to_f64(((uint16_t *)composed)[i])) <=
                                      1e-4 + 4e-3 * fabs(ten_f16_to_f64(((uint16_t *)composed)[i])))))
        i++;
    ck_assert_msg(i == count, "%s: element %llu: %.9g in the GEMM's epilogue, %.9g after it", label, (unsigned long long)i,
                  c.dt == DT_F32 ? ((float *)fold)[i] : ten_f16_to_f64(((uint16_t *)fold)[i]),
                  c.dt == DT_F32 ? ((float *)composed)[i] : ten_f16_to_f64(((uint16_t *)composed)[i]));
    free(fold);
    free(composed);
    return fold_dispatches;
}

static void check_gate_fold(FusedCase c) {
    char label[192];
    Node *n;
    Graph *g = fused_graph(c, &n, label, sizeof label);
    fused_check(g, n, c.dt, label);
    /* one weight window: the norm and the gated GEMM, against the norm, the GEMM and ext_gate_mul */
    ck_assert_int_eq(compare_gate_fold(g, c, label), 2);
    graph_free(g);
}

START_TEST(qkv_projection) {
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F32, 4, 32, 1, 128, 96, 0, false, false, false, true, 3, {64, 16, 16}});
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F32, 4, 32, 3, 200, 40, 1, true, true, true, true, 2, {24, 16}});
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F32, 8, 16, 6, 64, 30, 2, true, false, false, false, 1, {30}});
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F16, 4, 32, 1, 256, 64, 1, true, false, true, true, 3, {32, 16, 16}});
    /* prefill (norm_proj_tile.glsl): partial row / column tiles, sum pre-pass, padded k */
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F32, 4, 32, 70, 96, 200, 1, true, true, true, true, 3, {136, 32, 32}});
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F16, 4, 64, 17, 200, 72, 0, false, false, false, true, 3, {40, 16, 16}});
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F32, 8, 16, 33, 64, 30, 2, true, false, false, false, 1, {30}});
    /* skip (+ skipBias) without the sum output, with a projection bias: decode, fallback, prefill */
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F32, 4, 32, 1, 64, 24, 0, true, false, false, true, 3, {8, 8, 8}});
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F32, 4, 32, 6, 96, 40, 1, true, true, false, true, 2, {24, 16}});
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F16, 4, 32, 20, 64, 48, 0, true, true, false, true, 3, {16, 16, 16}});
    /* prefill with split-K GEMMs (k >= 2048, narrow splits): their partial sums after the norm's
     * output in the scratch storage */
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F32, 4, 32, 24, 2048, 128, 1, true, false, true, true, 3, {64, 32, 32}});
}
END_TEST

/* Prefill on the one-kernel tile path (WEBNNC_FUSED_PREFILL=tile, shaders/norm_proj_tile.glsl)
 * instead of the composed norm + GEMM + epilogue of k_fused_prefill.c. */
START_TEST(prefill_tile_kernel) {
    setenv("WEBNNC_FUSED_PREFILL", "tile", 1);
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F32, 4, 32, 70, 96, 200, 1, true, true, true, true, 3, {136, 32, 32}});
    check_fused((FusedCase){OP_QKV_PROJECTION, DT_F16, 4, 64, 17, 200, 72, 0, false, false, false, true, 3, {40, 16, 16}});
    check_fused((FusedCase){OP_GATED_MLP, DT_F32, 4, 32, 66, 128, 160, 1, true, true, true, true, 0, {0}});
    check_fused((FusedCase){OP_GATED_MLP, DT_F16, 4, 16, 20, 96, 42, 0, false, false, false, false, 0, {0}});
    unsetenv("WEBNNC_FUSED_PREFILL");
}
END_TEST

START_TEST(gated_mlp) {
    check_fused((FusedCase){OP_GATED_MLP, DT_F32, 4, 32, 1, 128, 80, 0, false, false, false, false, 0, {0}});
    check_fused((FusedCase){OP_GATED_MLP, DT_F32, 4, 16, 5, 96, 42, 1, true, true, true, true, 0, {0}});
    check_fused((FusedCase){OP_GATED_MLP, DT_F16, 4, 32, 1, 256, 128, 1, true, false, true, false, 0, {0}});
    check_fused((FusedCase){OP_GATED_MLP, DT_F32, 4, 32, 66, 128, 160, 1, true, true, true, true, 0, {0}}); /* prefill */
    check_fused((FusedCase){OP_GATED_MLP, DT_F16, 4, 16, 20, 96, 42, 0, false, false, false, false, 0, {0}});
    /* split-K GEMM forced (WEBNNC_NBITS_SPLITK): its partial sums after the norm's output and the gate / up rows */
    setenv("WEBNNC_NBITS_SPLITK", "2", 1);
    check_fused((FusedCase){OP_GATED_MLP, DT_F32, 4, 32, 66, 128, 160, 1, true, true, true, true, 0, {0}});
    unsetenv("WEBNNC_NBITS_SPLITK");
}
END_TEST

/* Decode on the row mat-vec with the norm prologue (shaders/matvec_rows_norm.comp): 1-4 activation
 * rows, 4/8-bit, odd column counts (partial row groups), up to 3 splits (one of a single column), every input
 * option, float32 / float16; float zero points and padded k take the older kernel. */
static void norm_proj_row_cases(void) {
    const OpId q = OP_QKV_PROJECTION, gm = OP_GATED_MLP;
    check_fused((FusedCase){q, DT_F32, 4, 32, 2, 160, 75, 1, true, true, true, true, 3, {43, 16, 16}});
    check_fused((FusedCase){q, DT_F16, 4, 16, 4, 96, 50, 0, true, false, true, true, 3, {34, 8, 8}});
    check_fused((FusedCase){q, DT_F32, 8, 32, 3, 64, 33, 1, false, false, false, false, 3, {17, 1, 15}});
    check_fused((FusedCase){q, DT_F16, 4, 128, 1, 896, 61, 1, true, false, true, true, 2, {45, 16}});
    check_fused((FusedCase){q, DT_F32, 4, 32, 2, 64, 24, 2, true, false, true, true, 3, {8, 8, 8}}); /* float zp */
    check_fused((FusedCase){gm, DT_F32, 4, 32, 3, 96, 74, 1, true, true, true, true, 0, {0}});
    check_fused((FusedCase){gm, DT_F16, 4, 64, 4, 192, 42, 0, true, false, true, false, 0, {0}});
    check_fused((FusedCase){gm, DT_F32, 8, 16, 1, 32, 10, 0, false, false, false, false, 0, {0}});
    check_fused((FusedCase){gm, DT_F16, 4, 32, 2, 200, 30, 1, true, false, true, false, 0, {0}}); /* padded k */
    /* wide (8194 gate + up rows): on row groups 4 rows each (k_matvec.c gated_rows), the last one partial */
    check_fused((FusedCase){gm, DT_F16, 4, 32, 1, 64, 8194, 1, true, false, true, false, 0, {0}});
}
START_TEST(norm_proj_rows) { norm_proj_row_cases(); }
END_TEST
/* The same on row groups of 2 .. subgroup-size invocations (rt_each_matvec_tpr). */
START_TEST(norm_proj_row_groups) { rt_each_matvec_tpr(norm_proj_row_cases); }
END_TEST

/* A matmulNBits whose product is one of the two summed operands of a quantized normalized projection
 * adds the other one in its epilogue (runtime/plan_residual.c) where the residual folds (up to
 * EXT_RESIDUAL_MAX_M = 4 activation rows) and where the projection re-reads enough skip bytes
 * (WEBNNC_RESIDUAL_MIN_KIB, default 4 MiB: these small cases force it with 0, and check that the
 * default leaves them alone), and the projection reads the sum.  Against the same graph with the
 * fold off (WEBNNC_RESIDUAL_MIN_KIB at its maximum; every other rewrite on, so that the product
 * comes from the same mat-vec kernel in both: the float16-pair kernel that GPUs run rounds otherwise
 * than the general kernel WEBNNC_NO_FUSE=1 would leave): the same dispatch count;
 * the sum output the same bytes (the same f32 sum, rounded once); float32 every output the same
 * bytes (both read the same f32 sum); float16 the projection within a few ulps (it normalizes the
 * sum rounded to float16).  With 6 rows nothing folds: every output the same bytes.  `slot`: the operand the product is (FP_SKIP: the ORT-GenAI
 * builder's order, the residual first). */
typedef struct {
    FusedCase c;
    int slot;
    double scale; /* the product's scales times this (0: 1) */
} ResidualCase;

/* The largest WEBNNC_RESIDUAL_MIN_KIB: no skip sum is re-read that much, so nothing folds. */
#define RESIDUAL_FOLD_OFF_KIB "1073741824"

/* Runs the case (the fold off, or WEBNNC_RESIDUAL_MIN_KIB = min_kib, NULL: unset) into outs[k]
 * (malloc'd, bytes[k]) and checks whether the rewrite applied (`folds`); returns the dispatches of a run. */
static int run_residual(const ResidualCase *t, bool fold_off, const char *min_kib, bool folds, void **outs, uint64_t *bytes,
                        int *n_out) {
    Graph *g = graph_new("t");
    unsigned s = 7;
    const FusedCase *c = &t->c;
    int64_t k_in = 96, kb = k_in / 32;
    Value *a = ext_rand(g, "a", c->dt, 3, (int64_t[]){1, c->M, k_in}, &s, -2, 2);
    Value *b = ext_rand(g, "b", DT_U8, 3, (int64_t[]){c->K, kb, 16}, &s, 0, 0);
    double mul = t->scale > 0 ? t->scale : 1;
    Value *sc = ext_rand(g, "sc", c->dt, 1, (int64_t[]){c->K * kb}, &s, 0.005 * mul, 0.05 * mul);
    Node *p = tu_node(g, OP_MATMUL_NBITS, 3, a, b, sc);
    node_set_uint(g, p, "k", k_in);
    node_set_uint(g, p, "n", c->K);
    node_set_uint(g, p, "bits", 4);
    node_set_uint(g, p, "blockSize", 32);
    Value *given[FP_SLOTS] = {0};
    given[t->slot] = graph_finish(g, p);
    Node *n;
    char label[192];
    fused_node(g, *c, given, &n, label, sizeof label);
    for (int k = 0; k < n->n_outputs; k++) graph_add_output(g, n->outputs[k]);
    WnrtModel *m = rt_load_with_env(g, "WEBNNC_RESIDUAL_MIN_KIB", fold_off ? RESIDUAL_FOLD_OFF_KIB : min_kib);
    ck_assert_msg(m != NULL && wnrt_run(m) == 0, "%s: %s", label, diag_message());
    const char *lp = wnrt_node_rewrite_label(m, p->index), *ln = wnrt_node_rewrite_label(m, n->index);
    ck_assert_msg(fold_off || !folds ? !lp && !ln : lp && ln && !strcmp(lp, "+add") && !strcmp(ln, "-add"),
                  "%s: rewrite labels %s / %s", label, lp ? lp : "(none)", ln ? ln : "(none)");
    *n_out = n->n_outputs;
    for (int k = 0; k < n->n_outputs; k++) {
        bytes[k] = dtype_storage_bytes(n->outputs[k]->dtype, value_max_elements(n->outputs[k]));
        outs[k] = malloc(bytes[k]);
        ck_assert(outs[k] != NULL);
        ck_assert_msg(wnrt_read_output(m, k, outs[k], bytes[k]) == 0, "%s: %s", label, diag_message());
    }
    WnrtStats st;
    wnrt_stats(m, &st);
    wnrt_free(m);
    graph_free(g);
    return st.dispatches - st.io_dispatches;
}

static void compare_residual(ResidualCase t, const char *min_kib, bool folds) {
    void *ref[4], *got[4];
    uint64_t bytes[4];
    int n_ref, n_got;
    const FusedCase *c = &t.c;
    int d_ref = run_residual(&t, true, min_kib, folds, ref, bytes, &n_ref);
    int d_got = run_residual(&t, false, min_kib, folds, got, bytes, &n_got);
    ck_assert_int_eq(n_ref, n_got);
    ck_assert_int_eq(d_got, d_ref);
    int sum_out = c->sum ? (c->op == OP_GATED_MLP ? 1 : c->n_splits) : -1;
    size_t es = dtype_storage_bytes(c->dt, 1);
    for (int k = 0; k < n_got; k++) {
        bool exact = !folds || c->M > 4 || c->dt == DT_F32 || k == sum_out;
        for (uint64_t i = 0; i < bytes[k] / es; i++) {
            double r = c->dt == DT_F32 ? ((float *)ref[k])[i] : ten_f16_to_f64(((uint16_t *)ref[k])[i]);
            double v = c->dt == DT_F32 ? ((float *)got[k])[i] : ten_f16_to_f64(((uint16_t *)got[k])[i]);
            ck_assert_msg(exact ? memcmp((char *)ref[k] + i * es, (char *)got[k] + i * es, es) == 0
                                : fabs(v - r) <= 2e-3 + 4e-3 * fabs(r),
                          "%s M %lld slot %d: output %d element %llu: %.9g folded, %.9g not folded", op_name(c->op), (long long)c->M,
                          t.slot, k, (unsigned long long)i, v, r);
        }
        free(ref[k]);
        free(got[k]);
    }
}

static void check_residual(ResidualCase t) {
    compare_residual(t, "0", true);
    compare_residual(t, NULL, false); /* the default: far below 4 MiB of re-read skip */
}

START_TEST(residual_fold) {
    const OpId q = OP_QKV_PROJECTION, gm = OP_GATED_MLP;
    check_residual((ResidualCase){{gm, DT_F16, 4, 32, 1, 128, 96, 0, true, false, true, false, 0, {0}}, FP_SKIP});
    /* products around float16's subnormals (below 2^-14) and skips of 1e-4: the epilogue rounds the
     * product as the unfused graph stores it (a_round's subnormal spacing) */
    check_residual((ResidualCase){{gm, DT_F16, 4, 32, 1, 128, 96, 0, true, false, true, false, 0, {0}, NULL, 1e-4}, FP_SKIP, 1e-5});
    check_residual((ResidualCase){{q, DT_F16, 4, 32, 2, 96, 64, 1, true, true, true, true, 3, {32, 16, 16}}, FP_INPUT});
    check_residual((ResidualCase){{q, DT_F32, 4, 32, 3, 64, 40, 0, true, false, false, true, 2, {24, 16}}, FP_SKIP});
    check_residual((ResidualCase){{gm, DT_F32, 4, 32, 4, 128, 80, 0, true, true, true, false, 0, {0}}, FP_INPUT});
    /* off the row mat-vec (the general kernel without the skip; so is the second case above: 3 blocks of
     * packed zero points): float zero points */
    check_residual((ResidualCase){{q, DT_F32, 4, 32, 2, 64, 24, 2, true, false, true, true, 3, {8, 8, 8}}, FP_SKIP});
    check_residual((ResidualCase){{gm, DT_F16, 4, 32, 1, 96, 40, 2, true, true, true, false, 0, {0}}, FP_SKIP});
    /* 6 rows: nothing folds (both nodes run as they are, the operands swapped where slot is FP_SKIP) */
    check_residual((ResidualCase){{gm, DT_F16, 4, 32, 6, 128, 96, 0, true, true, true, false, 0, {0}}, FP_SKIP});
    check_residual((ResidualCase){{q, DT_F32, 4, 32, 6, 96, 64, 1, true, false, true, true, 3, {32, 16, 16}}, FP_SKIP});
}
END_TEST

/* Float weights (bits 0).  The mat-vec takes up to 16 rows (4 per workgroup), 64 columns per
 * workgroup, 4-wide weight loads when every split is a multiple of 4, k staged 512 at a time; the
 * tiled path takes more rows in 64 x 64 tiles. */
START_TEST(qkv_projection_float) {
    const OpId q = OP_QKV_PROJECTION;
    check_fused((FusedCase){q, DT_F32, 0, 0, 1, 128, 96, 0, false, false, false, true, 3, {64, 16, 16}});
    check_fused((FusedCase){q, DT_F32, 0, 0, 3, 200, 40, 0, true, true, true, true, 2, {24, 16}});
    check_fused((FusedCase){q, DT_F32, 0, 0, 6, 64, 30, 0, true, false, false, true, 1, {30}}); /* scalar loads */
    check_fused((FusedCase){q, DT_F32, 0, 0, 16, 48, 136, 0, true, false, true, false, 3, {72, 32, 32}});
    check_fused((FusedCase){q, DT_F16, 0, 0, 1, 1100, 72, 0, true, false, true, true, 3, {40, 16, 16}}); /* 3 chunks */
    check_fused((FusedCase){q, DT_F16, 0, 0, 2, 96, 27, 0, false, false, false, true, 3, {9, 9, 9}});
    check_fused((FusedCase){q, DT_F32, 0, 0, 17, 96, 100, 0, true, true, true, true, 3, {60, 20, 20}}); /* tiled */
    check_fused((FusedCase){q, DT_F16, 0, 0, 70, 80, 130, 0, true, false, true, true, 2, {98, 32}});
    check_fused((FusedCase){q, DT_F32, 0, 0, 65, 33, 5, 0, false, false, false, false, 1, {5}});
}
END_TEST

START_TEST(gated_mlp_float) {
    const OpId gm = OP_GATED_MLP;
    check_fused((FusedCase){gm, DT_F32, 0, 0, 1, 128, 80, 0, false, false, false, false, 0, {0}});
    check_fused((FusedCase){gm, DT_F32, 0, 0, 5, 96, 42, 0, true, true, true, true, 0, {0}}); /* scalar loads */
    check_fused((FusedCase){gm, DT_F16, 0, 0, 1, 600, 256, 0, true, false, true, false, 0, {0}});
    check_fused((FusedCase){gm, DT_F16, 0, 0, 4, 64, 200, 0, true, false, false, true, 0, {0}});
    check_fused((FusedCase){gm, DT_F32, 0, 0, 33, 80, 136, 0, true, false, true, true, 0, {0}}); /* tiled */
    check_fused((FusedCase){gm, DT_F16, 0, 0, 20, 64, 130, 0, false, false, false, false, 0, {0}});
}
END_TEST

/* The GELU activations (erf, tanh) on every kernel path: the row mat-vec at decode (1-4 rows),
 * ext_norm_proj.comp (float zero points, 5 rows), the int4 prefill tile, the float-weight mat-vec
 * and tiled GEMM, float32 and float16. */
START_TEST(gated_mlp_activations) {
    const OpId gm = OP_GATED_MLP;
    static const char *const acts[] = {"gelu", "geluTanh"};
    for (int a = 0; a < 2; a++) {
        const char *act = acts[a];
        for (int64_t m = 1; m <= 4; m++)
            check_fused((FusedCase){gm, m % 2 ? DT_F32 : DT_F16, 4, 32, m, 96, 74, 1, true, true, true, true, 0, {0}, act});
        check_fused((FusedCase){gm, DT_F32, 4, 32, 2, 64, 24, 2, true, false, true, true, 0, {0}, act}); /* float zp */
        check_fused((FusedCase){gm, DT_F32, 4, 16, 5, 96, 42, 1, true, true, true, true, 0, {0}, act});
        check_fused((FusedCase){gm, DT_F32, 4, 32, 66, 128, 160, 1, true, true, true, true, 0, {0}, act}); /* prefill */
        check_fused((FusedCase){gm, DT_F16, 4, 16, 20, 96, 42, 0, false, false, false, false, 0, {0}, act});
        check_fused((FusedCase){gm, DT_F32, 0, 0, 1, 128, 80, 0, false, false, false, true, 0, {0}, act}); /* float W */
        check_fused((FusedCase){gm, DT_F16, 0, 0, 4, 64, 200, 0, true, false, false, true, 0, {0}, act});
        check_fused((FusedCase){gm, DT_F32, 0, 0, 33, 80, 136, 0, true, false, true, true, 0, {0}, act}); /* tiled */
    }
}
END_TEST

/* check_fused where the node's recording must hold `dispatches` dispatches (the path it takes). */
static void check_fused_dispatches(FusedCase c, int dispatches) {
    char label[192];
    Node *n;
    Graph *g = fused_graph(c, &n, label, sizeof label);
    fused_check(g, n, c.dt, label);
    uint64_t bytes = dtype_storage_bytes(c.dt, (uint64_t)(c.M * c.N / 2));
    void *y = malloc(bytes);
    ck_assert(y != NULL);
    int got = ext_run_dispatches(g, 0, y, bytes, label);
    ck_assert_msg(got == dispatches, "%s: %d dispatches, want %d", label, got, dispatches);
    free(y);
    graph_free(g);
}

/* The gated GEMM (check_gate_fold) for each activation: bias, uint8 / float / absent zero points,
 * row counts that are not a multiple of the 64-row tile, output columns that are not a multiple of
 * the 64- or 32-column tile (both widths), padded k, 2/4/8 bits, float32 / float16; then the row
 * counts below the GEMM (WEBNNC_FUSED_TILE_MIN_M lets them reach the composed prefill) and a split-K
 * weight: both through ext_gate_mul.comp, whose scratch the check reserves for them. */
START_TEST(gated_mlp_gemm_epilogue) {
    const OpId gm = OP_GATED_MLP;
    static const char *const acts[] = {NULL, "gelu", "geluTanh"};
    for (int a = 0; a < 3; a++) {
        const char *act = acts[a];
        check_gate_fold((FusedCase){gm, DT_F32, 4, 32, 66, 128, 160, 1, true, true, true, true, 0, {0}, act});
        check_gate_fold((FusedCase){gm, DT_F32, 4, 16, 130, 96, 2 * 37, 2, false, false, false, true, 0, {0}, act});
        check_gate_fold((FusedCase){gm, DT_F32, 8, 16, 17, 64, 2 * 100, 0, true, false, true, false, 0, {0}, act});
        check_gate_fold((FusedCase){gm, DT_F32, 2, 64, 70, 200, 2 * 129, 1, false, false, false, true, 0, {0}, act});
        check_gate_fold((FusedCase){gm, DT_F16, 4, 32, 20, 96, 2 * 42, 1, false, false, false, true, 0, {0}, act});
        check_gate_fold((FusedCase){gm, DT_F16, 4, 16, 65, 64, 2 * 70, 2, true, true, false, true, 0, {0}, act});
    }
    setenv("WEBNNC_NBITS_TILE_BN", "64", 1); /* the small cases above take 32-column tiles */
    check_gate_fold((FusedCase){gm, DT_F32, 4, 32, 66, 128, 2 * 100, 1, true, false, true, true, 0, {0}, "geluTanh"});
    unsetenv("WEBNNC_NBITS_TILE_BN");
    setenv("WEBNNC_FUSED_TILE_MIN_M", "5", 1);
    check_fused_dispatches((FusedCase){gm, DT_F32, 4, 32, 10, 128, 160, 1, true, true, true, true, 0, {0}, "gelu"}, 3);
    check_fused_dispatches((FusedCase){gm, DT_F16, 4, 32, 16, 96, 84, 0, false, false, false, true, 0, {0}}, 3);
    unsetenv("WEBNNC_FUSED_TILE_MIN_M");
    setenv("WEBNNC_NBITS_SPLITK", "2", 1);
    check_fused_dispatches((FusedCase){gm, DT_F32, 4, 32, 40, 128, 160, 1, false, false, false, true, 0, {0}, "geluTanh"}, 4);
    unsetenv("WEBNNC_NBITS_SPLITK");
}
END_TEST

/* A [gate | up] weight beyond one binding (maxStorageBufferRange: 128 MiB on lavapipe) whose halves
 * fit one: each dispatch of the gated GEMM binds its gate rows up to its last up row, so two
 * dispatches here; bit for bit the GEMM + ext_gate_mul over windows of whole rows.  (No CPU
 * reference at this size: the composed path is checked against it above.) */
START_TEST(gated_mlp_gemm_windows) {
    uint64_t range = wnrt_context_device(rt_ctx)->max_storage_buffer_range;
    const int64_t K = 2048, row_bytes = K; /* 8 bits */
    if (range > (256u << 20)) return; /* a device with a large range: nothing to split at a test's size */
    int64_t half = (int64_t)(range / (uint64_t)row_bytes) / 2 + 1024; /* a little over half the binding */
    FusedCase c = {OP_GATED_MLP, DT_F32, 8, 32, 17, K, 2 * half, 1, false, false, false, true, 0, {0}, "gelu"};
    char label[192];
    Node *n;
    Graph *g = fused_graph(c, &n, label, sizeof label);
    graph_add_output(g, n->outputs[0]);
    ck_assert_msg((uint64_t)(2 * half * row_bytes) > range, "%s: the weights fit one binding", label);
    ck_assert_int_eq(compare_gate_fold(g, c, label), 3);
    graph_free(g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-ext-fused");
    TCase *tc = tcase_create("fused");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, silu);
    tcase_add_test(tc, qkv_projection);
    tcase_add_test(tc, gated_mlp);
    tcase_add_test(tc, norm_proj_rows);
    tcase_add_test(tc, norm_proj_row_groups);
    tcase_add_test(tc, residual_fold);
    tcase_add_test(tc, prefill_tile_kernel);
    tcase_add_test(tc, qkv_projection_float);
    tcase_add_test(tc, gated_mlp_float);
    tcase_add_test(tc, gated_mlp_activations);
    tcase_add_test(tc, gated_mlp_gemm_epilogue);
    tcase_add_test(tc, gated_mlp_gemm_windows);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
