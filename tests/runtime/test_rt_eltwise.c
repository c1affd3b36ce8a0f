/* test_rt_eltwise.c - element-wise kernels on the Vulkan runtime: binary ops with broadcasting,
 * integer division, comparisons, logical ops, unary ops and activations against libm (double)
 * references, clamp with NaN and infinite bounds, where, cast rules, float16 and int64 storage,
 * and the >128 MiB binding-split path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clamp_cases.h"
#include "rt_test_util.h"

#define ULP_F32 1.1920929e-7f

/* |a - b| <= ulps * ulp(b) (or an absolute floor for values near 0). */
static void assert_close(float got, double want, double rel, double abs_tol, int i) {
    double err = fabs((double)got - want);
    ck_assert_msg(err <= abs_tol + rel * fabs(want), "element %d: got %.9g, want %.9g (err %.3g)", i, got, want, err);
}

START_TEST(add_broadcast_f32) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 2, (int64_t[]){2, 3});
    Value *b = tu_input(g, "b", DT_F32, 1, (int64_t[]){3});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_ADD, 2, a, b)));
    float av[6] = {1, 2, 3, 4, 5, 6}, bv[3] = {10, 20, 30}, out[6];
    ck_assert_msg(rt_run(g, (const void *[]){av, bv}, out, sizeof out) == 0, "%s", diag_message());
    float want[6] = {11, 22, 33, 14, 25, 36};
    for (int i = 0; i < 6; i++) ck_assert_float_eq(out[i], want[i]);
    graph_free(g);
}
END_TEST

START_TEST(int_div_truncates) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_I32, 1, (int64_t[]){6});
    Value *b = tu_input(g, "b", DT_I32, 1, (int64_t[]){6});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_DIV, 2, a, b)));
    int32_t av[6] = {-7, 7, -7, 7, 9, -1}, bv[6] = {2, -2, -2, 2, 3, 5}, out[6];
    ck_assert_msg(rt_run(g, (const void *[]){av, bv}, out, sizeof out) == 0, "%s", diag_message());
    int32_t want[6] = {-3, -3, 3, 3, 3, 0};
    for (int i = 0; i < 6; i++) ck_assert_int_eq(out[i], want[i]);
    graph_free(g);
}
END_TEST

START_TEST(compare_and_logical) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 1, (int64_t[]){4});
    Value *b = tu_input(g, "b", DT_F32, 1, (int64_t[]){1});
    Value *gt = graph_finish(g, tu_node(g, OP_GREATER, 2, a, b));
    Value *eq = graph_finish(g, tu_node(g, OP_EQUAL, 2, a, b));
    Value *or = graph_finish(g, tu_node(g, OP_LOGICAL_OR, 2, gt, eq));
    graph_add_output(g, graph_finish(g, tu_node(g, OP_LOGICAL_NOT, 1, or)));
    float av[4] = {1, 2, 3, -5}, bv[1] = {2};
    uint8_t out[4];
    ck_assert_msg(rt_run(g, (const void *[]){av, bv}, out, sizeof out) == 0, "%s", diag_message());
    uint8_t want[4] = {1, 0, 0, 1}; /* not (a >= 2) */
    for (int i = 0; i < 4; i++) ck_assert_int_eq(out[i], want[i]);
    graph_free(g);
}
END_TEST

typedef double (*RefFn)(double);
static double ref_gelu(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }
static double ref_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double ref_softplus(double x) { return log1p(exp(x)); }
static double ref_relu(double x) { return x > 0 ? x : 0; }
static double ref_softsign(double x) { return x / (1 + fabs(x)); }
static double ref_hswish(double x) { return x * fmin(6, fmax(0, x + 3)) / 6; }

static void check_unary(OpId op, RefFn ref, double rel, double abs_tol) {
    enum { N = 200 };
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 1, (int64_t[]){N});
    graph_add_output(g, graph_finish(g, tu_node(g, op, 1, a)));
    float in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = -6.0f + 12.0f * (float)i / (N - 1) + 0.001f * (float)(i % 7);
    ck_assert_msg(rt_run(g, (const void *[]){in}, out, sizeof out) == 0, "%s", diag_message());
    for (int i = 0; i < N; i++) assert_close(out[i], ref(in[i]), rel, abs_tol, i);
    graph_free(g);
}

/* Tolerances: WPT ULP budgets (docs/webnn-ops.md 3.3) expressed as relative errors. */
START_TEST(unary_against_libm) {
    check_unary(OP_EXP, exp, 32 * ULP_F32, 0);
    check_unary(OP_TANH, tanh, 16 * ULP_F32, 1e-30);
    check_unary(OP_ERF, erf, 0, 1.0 / 1024);
    check_unary(OP_GELU, ref_gelu, 18 * ULP_F32, 1e-30);
    check_unary(OP_SIGMOID, ref_sigmoid, 34 * ULP_F32, 1e-30);
    check_unary(OP_SOFTPLUS, ref_softplus, 18 * ULP_F32, 1e-30);
    check_unary(OP_RELU, ref_relu, 0, 0);
    check_unary(OP_SOFTSIGN, ref_softsign, 3 * ULP_F32, 0);
    check_unary(OP_HARD_SWISH, ref_hswish, 4 * ULP_F32, 1e-7);
    check_unary(OP_ABS, fabs, 0, 0);
    check_unary(OP_SIN, sin, 0, 1.0 / 1024);
    check_unary(OP_FLOOR, floor, 0, 0);
}
END_TEST

START_TEST(where_broadcast) {
    Graph *g = graph_new("t");
    Value *c = tu_input(g, "c", DT_U8, 2, (int64_t[]){2, 1});
    Value *a = tu_input(g, "a", DT_I32, 1, (int64_t[]){3});
    Value *b = tu_input(g, "b", DT_I32, 2, (int64_t[]){2, 3});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_WHERE, 3, c, a, b)));
    uint8_t cv[2] = {1, 0};
    int32_t av[3] = {1, 2, 3}, bv[6] = {10, 20, 30, 40, 50, 60}, out[6];
    ck_assert_msg(rt_run(g, (const void *[]){cv, av, bv}, out, sizeof out) == 0, "%s", diag_message());
    int32_t want[6] = {1, 2, 3, 40, 50, 60};
    for (int i = 0; i < 6; i++) ck_assert_int_eq(out[i], want[i]);
    graph_free(g);
}
END_TEST

static Value *cast_to(Graph *g, Value *v, DType to) {
    Node *n = tu_node(g, OP_CAST, 1, v);
    node_set_dtype(g, n, "to", to);
    return graph_finish(g, n);
}

START_TEST(cast_rules) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 1, (int64_t[]){4});
    graph_add_output(g, cast_to(g, a, DT_I32));
    float av[4] = {1.9f, -1.9f, 2.5f, -0.4f};
    int32_t out[4];
    ck_assert_msg(rt_run(g, (const void *[]){av}, out, sizeof out) == 0, "%s", diag_message());
    int32_t want[4] = {1, -1, 2, 0};
    for (int i = 0; i < 4; i++) ck_assert_int_eq(out[i], want[i]);
    graph_free(g);

    g = graph_new("t");
    Value *b = tu_input(g, "b", DT_I32, 1, (int64_t[]){3});
    graph_add_output(g, cast_to(g, b, DT_U8));
    int32_t bv[3] = {300, -1, 7};
    uint8_t o8[3];
    ck_assert_msg(rt_run(g, (const void *[]){bv}, o8, sizeof o8) == 0, "%s", diag_message());
    ck_assert_int_eq(o8[0], 44); /* 300 mod 256 */
    ck_assert_int_eq(o8[1], 255);
    ck_assert_int_eq(o8[2], 7);
    graph_free(g);
}
END_TEST

/* float32 -> float16 rounds to nearest, ties to even, as ONNX Runtime and IEEE 754 do, in a cast and
 * in the float16 store of a float32 sum: values 3/4 of an ulp above a float16 (which rounding toward
 * zero would take down; the shaders ask for round-to-nearest-even where the device can,
 * runtime/vk_spirv_rte.h, and lavapipe and the NVIDIA H200 pass with or without that), exact ties,
 * and a subnormal. */
START_TEST(cast_float16_rounding) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 1, (int64_t[]){7});
    graph_add_output(g, cast_to(g, a, DT_F16));
    float av[7] = {1.000732421875f, -1.000732421875f, 1.00048828125f, 1.00146484375f, 0.203582763671875f,
                   3.0025839805603027e-05f, 0.000732421875f};
    uint16_t want[7] = {0x3c01, 0xbc01, 0x3c00, 0x3c02, 0x3284, 0x01f8, 0x1200}, out[7];
    ck_assert_msg(rt_run(g, (const void *[]){av}, out, sizeof out) == 0, "%s", diag_message());
    for (int i = 0; i < 7; i++) ck_assert_msg(out[i] == want[i], "cast %.17g: float16 0x%04x, want 0x%04x", av[i], out[i], want[i]);
    graph_free(g);

    g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F16, 1, (int64_t[]){2});
    Value *y = tu_input(g, "y", DT_F16, 1, (int64_t[]){2});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_ADD, 2, x, y)));
    /* 1 + 3 * 2^-12 and -(1 + 3 * 2^-12): 0x3c01 and 0xbc01 */
    uint16_t xv[2] = {0x3c00, 0xbc00}, yv[2] = {0x1200, 0x9200}, sum[2];
    ck_assert_msg(rt_run(g, (const void *[]){xv, yv}, sum, sizeof sum) == 0, "%s", diag_message());
    ck_assert_msg(sum[0] == 0x3c01 && sum[1] == 0xbc01, "float16 sums 0x%04x 0x%04x, want 0x3c01 0xbc01", sum[0], sum[1]);
    graph_free(g);
}
END_TEST

START_TEST(float16_and_int64) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F16, 1, (int64_t[]){3});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_ADD, 2, a, a)));
    /* f16 bits: 1.0 = 0x3c00, 1.5 = 0x3e00, -2.0 = 0xc000 -> doubled: 0x4000, 0x4200, 0xc400 */
    uint16_t av[3] = {0x3c00, 0x3e00, 0xc000}, out[3];
    ck_assert_msg(rt_run(g, (const void *[]){av}, out, sizeof out) == 0, "%s", diag_message());
    ck_assert_uint_eq(out[0], 0x4000);
    ck_assert_uint_eq(out[1], 0x4200);
    ck_assert_uint_eq(out[2], 0xc400);
    graph_free(g);

    g = graph_new("t");
    Value *x = tu_input(g, "x", DT_I64, 1, (int64_t[]){2});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_MUL, 2, x, x)));
    int64_t xv[2] = {3000000000ll, -5}, o64[2];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, o64, sizeof o64) == 0, "%s", diag_message());
    ck_assert(o64[0] == 9000000000000000000ll);
    ck_assert(o64[1] == 25);
    graph_free(g);
}
END_TEST

/* Runs clamp(x) (count elements of dt, both bounds set as options) into out. */
static void run_clamp(DType dt, int64_t count, const void *x, double lo, double hi, void *out, uint64_t out_bytes) {
    Graph *g = graph_new("t");
    Node *n = tu_node(g, OP_CLAMP, 1, tu_input(g, "x", dt, 1, &count));
    node_set_float(g, n, "minValue", lo);
    node_set_float(g, n, "maxValue", hi);
    graph_add_output(g, graph_finish(g, n));
    ck_assert_msg(rt_run(g, (const void *[]){x}, out, out_bytes) == 0, "%s", diag_message());
    graph_free(g);
}

/* A NaN bound is no bound on that side (the host passes +-Infinity: GLSL's min/max with NaN are
 * undefined); infinite bounds act as given; NaN elements stay NaN.  float32, float16, int32. */
START_TEST(clamp_nan_and_infinite_bounds) {
    for (int i = 0; i < CLAMP_CASE_COUNT(clamp_f32_cases); i++) {
        float out[6];
        run_clamp(DT_F32, 6, clamp_f32_x, clamp_f32_cases[i].lo, clamp_f32_cases[i].hi, out, sizeof out);
        for (int k = 0; k < 6; k++)
            ck_assert_msg(out[k] == clamp_f32_cases[i].want[k] || (isnan(out[k]) && isnan(clamp_f32_cases[i].want[k])),
                          "float32 case %d [%d] = %g, want %g", i, k, out[k], clamp_f32_cases[i].want[k]);
    }
    /* float16 bits: -inf, +inf, -2, 5 -> clamp(NaN, 2) -> -inf, 2, -2, 2 */
    static const uint16_t h[4] = {0xfc00, 0x7c00, 0xc000, 0x4500}, hwant[4] = {0xfc00, 0x4000, 0xc000, 0x4000};
    uint16_t hout[4];
    run_clamp(DT_F16, 4, h, NAN, 2, hout, sizeof hout);
    for (int k = 0; k < 4; k++)
        ck_assert_msg(hout[k] == hwant[k], "float16 [%d] = %#x, want %#x", k, hout[k], hwant[k]);
    for (int i = 0; i < CLAMP_CASE_COUNT(clamp_i32_cases); i++) {
        int32_t out[5];
        run_clamp(DT_I32, 5, clamp_i32_x, clamp_i32_cases[i].lo, clamp_i32_cases[i].hi, out, sizeof out);
        for (int k = 0; k < 5; k++)
            ck_assert_msg(out[k] == clamp_i32_cases[i].want[k], "int32 case %d [%d] = %d, want %d", i, k, out[k],
                          clamp_i32_cases[i].want[k]);
    }
}
END_TEST

/* 160 MiB f32 add: beyond lavapipe's 128 MiB maxStorageBufferRange, so the dispatch is split. */
START_TEST(add_beyond_binding_range) {
    const int64_t n = 40ll << 20; /* 40 Mi floats = 160 MiB */
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 1, &n);
    Value *b = tu_input(g, "b", DT_F32, 1, &n);
    graph_add_output(g, graph_finish(g, tu_node(g, OP_ADD, 2, a, b)));
    float *av = malloc((size_t)n * 4), *bv = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
    ck_assert(av && bv && out);
    for (int64_t i = 0; i < n; i++) av[i] = (float)(i & 1023), bv[i] = (float)(i >> 20);
    ck_assert_msg(rt_run(g, (const void *[]){av, bv}, out, (uint64_t)n * 4) == 0, "%s", diag_message());
    for (int64_t i = 0; i < n; i += 4099) ck_assert_float_eq(out[i], (float)(i & 1023) + (float)(i >> 20));
    ck_assert_float_eq(out[n - 1], 1023.0f + 39.0f);
    free(av);
    free(bv);
    free(out);
    graph_free(g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-eltwise");
    TCase *tc = tcase_create("eltwise");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, add_broadcast_f32);
    tcase_add_test(tc, cast_float16_rounding);
    tcase_add_test(tc, int_div_truncates);
    tcase_add_test(tc, compare_and_logical);
    tcase_add_test(tc, unary_against_libm);
    tcase_add_test(tc, clamp_nan_and_infinite_bounds);
    tcase_add_test(tc, where_broadcast);
    tcase_add_test(tc, cast_rules);
    tcase_add_test(tc, float16_and_int64);
    tcase_add_test(tc, add_beyond_binding_range);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
