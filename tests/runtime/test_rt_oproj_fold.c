/* test_rt_oproj_fold.c - decode attention that takes the output projection after it
 * (runtime/plan_oproj.c, shaders/ext_gqa_dec_oproj.comp):
 *
 *   o = groupQueryAttention(one token);  y = matmulNBits(o);  gatedMlp / qkvProjection(y, residual)
 *
 * against the same graph with the fold off (WEBNNC_OPROJ_FOLD=0: o_proj and the projection as
 * plan_residual.c's pair, forced with WEBNNC_RESIDUAL_MIN_KIB=0 in both runs so that both normalize
 * the sum rounded to the activation type; kernels tested against the CPU reference elsewhere): one
 * dispatch fewer, the rewrite labels, and every output within float32 summation order (float32) or a
 * few float16 ulps (the fold sums o_proj's products per head, in fixed point, and rounds them once), in
 * each of three runs of one model with three residuals (a graph input: the accumulators must be left
 * zero for the later runs to write their rows).  Cases: float16 and float32,
 * uint8 or no zero points, blocks of 32 and 64, the product as the projection's input or as its
 * skip, a skip bias, grouped heads, a length outside the cache (zeros from the attention, so the
 * projection sees the residual alone), more o_proj rows than a workgroup has invocations (several
 * workgroups per head); per-head partial sums beyond the fixed-point range and a NaN in the cache
 * (the same large values, infinities and NaN as with the fold off); o_proj's operands loaded at the
 * start and parked in shared memory (the default) and after the key loop (WEBNNC_OPROJ_EARLY=0).
 * Where it does not apply (a head of 48 channels, o_proj with a bias) the
 * graph runs as with the fold off, bit for bit, and so does it with two new tokens (prefill: the
 * attention as it is, the pair as plan_residual.c's). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "test_rt_ext.h"

typedef struct {
    DType dt;
    int64_t N, KV, H, C, seqlen, O; /* heads, kv heads, head size, cache rows, past length, o_proj rows */
    int64_t S;                      /* new tokens (1: decode) */
    int block;
    bool zp, gated, skip_bias, oproj_bias;
    int slot; /* the projection's operand the product is: FP_INPUT or FP_SKIP */
    bool folds;
    double scale_mul; /* o_proj's scales times this (0: 1): partial sums past the fixed-point range */
    bool poison;      /* a NaN in the past values of kv head 0 */
} FoldCase;

/* The chain of case c; the attention, matmulNBits and projection nodes in nodes[3]. */
static Graph *fold_graph(FoldCase c, Node **nodes, char *label, size_t label_size) {
    Graph *g = graph_new("t");
    unsigned s = 11 + (unsigned)(c.H + c.O);
    int64_t qw = (c.N + 2 * c.KV) * c.H, cache[4] = {1, c.KV, c.C, c.H}, total = c.seqlen + c.S;
    Value *in[GQA_SLOTS] = {0};
    in[GQA_QUERY] = ext_rand(g, "qkv", c.dt, 3, (int64_t[]){1, c.S, qw}, &s, -1, 1);
    in[GQA_PAST_KEY] = ext_rand(g, "pk", c.dt, 4, cache, &s, -1, 1);
    in[GQA_PAST_VALUE] = ext_rand(g, "pv", c.dt, 4, cache, &s, -1, 1);
    if (c.poison) { /* row 0 of kv head 0, attended by its heads */
        void *pv = (void *)(uintptr_t)in[GQA_PAST_VALUE]->data;
        if (c.dt == DT_F32) ((float *)pv)[0] = NAN;
        else ((uint16_t *)pv)[0] = 0x7e00;
    }
    in[GQA_SEQLENS_K] = ext_ints(g, "seqlens", DT_I32, 1, (int64_t[]){1}, (int64_t[]){total - 1});
    in[GQA_TOTAL_SEQ] = ext_ints(g, "total", DT_I32, 0, NULL, &total);
    in[GQA_COS] = ext_rand(g, "cos", c.dt, 2, (int64_t[]){c.C + 4, c.H / 2}, &s, -1, 1);
    in[GQA_SIN] = ext_rand(g, "sin", c.dt, 2, (int64_t[]){c.C + 4, c.H / 2}, &s, -1, 1);
    Node *a = graph_new_node(g, OP_GROUP_QUERY_ATTENTION, "gqa");
    for (int i = 0; i <= GQA_SIN; i++) node_add_input(g, a, in[i]);
    node_set_uint(g, a, "numHeads", c.N);
    node_set_uint(g, a, "kvNumHeads", c.KV);
    node_set_bool(g, a, "doRotary", true);
    ck_assert_msg(graph_insert_node(g, a) == 0, "%s", diag_message());

    int64_t k = c.N * c.H, kb = k / c.block;
    Node *p = graph_new_node(g, OP_MATMUL_NBITS, "o_proj");
    node_add_input(g, p, a->outputs[GQA_OUT]);
    node_add_input(g, p, ext_rand(g, "w", DT_U8, 3, (int64_t[]){c.O, kb, c.block / 2}, &s, 0, 0));
    double mul = c.scale_mul > 0 ? c.scale_mul : 1;
    node_add_input(g, p, ext_rand(g, "scales", c.dt, 1, (int64_t[]){c.O * kb}, &s, 0.01 * mul, 0.05 * mul));
    if (c.zp || c.oproj_bias) node_add_input(g, p, c.zp ? ext_rand(g, "zp", DT_U8, 1, (int64_t[]){c.O * ((kb + 1) / 2)}, &s, 0, 0) : NULL);
    if (c.oproj_bias) node_add_input(g, p, ext_rand(g, "o_bias", c.dt, 1, &c.O, &s, -0.5, 0.5));
    node_set_uint(g, p, "k", k);
    node_set_uint(g, p, "n", c.O);
    node_set_uint(g, p, "bits", 4);
    node_set_uint(g, p, "blockSize", c.block);
    ck_assert_msg(graph_insert_node(g, p) == 0, "%s", diag_message());

    int64_t n_out = c.gated ? 64 : 48, pkb = c.O / 32;
    Value *pin[FP_SLOTS] = {0};
    pin[c.slot] = p->outputs[0];
    pin[c.slot == FP_INPUT ? FP_SKIP : FP_INPUT] = graph_add_input(g, "residual", c.dt, 3, (Dim[]){dim_static(1), dim_static(c.S), dim_static(c.O)});
    if (c.skip_bias) pin[FP_SKIP_BIAS] = ext_rand(g, "skip_bias", c.dt, 1, &c.O, &s, -0.5, 0.5);
    pin[FP_NORM_SCALE] = ext_rand(g, "gamma", c.dt, 1, &c.O, &s, 0.5, 1.5);
    pin[FP_WEIGHT] = ext_rand(g, "pw", DT_U8, 3, (int64_t[]){n_out, pkb, 16}, &s, 0, 0);
    pin[FP_SCALES] = ext_rand(g, "pscales", c.dt, 1, (int64_t[]){n_out * pkb}, &s, 0.005, 0.04);
    Node *n = graph_new_node(g, c.gated ? OP_GATED_MLP : OP_QKV_PROJECTION, "proj");
    for (int i = 0; i <= FP_SCALES; i++) node_add_input(g, n, pin[i]);
    node_set_float(g, n, "epsilon", 1e-6);
    node_set_uint(g, n, "k", c.O);
    node_set_uint(g, n, "n", n_out);
    node_set_uint(g, n, "bits", 4);
    node_set_uint(g, n, "blockSize", 32);
    node_set_bool(g, n, "outputSum", true);
    if (!c.gated) node_set_ints(g, n, "splits", 2, (int64_t[]){32, 16});
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    for (int i = 0; i < n->n_outputs; i++) graph_add_output(g, n->outputs[i]);
    snprintf(label, label_size,
             "%s %s N %lld/%lld H %lld C %lld past %lld S %lld o_proj %lld block %d zp %d slot %d skipBias %d scales x %g%s",
             c.gated ? "gatedMlp" : "qkvProjection", dtype_name(c.dt), (long long)c.N, (long long)c.KV, (long long)c.H,
             (long long)c.C, (long long)c.seqlen, (long long)c.S, (long long)c.O, c.block, c.zp, c.slot, c.skip_bias, mul,
             c.poison ? " NaN value" : "");
    nodes[0] = a, nodes[1] = p, nodes[2] = n;
    return g;
}

#define FOLD_RUNS 3

typedef struct {
    void *out[FOLD_RUNS][4];
    uint64_t bytes[4];
    int n_out, dispatches;
} FoldRun;

/* Residual of run `run` (FOLD_RUNS of them), in [-2, 2]. */
static void *residual(const FoldCase *c, int run, uint64_t *bytes) {
    uint64_t n = (uint64_t)(c->S * c->O);
    *bytes = n * dtype_storage_bytes(c->dt, 1);
    void *r = malloc(*bytes);
    ck_assert(r != NULL);
    unsigned s = 97 + (unsigned)run;
    for (uint64_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        double v = ((s >> 8) & 0xffff) / 16384.0 - 2.0;
        if (c->dt == DT_F32) ((float *)r)[i] = (float)v;
        else ((uint16_t *)r)[i] = ten_f64_to_f16(v);
    }
    return r;
}

/* Loads g (WEBNNC_OPROJ_FOLD = fold), checks the rewrite labels, and runs it FOLD_RUNS times, each
 * with its residual, keeping the outputs in *r. */
static void run_fold(Graph *g, Node *const *nodes, const FoldCase *c, const char *fold, FoldRun *r, const char *label) {
    WnrtModel *m = rt_load_with_env(g, "WEBNNC_OPROJ_FOLD", fold);
    ck_assert_msg(m != NULL, "%s: %s", label, diag_message());
    const char *la = wnrt_node_rewrite_label(m, nodes[0]->index), *lp = wnrt_node_rewrite_label(m, nodes[1]->index);
    bool on = c->folds && strcmp(fold, "1") == 0;
    ck_assert_msg(on ? la && lp && !strcmp(la, "+matmulNBits,add") && !strcmp(lp, "+add") : !la,
                  "%s (fold %s): labels %s / %s", label, fold, la ? la : "(none)", lp ? lp : "(none)");
    r->n_out = wnrt_output_count(m);
    for (int run = 0; run < FOLD_RUNS; run++) {
        uint64_t rb;
        void *res = residual(c, run, &rb);
        ck_assert_msg(wnrt_bind_input(m, "residual", res, rb, 3, (int64_t[]){1, c->S, c->O}) == 0 && wnrt_run(m) == 0, "%s: %s",
                      label, diag_message());
        free(res);
        for (int k = 0; k < r->n_out; k++) {
            WnrtTensorInfo info;
            ck_assert(wnrt_output_info(m, k, &info) == 0);
            r->bytes[k] = info.nbytes;
            r->out[run][k] = malloc(info.nbytes);
            ck_assert(r->out[run][k] != NULL);
            ck_assert_msg(wnrt_read_output(m, k, r->out[run][k], info.nbytes) == 0, "%s: %s", label, diag_message());
        }
    }
    WnrtStats st;
    wnrt_stats(m, &st);
    r->dispatches = st.dispatches - st.io_dispatches;
    wnrt_free(m);
}

static void check_fold(FoldCase c) {
    Node *nodes[3];
    char label[256];
    Graph *g = fold_graph(c, nodes, label, sizeof label);
    FoldRun off, on;
    setenv("WEBNNC_RESIDUAL_MIN_KIB", "0", 1);
    run_fold(g, nodes, &c, "0", &off, label);
    run_fold(g, nodes, &c, "1", &on, label);
    unsetenv("WEBNNC_RESIDUAL_MIN_KIB");
    ck_assert_int_eq(on.n_out, off.n_out);
    ck_assert_msg(on.dispatches == off.dispatches - (c.folds && c.S == 1 ? 1 : 0), "%s: %d dispatches folded, %d not", label,
                  on.dispatches, off.dispatches);
    size_t es = dtype_storage_bytes(c.dt, 1);
    uint64_t non_finite = 0;
    /* large partial sums that cancel: float32 rounding of their size (1e-6 of the scales' factor) */
    double cancel = c.scale_mul > 1 ? 1e-6 * c.scale_mul : 0;
    for (int run = 0; run < FOLD_RUNS; run++)
        for (int k = 0; k < on.n_out; k++) {
            ck_assert(on.bytes[k] == off.bytes[k]);
            const char *want = off.out[run][k], *got = on.out[run][k];
            for (uint64_t i = 0; i < on.bytes[k] / es; i++) {
                double r = c.dt == DT_F32 ? ((const float *)want)[i] : ten_f16_to_f64(((const uint16_t *)want)[i]);
                double v = c.dt == DT_F32 ? ((const float *)got)[i] : ten_f16_to_f64(((const uint16_t *)got)[i]);
                bool ok = !c.folds || c.S != 1         ? memcmp(got + i * es, want + i * es, es) == 0
                          : isnan(r) || isinf(r) ? (isnan(v) && isnan(r)) || v == r
                                                 : fabs(v - r) <= (c.dt == DT_F32 ? 1e-5 + 1e-5 * fabs(r) : 2e-3 + 4e-3 * fabs(r)) + cancel;
                non_finite += !isfinite(r);
                ck_assert_msg(ok, "%s: run %d output %d element %llu: %.9g folded, %.9g not", label, run + 1, k,
                              (unsigned long long)i, v, r);
            }
            free(on.out[run][k]);
            free(off.out[run][k]);
        }
    /* the poisoned and the float16 out-of-range cases do reach NaN / infinity (else they test nothing new) */
    ck_assert_msg(non_finite > 0 || (!c.poison && !(c.scale_mul > 1 && c.dt == DT_F16)), "%s: no output is NaN or infinite", label);
    graph_free(g);
}

START_TEST(decode_fold) {
    const int in = FP_INPUT, sk = FP_SKIP;
    /* the Qwen2-0.5B head layout (14 / 2 heads of 64), uint8 zero points, the ORT-GenAI builder's order */
    check_fold((FoldCase){DT_F16, 14, 2, 64, 96, 80, 128, 1, 32, true, true, false, false, sk, true});
    check_fold((FoldCase){DT_F32, 4, 2, 32, 40, 7, 96, 1, 32, false, false, false, false, in, true});
    /* heads of 128, blocks of 64, a skip bias; more o_proj rows than invocations per workgroup */
    check_fold((FoldCase){DT_F16, 4, 1, 128, 48, 30, 1024, 1, 64, true, true, true, false, in, true});
    check_fold((FoldCase){DT_F32, 8, 8, 64, 24, 0, 64, 1, 32, true, false, false, false, sk, true});
    /* a length outside the cache: the attention's output is zeros, the projection sees the residual */
    check_fold((FoldCase){DT_F16, 4, 2, 64, 16, 16, 96, 1, 32, true, true, false, false, sk, true});
    /* the geometry (o_proj's rows and blocks among it) read from the parameters, not fixed at
     * pipeline creation */
    setenv("WEBNNC_GQA_DEC_FIXED", "0", 1);
    check_fold((FoldCase){DT_F16, 14, 2, 64, 96, 80, 128, 1, 32, true, true, false, false, sk, true});
    check_fold((FoldCase){DT_F16, 4, 1, 128, 48, 30, 1024, 1, 64, true, true, true, false, in, true});
    unsetenv("WEBNNC_GQA_DEC_FIXED");
    /* o_proj's operands loaded after the key loop instead of at the start (parked in shared memory) */
    setenv("WEBNNC_OPROJ_EARLY", "0", 1);
    check_fold((FoldCase){DT_F16, 14, 2, 64, 96, 80, 128, 1, 32, true, true, false, false, sk, true});
    check_fold((FoldCase){DT_F32, 4, 1, 128, 48, 30, 1024, 1, 64, true, true, true, false, in, true});
    check_fold((FoldCase){DT_F16, 4, 2, 64, 16, 16, 96, 1, 32, true, true, false, false, sk, true});
    unsetenv("WEBNNC_OPROJ_EARLY");
}
END_TEST

/* Partial sums outside the fixed-point range, NaN and infinities: the rows' float accumulators give
 * what o_proj gives. */
START_TEST(decode_fold_range) {
    const int in = FP_INPUT, sk = FP_SKIP;
    /* per-head partial sums of about 1e6 (float32: the sum stays finite) */
    check_fold((FoldCase){DT_F32, 4, 2, 32, 40, 7, 96, 1, 32, false, false, false, false, in, true, 1e7, false});
    check_fold((FoldCase){DT_F32, 14, 2, 64, 96, 80, 128, 1, 32, true, true, false, false, sk, true, 1e6, false});
    /* float16: o_proj's products overflow to infinity, the normalization makes NaN */
    check_fold((FoldCase){DT_F16, 4, 2, 64, 32, 9, 64, 1, 32, true, true, false, false, sk, true, 1e6, false});
    /* a NaN value in the cache: every o_proj row is NaN */
    check_fold((FoldCase){DT_F16, 14, 2, 64, 96, 80, 128, 1, 32, true, true, false, false, sk, true, 0, true});
    check_fold((FoldCase){DT_F32, 8, 8, 64, 24, 5, 64, 1, 32, true, false, false, false, in, true, 0, true});
}
END_TEST

START_TEST(no_fold) {
    /* heads of 48 channels; o_proj with a bias: no rewrite, the same bytes */
    check_fold((FoldCase){DT_F16, 4, 2, 48, 32, 9, 64, 1, 32, true, true, false, false, FP_SKIP, false});
    check_fold((FoldCase){DT_F32, 4, 2, 64, 32, 9, 64, 1, 32, true, true, false, true, FP_SKIP, false});
    /* two new tokens: the attention as it is (the rewrite is in the plan; the dispatches stay) */
    check_fold((FoldCase){DT_F16, 4, 2, 64, 32, 9, 64, 2, 32, true, true, false, false, FP_SKIP, true});
}
END_TEST

int main(void) {
    Suite *su = suite_create("oproj_fold");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, decode_fold);
    tcase_add_test(tc, decode_fold_range);
    tcase_add_test(tc, no_fold);
    suite_add_tcase(su, tc);
    return rt_main(su);
}
