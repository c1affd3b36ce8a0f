/* test_rt_big.c - tensors beyond maxStorageBufferRange (128 MiB on lavapipe) on the Vulkan
 * runtime: gather from a >128 MiB table (rows at both ends, negative indices, an outer dim),
 * matmul with a >128 MiB B (M = 1 mat-vec and M > 1 tiled, broadcast batch) and with a >128 MiB
 * output, softmax / reduceSum / argMax / layerNormalization over a >128 MiB input split by rows,
 * gemm with a >128 MiB output, gatherElements / scatterElements, reflection pad of a >128 MiB tensor, and the clean error of a
 * split that cannot fit (a reduction over the outer axis).  Expected values come from reference
 * loops written here (double) over data filled on the host. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test_util.h"

#define MiB (1024.0 * 1024.0)
/* Element loops test with `if` and ck_abort_msg: ck_assert_msg marks a point per call (slow for
 * tens of millions of elements in fork mode). */

static uint64_t device_range(void) { return wnrt_context_device(rt_ctx)->max_storage_buffer_range; }

/* The test only means something when the tensor does not fit one binding. */
static void expect_beyond_range(const char *what, uint64_t bytes) {
    ck_assert_msg(bytes > device_range(), "%s: %.1f MiB fits the device's binding range (%.1f MiB): test is vacuous", what,
                  bytes / MiB, device_range() / MiB);
}

/* ---- gather -------------------------------------------------------------------------------- */

static uint16_t table16(int64_t r, int64_t c) { return (uint16_t)(((uint64_t)r * 2654435761u + (uint64_t)c * 40503u) >> 5); }

/* float16 table [V, H] (bits moved as is), int32 indices incl. both ends and negative ones. */
START_TEST(gather_f16_table_both_ends) {
    const int64_t V = 70000, H = 1000;
    expect_beyond_range("table", (uint64_t)(V * H * 2));
    const int32_t idx[] = {0, 1, 34999, 35000, 69998, 69999, -1, -70000, 12345};
    const int64_t NI = sizeof idx / sizeof idx[0];
    Graph *g = graph_new("gather_big");
    Value *t = tu_input(g, "table", DT_F16, 2, (int64_t[]){V, H});
    Value *i = tu_input(g, "ids", DT_I32, 2, (int64_t[]){1, NI});
    Node *n = tu_node(g, OP_GATHER, 2, t, i);
    node_set_int(g, n, "axis", 0);
    graph_add_output(g, graph_finish(g, n));
    uint16_t *tv = malloc(sizeof *tv * (size_t)(V * H)), *out = malloc(sizeof *out * (size_t)(NI * H));
    for (int64_t r = 0; r < V; r++)
        for (int64_t c = 0; c < H; c++) tv[r * H + c] = table16(r, c);
    ck_assert_msg(rt_run(g, (const void *[]){tv, idx}, out, sizeof *out * (uint64_t)(NI * H)) == 0, "%s", diag_message());
    for (int64_t j = 0; j < NI; j++) {
        int64_t r = idx[j] < 0 ? idx[j] + V : idx[j];
        for (int64_t c = 0; c < H; c++)
            if (out[j * H + c] != table16(r, c)) ck_abort_msg("index %d (row %lld) col %lld: got %04x want %04x", idx[j],
                          (long long)r, (long long)c, out[j * H + c], table16(r, c));
    }
    free(tv);
    free(out);
    graph_free(g);
}
END_TEST

/* float32 data [3, R, H] gathered along axis 1: every outer slice has its own windows. */
START_TEST(gather_axis1_outer_dims) {
    const int64_t O = 3, R = 12000, H = 1000;
    expect_beyond_range("data", (uint64_t)(O * R * H * 4));
    const int64_t idx[] = {R - 1, 0, 6000, R - 2, -2};
    const int64_t NI = sizeof idx / sizeof idx[0];
    Graph *g = graph_new("gather_axis1");
    Value *x = tu_input(g, "x", DT_F32, 3, (int64_t[]){O, R, H});
    Value *i = tu_input(g, "ids", DT_I64, 1, (int64_t[]){NI});
    Node *n = tu_node(g, OP_GATHER, 2, x, i);
    node_set_int(g, n, "axis", 1);
    graph_add_output(g, graph_finish(g, n));
    float *xv = malloc(sizeof *xv * (size_t)(O * R * H)), *out = malloc(sizeof *out * (size_t)(O * NI * H));
    for (int64_t e = 0; e < O * R * H; e++) { /* pseudo-random values in [1, 2) */
        uint32_t bits = 0x3f800000u | (uint32_t)((uint64_t)e * 2654435761u >> 9 & 0x7fffff);
        memcpy(&xv[e], &bits, sizeof bits);
    }
    ck_assert_msg(rt_run(g, (const void *[]){xv, idx}, out, sizeof *out * (uint64_t)(O * NI * H)) == 0, "%s", diag_message());
    for (int64_t o = 0; o < O; o++)
        for (int64_t j = 0; j < NI; j++) {
            int64_t r = idx[j] < 0 ? idx[j] + R : idx[j];
            for (int64_t c = 0; c < H; c++) {
                float want = xv[(o * R + r) * H + c], got = out[(o * NI + j) * H + c];
                if (memcmp(&got, &want, sizeof got) != 0) ck_abort_msg("outer %lld index %lld col %lld: got %.9g want %.9g",
                              (long long)o, (long long)idx[j], (long long)c, got, want);
            }
        }
    free(xv);
    free(out);
    graph_free(g);
}
END_TEST

/* ---- matmul -------------------------------------------------------------------------------- */

/* Small multiples of 1/4: every product and partial sum below is exact in float32, so the result
 * does not depend on the order of accumulation (K slices included). */
static float q4(uint64_t i) { return (float)((int)((i * 2654435761u) >> 13 & 7) - 3) / 4.0f; }

/* C[batch, M, N] = A[batch, M, K] x B[K, N] (B broadcast over the batch). */
static void check_matmul(int64_t batch, int64_t M, int64_t K, int64_t N) {
    Graph *g = graph_new("matmul_big");
    Value *a = tu_input(g, "a", DT_F32, 3, (int64_t[]){batch, M, K});
    Value *b = tu_input(g, "b", DT_F32, 2, (int64_t[]){K, N});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_MATMUL, 2, a, b)));
    float *av = malloc(sizeof *av * (size_t)(batch * M * K)), *bv = malloc(sizeof *bv * (size_t)(K * N));
    float *out = malloc(sizeof *out * (size_t)(batch * M * N));
    double *want = calloc((size_t)(batch * M * N), sizeof *want);
    for (int64_t e = 0; e < batch * M * K; e++) av[e] = q4((uint64_t)e + 7);
    for (int64_t e = 0; e < K * N; e++) bv[e] = q4((uint64_t)e * 3 + 1);
    for (int64_t p = 0; p < batch * M; p++)
        for (int64_t k = 0; k < K; k++) {
            double x = av[p * K + k];
            if (x == 0) continue;
            const float *brow = bv + k * N;
            double *w = want + p * N;
            for (int64_t j = 0; j < N; j++) w[j] += x * brow[j];
        }
    ck_assert_msg(rt_run(g, (const void *[]){av, bv}, out, sizeof *out * (uint64_t)(batch * M * N)) == 0, "%s",
                  diag_message());
    for (int64_t e = 0; e < batch * M * N; e++)
        if (out[e] != want[e]) ck_abort_msg("matmul [%lld x %lld x %lld x %lld] element (%lld, %lld): got %.9g want %.9g",
                      (long long)batch, (long long)M, (long long)K, (long long)N, (long long)(e / N), (long long)(e % N),
                      out[e], want[e]);
    free(av);
    free(bv);
    free(out);
    free(want);
    graph_free(g);
}

START_TEST(matvec_big_b) {
    expect_beyond_range("B", 1024ull * 33000 * 4);
    check_matmul(1, 1, 1024, 33000);
}
END_TEST

START_TEST(matmul_big_b_batched) {
    expect_beyond_range("B", 1100ull * 31000 * 4);
    check_matmul(2, 3, 1100, 31000);
}
END_TEST

/* logits-like output [M, 151936] beyond the range: A and C split over rows */
START_TEST(matmul_big_output) {
    expect_beyond_range("C", 240ull * 151936 * 4);
    check_matmul(1, 240, 16, 151936);
}
END_TEST

/* gemm with a >128 MiB output: y = 0.5 * a x b + 2 * c, c [M, 1] split with the rows of y */
START_TEST(gemm_big_output) {
    const int64_t M = 240, K = 16, N = 151936;
    expect_beyond_range("y", (uint64_t)(M * N * 4));
    Graph *g = graph_new("gemm_big");
    Value *a = tu_input(g, "a", DT_F32, 2, (int64_t[]){M, K});
    Value *b = tu_input(g, "b", DT_F32, 2, (int64_t[]){K, N});
    Value *c = tu_input(g, "c", DT_F32, 2, (int64_t[]){M, 1});
    Node *n = tu_node(g, OP_GEMM, 3, a, b, c);
    node_set_float(g, n, "alpha", 0.5);
    node_set_float(g, n, "beta", 2.0);
    graph_add_output(g, graph_finish(g, n));
    float *av = malloc(sizeof *av * (size_t)(M * K)), *bv = malloc(sizeof *bv * (size_t)(K * N)), cv[240];
    float *y = malloc(sizeof *y * (size_t)(M * N));
    for (int64_t e = 0; e < M * K; e++) av[e] = q4((uint64_t)e + 5);
    for (int64_t e = 0; e < K * N; e++) bv[e] = q4((uint64_t)e * 5 + 2);
    for (int64_t r = 0; r < M; r++) cv[r] = q4((uint64_t)r * 11);
    ck_assert_msg(rt_run(g, (const void *[]){av, bv, cv}, y, sizeof *y * (uint64_t)(M * N)) == 0, "%s", diag_message());
    for (int64_t r = 0; r < M; r++)
        for (int64_t j = 0; j < N; j++) {
            double want = 0;
            for (int64_t k = 0; k < K; k++) want += (double)av[r * K + k] * bv[k * N + j];
            want = 0.5 * want + 2.0 * cv[r];
            if (y[r * N + j] != want) ck_abort_msg("gemm (%lld, %lld): got %.9g want %.9g", (long long)r, (long long)j, y[r * N + j], want);
        }
    free(av);
    free(bv);
    free(y);
    graph_free(g);
}
END_TEST

/* ---- rows of a big [R, C] input ------------------------------------------------------------- */

#define ROWS 300
#define COLS 120000

static float *big_rows(void) {
    expect_beyond_range("x", (uint64_t)ROWS * COLS * 4);
    float *x = malloc(sizeof *x * (size_t)ROWS * COLS);
    for (int64_t r = 0; r < ROWS; r++) {
        for (int64_t c = 0; c < COLS; c++) x[r * COLS + c] = (float)((r * 131 + c * 71) % 1000) / 250.0f - 2.0f;
        x[r * COLS + (r * 7919) % COLS] = 6.0f + (float)r / ROWS; /* the unique maximum of the row */
    }
    return x;
}

/* Runs op(x) over the last axis (options set by `opts`); out_elems floats or int32 read back. */
static int run_rows(OpId op, const float *x, void *out, uint64_t out_bytes, void (*opts)(Graph *, Node *)) {
    Graph *g = graph_new("rows_big");
    Value *xi = tu_input(g, "x", DT_F32, 2, (int64_t[]){ROWS, COLS});
    Node *n = tu_node(g, op, 1, xi);
    opts(g, n);
    graph_add_output(g, graph_finish(g, n));
    int rc = rt_run(g, (const void *[]){x}, out, out_bytes);
    graph_free(g);
    return rc;
}

static void axis_last(Graph *g, Node *n) { node_set_int(g, n, "axis", 1); }
static void axes_last(Graph *g, Node *n) { node_set_ints(g, n, "axes", 1, (int64_t[]){1}); }
static void axes_first(Graph *g, Node *n) { node_set_ints(g, n, "axes", 1, (int64_t[]){0}); }

START_TEST(softmax_rows) {
    float *x = big_rows(), *y = malloc(sizeof *y * (size_t)ROWS * COLS);
    ck_assert_msg(run_rows(OP_SOFTMAX, x, y, sizeof *y * (uint64_t)ROWS * COLS, axis_last) == 0, "%s", diag_message());
    for (int64_t r = 0; r < ROWS; r++) {
        const float *xr = x + r * COLS;
        double m = -INFINITY, s = 0;
        for (int64_t c = 0; c < COLS; c++) m = xr[c] > m ? xr[c] : m;
        for (int64_t c = 0; c < COLS; c++) s += exp(xr[c] - m);
        for (int64_t c = 0; c < COLS; c++) {
            double want = exp(xr[c] - m) / s, got = y[r * COLS + c];
            if (!(fabs(got - want) <= 1e-4 * want + 1e-12)) ck_abort_msg("softmax row %lld col %lld: got %.9g want %.9g",
                          (long long)r, (long long)c, got, want);
        }
    }
    free(x);
    free(y);
}
END_TEST

START_TEST(reduce_sum_rows) {
    float *x = big_rows(), y[ROWS];
    ck_assert_msg(run_rows(OP_REDUCE_SUM, x, y, sizeof y, axes_last) == 0, "%s", diag_message());
    for (int64_t r = 0; r < ROWS; r++) {
        double want = 0, mag = 0;
        for (int64_t c = 0; c < COLS; c++) want += x[r * COLS + c], mag += fabs(x[r * COLS + c]);
        ck_assert_msg(fabs(y[r] - want) <= 1e-5 * mag, "reduceSum row %lld: got %.9g want %.9g", (long long)r, y[r], want);
    }
    free(x);
}
END_TEST

START_TEST(argmax_rows) {
    float *x = big_rows();
    int32_t y[ROWS];
    Graph *g = graph_new("argmax_big");
    Value *xi = tu_input(g, "x", DT_F32, 2, (int64_t[]){ROWS, COLS});
    Node *n = tu_node(g, OP_ARG_MAX, 1, xi);
    node_set_int(g, n, "axis", 1);
    node_set_dtype(g, n, "outputDataType", DT_I32);
    graph_add_output(g, graph_finish(g, n));
    ck_assert_msg(rt_run(g, (const void *[]){x}, y, sizeof y) == 0, "%s", diag_message());
    for (int64_t r = 0; r < ROWS; r++)
        ck_assert_msg(y[r] == (r * 7919) % COLS, "argMax row %lld: got %d want %lld", (long long)r, y[r],
                      (long long)((r * 7919) % COLS));
    graph_free(g);
    free(x);
}
END_TEST

START_TEST(layer_norm_rows) {
    float *x = big_rows(), *y = malloc(sizeof *y * (size_t)ROWS * COLS);
    ck_assert_msg(run_rows(OP_LAYER_NORMALIZATION, x, y, sizeof *y * (uint64_t)ROWS * COLS, axes_last) == 0, "%s",
                  diag_message());
    for (int64_t r = 0; r < ROWS; r++) {
        const float *xr = x + r * COLS;
        double mean = 0, var = 0;
        for (int64_t c = 0; c < COLS; c++) mean += xr[c];
        mean /= COLS;
        for (int64_t c = 0; c < COLS; c++) var += (xr[c] - mean) * (xr[c] - mean);
        double inv = 1.0 / sqrt(var / COLS + 1e-5);
        for (int64_t c = 0; c < COLS; c++) {
            double want = (xr[c] - mean) * inv, got = y[r * COLS + c];
            if (!(fabs(got - want) <= 1e-4 * (1 + fabs(want)))) ck_abort_msg("layerNorm row %lld col %lld: got %.9g want %.9g",
                          (long long)r, (long long)c, got, want);
        }
    }
    free(x);
    free(y);
}
END_TEST

/* reflection padding of dim 0 by 2 / 3 rows: input and output both beyond the range */
START_TEST(pad_reflection_rows) {
    float *x = big_rows();
    const int64_t OR = ROWS + 5;
    float *y = malloc(sizeof *y * (size_t)OR * COLS);
    Graph *g = graph_new("pad_big");
    Value *xi = tu_input(g, "x", DT_F32, 2, (int64_t[]){ROWS, COLS});
    Node *n = tu_node(g, OP_PAD, 1, xi);
    node_set_ints(g, n, "beginningPadding", 2, (int64_t[]){2, 0});
    node_set_ints(g, n, "endingPadding", 2, (int64_t[]){3, 0});
    node_set_string(g, n, "mode", "reflection");
    graph_add_output(g, graph_finish(g, n));
    expect_beyond_range("y", (uint64_t)OR * COLS * 4);
    ck_assert_msg(rt_run(g, (const void *[]){x}, y, sizeof *y * (uint64_t)OR * COLS) == 0, "%s", diag_message());
    for (int64_t r = 0; r < OR; r++) {
        int64_t src = r < 2 ? 2 - r : r - 2 < ROWS ? r - 2 : 2 * (ROWS - 1) - (r - 2); /* reflection, written out */
        if (memcmp(y + r * COLS, x + src * COLS, sizeof *y * COLS) != 0)
            ck_abort_msg("pad output row %lld is not input row %lld", (long long)r, (long long)src);
    }
    graph_free(g);
    free(x);
    free(y);
}
END_TEST

/* gatherElements / scatterElements along axis 1 of x [ROWS, COLS]: split over rows of dim 0 */
static void check_elements(bool scatter) {
    float *x = big_rows();
    const int64_t IR = ROWS, IC = 3;
    int32_t *idx = malloc(sizeof *idx * (size_t)(IR * IC));
    float *upd = malloc(sizeof *upd * (size_t)(IR * IC));
    for (int64_t r = 0; r < IR; r++)
        for (int64_t c = 0; c < IC; c++) {
            int64_t col = c == 0 ? 0 : c == 1 ? COLS - 1 : (r * 104729) % COLS;
            idx[r * IC + c] = (int32_t)col;
            upd[r * IC + c] = (float)(r * IC + c) + 0.5f;
        }
    uint64_t out_n = scatter ? (uint64_t)ROWS * COLS : (uint64_t)(IR * IC);
    float *y = malloc(sizeof *y * out_n);
    Graph *g = graph_new("elements_big");
    Value *xi = tu_input(g, "x", DT_F32, 2, (int64_t[]){ROWS, COLS});
    Value *ii = tu_input(g, "ids", DT_I32, 2, (int64_t[]){IR, IC});
    Node *n = scatter ? tu_node(g, OP_SCATTER_ELEMENTS, 3, xi, ii, tu_input(g, "u", DT_F32, 2, (int64_t[]){IR, IC}))
                      : tu_node(g, OP_GATHER_ELEMENTS, 2, xi, ii);
    node_set_int(g, n, "axis", 1);
    Value *out = graph_finish(g, n);
    ck_assert_msg(out, "%s", diag_message());
    graph_add_output(g, out);
    ck_assert_msg(rt_run(g, (const void *[]){x, idx, upd}, y, sizeof *y * out_n) == 0, "%s", diag_message());
    if (scatter) /* the reference: the input with the updates written over it */
        for (int64_t e = 0; e < IR * IC; e++) x[(e / IC) * COLS + idx[e]] = upd[e];
    for (uint64_t e = 0; e < out_n; e++) {
        float want = scatter ? x[e] : x[(int64_t)(e / IC) * COLS + idx[e]];
        if (memcmp(&y[e], &want, sizeof want) != 0) ck_abort_msg("element %llu: got %.9g want %.9g", (unsigned long long)e, y[e], want);
    }
    graph_free(g);
    free(x);
    free(idx);
    free(upd);
    free(y);
}

START_TEST(gather_elements_rows) { check_elements(false); }
END_TEST
START_TEST(scatter_elements_rows) { check_elements(true); }
END_TEST

/* Reducing the outer axis needs whole columns of the tensor in one binding: no split fits, and the
 * error names the node and the tensor's size instead of running on a truncated binding. */
START_TEST(reduce_outer_axis_fails_cleanly) {
    float *x = big_rows(), y[COLS];
    diag_clear();
    ck_assert_int_eq(run_rows(OP_REDUCE_SUM, x, y, sizeof y, axes_first), -1);
    const char *msg = diag_message();
    ck_assert_msg(strstr(msg, "reduceSum") && strstr(msg, "144000000 bytes") && strstr(msg, "maxStorageBufferRange"),
                  "unexpected message: %s", msg);
    free(x);
}
END_TEST

static TCase *tcase(Suite *s, const char *name) {
    TCase *tc = tcase_create(name);
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return tc;
}

int main(void) {
    Suite *s = suite_create("runtime_big");
    TCase *tc = tcase(s, "gather");
    tcase_add_test(tc, gather_f16_table_both_ends);
    tcase_add_test(tc, gather_axis1_outer_dims);
    tc = tcase(s, "matmul");
    tcase_add_test(tc, matvec_big_b);
    tcase_add_test(tc, matmul_big_b_batched);
    tcase_add_test(tc, matmul_big_output);
    tcase_add_test(tc, gemm_big_output);
    tc = tcase(s, "rows");
    tcase_add_test(tc, softmax_rows);
    tcase_add_test(tc, reduce_sum_rows);
    tcase_add_test(tc, argmax_rows);
    tcase_add_test(tc, layer_norm_rows);
    tcase_add_test(tc, pad_reflection_rows);
    tcase_add_test(tc, gather_elements_rows);
    tcase_add_test(tc, scatter_elements_rows);
    tcase_add_test(tc, reduce_outer_axis_fails_cleanly);
    return rt_main(s);
}
