/* test_rt_linalg.c - matmul (tiled GEMM and mat-vec, broadcast batch dims), reductions, softmax
 * and argMax/argMin on the Vulkan runtime against reference loops written here (double). */
#include <math.h>
#include <stdlib.h>

#include "rt_test_util.h"

static float frand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static void check_matmul(int64_t batch_a, int64_t batch_b, int64_t M, int64_t K, int64_t N) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 3, (int64_t[]){batch_a, M, K});
    Value *b = tu_input(g, "b", DT_F32, 3, (int64_t[]){batch_b, K, N});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_MATMUL, 2, a, b)));
    int64_t B = batch_a > batch_b ? batch_a : batch_b;
    float *av = malloc(sizeof(float) * (size_t)(batch_a * M * K)), *bv = malloc(sizeof(float) * (size_t)(batch_b * K * N));
    float *out = malloc(sizeof(float) * (size_t)(B * M * N));
    unsigned s = 7;
    for (int64_t i = 0; i < batch_a * M * K; i++) av[i] = frand(&s);
    for (int64_t i = 0; i < batch_b * K * N; i++) bv[i] = frand(&s);
    ck_assert_msg(rt_run(g, (const void *[]){av, bv}, out, sizeof(float) * (uint64_t)(B * M * N)) == 0, "%s", diag_message());
    for (int64_t bb = 0; bb < B; bb++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double acc = 0, mag = 0;
                const float *ap = av + (batch_a == 1 ? 0 : bb) * M * K, *bp = bv + (batch_b == 1 ? 0 : bb) * K * N;
                for (int64_t k = 0; k < K; k++) acc += (double)ap[i * K + k] * bp[k * N + j], mag += fabs((double)ap[i * K + k] * bp[k * N + j]);
                double got = out[(bb * M + i) * N + j];
                /* WPT budget: 2K ulp of the result; bound by the magnitude sum */
                ck_assert_msg(fabs(got - acc) <= 2.0 * (double)K * 1.2e-7 * (mag + 1e-30),
                              "matmul [%lld,%lld,%lld] b%lld (%lld,%lld): got %g want %g", (long long)M, (long long)K,
                              (long long)N, (long long)bb, (long long)i, (long long)j, got, acc);
            }
    free(av);
    free(bv);
    free(out);
    graph_free(g);
}

START_TEST(matmul_tiled) { check_matmul(2, 2, 70, 33, 65); }
END_TEST
START_TEST(matmul_broadcast_batch) { check_matmul(3, 1, 5, 17, 9); }
END_TEST
START_TEST(matvec) { check_matmul(2, 1, 1, 300, 130); }
END_TEST

static Value *reduce(Graph *g, OpId op, Value *x, int n_axes, const int64_t *axes, bool keep) {
    Node *n = tu_node(g, op, 1, x);
    node_set_ints(g, n, "axes", n_axes, axes);
    node_set_bool(g, n, "keepDimensions", keep);
    return graph_finish(g, n);
}

/* x[2,3,4]; reduce axes {0,2} -> [3] */
START_TEST(reductions) {
    float xv[24];
    for (int i = 0; i < 24; i++) xv[i] = (float)((i * 7) % 11) - 4.5f;
    struct { OpId op; int mode; } cases[] = {{OP_REDUCE_SUM, 0}, {OP_REDUCE_MEAN, 1}, {OP_REDUCE_MAX, 2}, {OP_REDUCE_L2, 3},
                                             {OP_REDUCE_LOG_SUM_EXP, 4}, {OP_REDUCE_MIN, 5}, {OP_REDUCE_L1, 6}};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Graph *g = graph_new("t");
        Value *x = tu_input(g, "x", DT_F32, 3, (int64_t[]){2, 3, 4});
        graph_add_output(g, reduce(g, cases[c].op, x, 2, (int64_t[]){0, 2}, false));
        float out[3];
        ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
        for (int j = 0; j < 3; j++) {
            double s = 0, mx = -INFINITY, mn = INFINITY, sq = 0, l1 = 0;
            for (int i = 0; i < 2; i++)
                for (int k = 0; k < 4; k++) {
                    double v = xv[(i * 3 + j) * 4 + k];
                    s += v, sq += v * v, l1 += fabs(v), mx = fmax(mx, v), mn = fmin(mn, v);
                }
            double lse = 0;
            for (int i = 0; i < 2; i++)
                for (int k = 0; k < 4; k++) lse += exp(xv[(i * 3 + j) * 4 + k] - mx);
            double want[] = {s, s / 8, mx, sqrt(sq), mx + log(lse), mn, l1};
            ck_assert_msg(fabs(out[j] - want[cases[c].mode]) <= 1e-5 * (1 + fabs(want[cases[c].mode])),
                          "%s[%d]: got %g want %g", op_name(cases[c].op), j, out[j], want[cases[c].mode]);
        }
        graph_free(g);
    }
}
END_TEST

START_TEST(reduce_int_long) {
    /* int32 sum over 1000 elements (workgroup path), keepDimensions */
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_I32, 2, (int64_t[]){2, 1000});
    graph_add_output(g, reduce(g, OP_REDUCE_SUM, x, 1, (int64_t[]){1}, true));
    int32_t *xv = malloc(sizeof(int32_t) * 2000), out[2];
    for (int i = 0; i < 2000; i++) xv[i] = i % 2 ? -i : i;
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    ck_assert_int_eq(out[0], -500);
    ck_assert_int_eq(out[1], -500);
    free(xv);
    graph_free(g);
}
END_TEST

START_TEST(softmax_axis) {
    float xv[2 * 3 * 4];
    for (int i = 0; i < 24; i++) xv[i] = (float)((i * 5) % 7) * 30.0f - 60.0f; /* large: needs stability */
    for (int axis = 0; axis < 3; axis++) {
        Graph *g = graph_new("t");
        Value *x = tu_input(g, "x", DT_F32, 3, (int64_t[]){2, 3, 4});
        Node *n = tu_node(g, OP_SOFTMAX, 1, x);
        node_set_uint(g, n, "axis", axis);
        graph_add_output(g, graph_finish(g, n));
        float out[24];
        ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
        int64_t dims[3] = {2, 3, 4}, st[3] = {12, 4, 1};
        for (int i = 0; i < 24; i++) {
            int c = (int)(i / st[axis] % dims[axis]);
            int base = i - c * (int)st[axis];
            double mx = -INFINITY, s = 0;
            for (int a = 0; a < dims[axis]; a++) mx = fmax(mx, xv[base + a * st[axis]]);
            for (int a = 0; a < dims[axis]; a++) s += exp(xv[base + a * st[axis]] - mx);
            double want = exp(xv[i] - mx) / s;
            ck_assert_msg(fabs(out[i] - want) <= 1e-6 + 1e-5 * want, "axis %d elem %d: got %g want %g", axis, i, out[i], want);
        }
        graph_free(g);
    }
}
END_TEST

START_TEST(argmax_first_tie) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){2, 5});
    Node *n = tu_node(g, OP_ARG_MAX, 1, x);
    node_set_uint(g, n, "axis", 1);
    graph_add_output(g, graph_finish(g, n));
    float xv[10] = {1, 7, 3, 7, 0, -1, -2, -3, -1, -5};
    int32_t out[2];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    ck_assert_int_eq(out[0], 1);
    ck_assert_int_eq(out[1], 0);
    graph_free(g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-linalg");
    TCase *tc = tcase_create("linalg");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, matmul_tiled);
    tcase_add_test(tc, matmul_broadcast_batch);
    tcase_add_test(tc, matvec);
    tcase_add_test(tc, reductions);
    tcase_add_test(tc, reduce_int_long);
    tcase_add_test(tc, softmax_axis);
    tcase_add_test(tc, argmax_first_tie);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
