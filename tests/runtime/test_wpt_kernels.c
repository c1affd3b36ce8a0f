/* test_wpt_kernels.c - WPT-style cases, with hand-computed expected values, for the runtime
 * kernels of ops outside the WPT corpus (../shared/wpt-webnn): gemm, gatherElements, gatherND,
 * scatterElements, scatterND (incl. negative and clamped indices), cumulativeSum, triangular,
 * resample2d, quantizeLinear/dequantizeLinear (blockwise, int4), gru/lstm and their cells, and the
 * 2-D pools (the WPT pool files are empty); plus the "no kernel" diagnostic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test_util.h"

static void expect_f32(const float *got, const float *want, int n, double tol) {
    for (int i = 0; i < n; i++)
        ck_assert_msg(fabs((double)got[i] - want[i]) <= tol, "element %d: got %.7g, want %.7g", i, got[i], want[i]);
}

static Value *const_f32(Graph *g, const char *name, int rank, const int64_t *shape, const float *v, int n) {
    return graph_add_const_copy(g, name, DT_F32, rank, shape, v, sizeof *v * (size_t)n);
}

START_TEST(gemm_transpose_alpha_beta_c) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 2, (int64_t[]){2, 2});
    Value *b = tu_input(g, "b", DT_F32, 2, (int64_t[]){2, 2});
    Value *c = tu_input(g, "c", DT_F32, 1, (int64_t[]){2});
    Node *n = tu_node(g, OP_GEMM, 3, a, b, c);
    node_set_bool(g, n, "aTranspose", true);
    node_set_float(g, n, "alpha", 2.0);
    node_set_float(g, n, "beta", 0.5);
    graph_add_output(g, graph_finish(g, n));
    float av[4] = {1, 2, 3, 4}, bv[4] = {5, 6, 7, 8}, cv[2] = {1, 2}, out[4];
    ck_assert_msg(rt_run(g, (const void *[]){av, bv, cv}, out, sizeof out) == 0, "%s", diag_message());
    /* a^T b = [[26, 30], [38, 44]]; *2 + 0.5*[1, 2] */
    expect_f32(out, (float[]){52.5f, 61, 76.5f, 89}, 4, 0);
    graph_free(g);
}
END_TEST

START_TEST(gemm_b_transpose_scalar_c) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 2, (int64_t[]){1, 3});
    Value *b = tu_input(g, "b", DT_F32, 2, (int64_t[]){2, 3});
    Value *c = const_f32(g, "c", 0, NULL, (float[]){10}, 1);
    Node *n = tu_node(g, OP_GEMM, 3, a, b, c);
    node_set_bool(g, n, "bTranspose", true);
    graph_add_output(g, graph_finish(g, n));
    float av[3] = {1, 2, 3}, bv[6] = {1, 0, 1, 0, 1, 0}, out[2];
    ck_assert_msg(rt_run(g, (const void *[]){av, bv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, (float[]){14, 12}, 2, 0);
    graph_free(g);
}
END_TEST

START_TEST(gather_elements_clamps) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){3, 2});
    Value *i = tu_input(g, "i", DT_I32, 2, (int64_t[]){2, 2});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_GATHER_ELEMENTS, 2, x, i)));
    float xv[6] = {1, 2, 3, 4, 5, 6}, out[4];
    int32_t iv[4] = {2, 0, 7, -1};
    ck_assert_msg(rt_run(g, (const void *[]){xv, iv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, (float[]){5, 2, 5, 6}, 4, 0); /* 7 clamps to 2, -1 means 2 */
    graph_free(g);
}
END_TEST

START_TEST(gather_elements_axis1_int64) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_I32, 2, (int64_t[]){2, 3});
    Value *i = tu_input(g, "i", DT_I64, 2, (int64_t[]){2, 2});
    Node *n = tu_node(g, OP_GATHER_ELEMENTS, 2, x, i);
    node_set_uint(g, n, "axis", 1);
    graph_add_output(g, graph_finish(g, n));
    int32_t xv[6] = {1, 2, 3, 4, 5, 6}, out[4];
    int64_t iv[4] = {2, 0, -3, 1};
    ck_assert_msg(rt_run(g, (const void *[]){xv, iv}, out, sizeof out) == 0, "%s", diag_message());
    int32_t want[4] = {3, 1, 4, 5};
    for (int k = 0; k < 4; k++) ck_assert_int_eq(out[k], want[k]);
    graph_free(g);
}
END_TEST

START_TEST(gather_nd_slices_and_elements) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){2, 2});
    Value *i = tu_input(g, "i", DT_I64, 2, (int64_t[]){2, 1});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_GATHER_ND, 2, x, i)));
    float xv[4] = {1, 2, 3, 4}, out[4];
    int64_t iv[2] = {1, 0};
    ck_assert_msg(rt_run(g, (const void *[]){xv, iv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, (float[]){3, 4, 1, 2}, 4, 0);
    graph_free(g);

    g = graph_new("t");
    x = tu_input(g, "x", DT_F32, 2, (int64_t[]){2, 2});
    i = tu_input(g, "i", DT_U32, 2, (int64_t[]){2, 2});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_GATHER_ND, 2, x, i)));
    uint32_t uv[4] = {0, 1, 1, 9};
    ck_assert_msg(rt_run(g, (const void *[]){xv, uv}, out, 2 * sizeof *out) == 0, "%s", diag_message());
    expect_f32(out, (float[]){2, 4}, 2, 0); /* 9 clamps to 1 */
    graph_free(g);
}
END_TEST

START_TEST(scatter_elements_axis0) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){3, 3});
    Value *i = tu_input(g, "i", DT_I32, 2, (int64_t[]){2, 3});
    Value *u = tu_input(g, "u", DT_F32, 2, (int64_t[]){2, 3});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_SCATTER_ELEMENTS, 3, x, i, u)));
    float xv[9] = {0}, uv[6] = {1, 1.1f, 1.2f, 2, 2.1f, 2.2f}, out[9];
    int32_t iv[6] = {1, 0, 2, 0, 2, 1};
    ck_assert_msg(rt_run(g, (const void *[]){xv, iv, uv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, (float[]){2, 1.1f, 0, 1, 0, 2.2f, 0, 2.1f, 1.2f}, 9, 0);
    graph_free(g);
}
END_TEST

START_TEST(scatter_nd_elements) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 1, (int64_t[]){8});
    Value *i = tu_input(g, "i", DT_I64, 2, (int64_t[]){4, 1});
    Value *u = tu_input(g, "u", DT_F32, 1, (int64_t[]){4});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_SCATTER_ND, 3, x, i, u)));
    float xv[8] = {1, 2, 3, 4, 5, 6, 7, 8}, uv[4] = {9, 10, 11, 12}, out[8];
    int64_t iv[4] = {4, 3, -7, 7};
    ck_assert_msg(rt_run(g, (const void *[]){xv, iv, uv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, (float[]){1, 11, 3, 10, 9, 6, 7, 12}, 8, 0);
    graph_free(g);
}
END_TEST

START_TEST(cumulative_sum_modes) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 1, (int64_t[]){4});
    Node *n = tu_node(g, OP_CUMULATIVE_SUM, 1, x);
    node_set_uint(g, n, "axis", 0);
    node_set_bool(g, n, "exclusive", true);
    node_set_bool(g, n, "reversed", true);
    graph_add_output(g, graph_finish(g, n));
    float xv[4] = {1, 2, 3, 4}, out[4];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, (float[]){9, 7, 4, 0}, 4, 0);
    graph_free(g);

    g = graph_new("t");
    x = tu_input(g, "x", DT_I32, 2, (int64_t[]){2, 2});
    n = tu_node(g, OP_CUMULATIVE_SUM, 1, x);
    node_set_uint(g, n, "axis", 0);
    graph_add_output(g, graph_finish(g, n));
    int32_t iv[4] = {1, 2, 3, 4}, iout[4];
    ck_assert_msg(rt_run(g, (const void *[]){iv}, iout, sizeof iout) == 0, "%s", diag_message());
    int32_t want[4] = {1, 2, 4, 6};
    for (int k = 0; k < 4; k++) ck_assert_int_eq(iout[k], want[k]);
    graph_free(g);
}
END_TEST

static void triangular_case(bool upper, int64_t diag, const float *want) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){3, 3});
    Node *n = tu_node(g, OP_TRIANGULAR, 1, x);
    node_set_bool(g, n, "upper", upper);
    node_set_int(g, n, "diagonal", diag);
    graph_add_output(g, graph_finish(g, n));
    float xv[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, out[9];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, want, 9, 0);
    graph_free(g);
}

START_TEST(triangular_upper_lower) {
    triangular_case(false, -1, (float[]){0, 0, 0, 4, 0, 0, 7, 8, 0});
    triangular_case(true, 1, (float[]){0, 2, 3, 0, 0, 6, 0, 0, 0});
    triangular_case(true, 0, (float[]){1, 2, 3, 0, 5, 6, 0, 0, 9});
    triangular_case(true, -5, (float[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
}
END_TEST

static void resample_case(const char *mode, const float *want) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 4, (int64_t[]){1, 1, 2, 2});
    Node *n = tu_node(g, OP_RESAMPLE2D, 1, x);
    node_set_string(g, n, "mode", mode);
    node_set_floats(g, n, "scales", 2, (double[]){2.0, 2.0});
    graph_add_output(g, graph_finish(g, n));
    float xv[4] = {1, 2, 3, 4}, out[16];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, want, 16, 1e-6);
    graph_free(g);
}

START_TEST(resample_nearest_and_linear) {
    resample_case("nearest-neighbor", (float[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
    resample_case("linear", (float[]){1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f,
                                      3.75f, 4});
}
END_TEST


START_TEST(dequantize_int8_blockwise) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_I8, 2, (int64_t[]){2, 4});
    Value *s = const_f32(g, "s", 2, (int64_t[]){2, 2}, (float[]){0.5f, 2, 1, 0.25f}, 4);
    int8_t zv[4] = {0, 1, 10, -4};
    Value *z = graph_add_const_copy(g, "z", DT_I8, 2, (int64_t[]){2, 2}, zv, sizeof zv);
    graph_add_output(g, graph_finish(g, tu_node(g, OP_DEQUANTIZE_LINEAR, 3, x, s, z)));
    int8_t xv[8] = {-128, 0, 1, 127, 10, 20, 30, 40};
    float out[8];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, (float[]){-64, 0, 0, 252, 0, 10, 8.5f, 11}, 8, 0);
    graph_free(g);
}
END_TEST

START_TEST(quantize_uint8_rounds_even_and_saturates) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 1, (int64_t[]){4});
    Value *s = const_f32(g, "s", 1, (int64_t[]){1}, (float[]){1}, 1);
    uint8_t zv[1] = {10};
    Value *z = graph_add_const_copy(g, "z", DT_U8, 1, (int64_t[]){1}, zv, 1);
    graph_add_output(g, graph_finish(g, tu_node(g, OP_QUANTIZE_LINEAR, 3, x, s, z)));
    float xv[4] = {-1, 2.5f, 3.5f, 1000};
    uint8_t out[4];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    uint8_t want[4] = {9, 12, 14, 255};
    for (int k = 0; k < 4; k++) ck_assert_int_eq(out[k], want[k]);
    graph_free(g);
}
END_TEST

START_TEST(dequantize_int4_packed) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_I4, 1, (int64_t[]){5});
    Value *s = const_f32(g, "s", 1, (int64_t[]){1}, (float[]){2}, 1);
    uint8_t zv[1] = {0x0F}; /* -1 */
    Value *z = graph_add_const_copy(g, "z", DT_I4, 1, (int64_t[]){1}, zv, 1);
    graph_add_output(g, graph_finish(g, tu_node(g, OP_DEQUANTIZE_LINEAR, 3, x, s, z)));
    uint8_t xv[3] = {0x78, 0x3F, 0x05}; /* -8, 7, -1, 3, 5 (low nibble first) */
    float out[5];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, (float[]){-14, 16, 0, 8, 12}, 5, 0);
    graph_free(g);
}
END_TEST

START_TEST(quantize_uint4_packed) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 1, (int64_t[]){3});
    Value *s = const_f32(g, "s", 1, (int64_t[]){1}, (float[]){0.5f}, 1);
    uint8_t zv[1] = {0x01};
    Value *z = graph_add_const_copy(g, "z", DT_U4, 1, (int64_t[]){1}, zv, 1);
    graph_add_output(g, graph_finish(g, tu_node(g, OP_QUANTIZE_LINEAR, 3, x, s, z)));
    float xv[3] = {0, 7.4f, 100};
    uint8_t out[2];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    ck_assert_int_eq(out[0], 0xF1); /* 1, 15 */
    ck_assert_int_eq(out[1] & 0x0F, 0x0F); /* 15 (saturated) */
    graph_free(g);
}
END_TEST

/* Loads g, binds inputs (graph input order), runs and reads outputs 0..n_out-1 (float32). */
static void run_outputs(Graph *g, const void *const *inputs, int n_out, float **outs, const int *counts) {
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s", diag_message());
    for (int i = 0; i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        int64_t shape[WN_MAX_RANK];
        uint64_t cnt = 1;
        for (int d = 0; d < v->rank; d++) cnt *= (uint64_t)(shape[d] = v->shape[d].v);
        ck_assert_msg(wnrt_bind_input(m, v->name, inputs[i], dtype_storage_bytes(v->dtype, cnt), v->rank, shape) == 0, "%s",
                      diag_message());
    }
    ck_assert_msg(wnrt_run(m) == 0, "%s", diag_message());
    for (int k = 0; k < n_out; k++)
        ck_assert_msg(wnrt_read_output(m, k, outs[k], sizeof(float) * (size_t)counts[k]) == 0, "%s", diag_message());
    wnrt_free(m);
}

static Value *ones(Graph *g, const char *name, int rank, const int64_t *shape, float v) {
    float buf[64];
    int n = 1;
    for (int d = 0; d < rank; d++) n *= (int)shape[d];
    for (int i = 0; i < n; i++) buf[i] = v;
    return const_f32(g, name, rank, shape, buf, n);
}

static void gru_cell_case(bool reset_after, float want) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){1, 1});
    Value *w = ones(g, "w", 2, (int64_t[]){3, 1}, 1);
    Value *r = const_f32(g, "r", 2, (int64_t[]){3, 1}, (float[]){0, 0, 2}, 3);
    Value *h = const_f32(g, "h", 2, (int64_t[]){1, 1}, (float[]){0.5f}, 1);
    Value *rb = const_f32(g, "rb", 1, (int64_t[]){3}, (float[]){0, 0, 1}, 3);
    Node *n = tu_node(g, OP_GRU_CELL, 6, x, w, r, h, NULL, rb);
    node_set_uint(g, n, "hiddenSize", 1);
    node_set_bool(g, n, "resetAfter", reset_after);
    graph_add_output(g, graph_finish(g, n));
    float xv[1] = {1}, out[1];
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof out) == 0, "%s", diag_message());
    expect_f32(out, &want, 1, 2e-6);
    graph_free(g);
}

START_TEST(gru_cell_reset_after) {
    /* z = r = sigmoid(1); n = tanh(1 + r*(0.5*2 + 1)) or tanh(1 + (r*0.5)*2 + 1); h' = (1-z)n + z*0.5 */
    gru_cell_case(true, 0.63058943f);
    gru_cell_case(false, 0.63219728f);
}
END_TEST

static void lstm_cell_case(const char *layout, const float *wv, float want_h, float want_c) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){1, 1});
    Value *w = const_f32(g, "w", 2, (int64_t[]){4, 1}, wv, 4);
    Value *r = ones(g, "r", 2, (int64_t[]){4, 1}, 0);
    Value *h = ones(g, "h", 2, (int64_t[]){1, 1}, 0);
    Value *c = ones(g, "c", 2, (int64_t[]){1, 1}, 1);
    Node *n = tu_node(g, OP_LSTM_CELL, 5, x, w, r, h, c);
    node_set_uint(g, n, "hiddenSize", 1);
    node_set_string(g, n, "layout", layout);
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    graph_add_output(g, n->outputs[0]);
    graph_add_output(g, n->outputs[1]);
    float xv[1] = {1}, oh[1], oc[1];
    run_outputs(g, (const void *[]){xv}, 2, (float *[]){oh, oc}, (int[]){1, 1});
    expect_f32(oh, &want_h, 1, 2e-6);
    expect_f32(oc, &want_c, 1, 2e-6);
    graph_free(g);
}

START_TEST(lstm_cell_layouts) {
    /* iofg, all weights 1: c' = s(1)*1 + s(1)*tanh(1), h' = s(1)*tanh(c') */
    lstm_cell_case("iofg", (float[]){1, 1, 1, 1}, 0.62765529f, 1.28782852f);
    /* ifgo weights 1,2,3,4: c' = s(2) + s(1)*tanh(3), h' = s(4)*tanh(c') */
    lstm_cell_case("ifgo", (float[]){1, 2, 3, 4}, 0.90630011f, 1.60824039f);
}
END_TEST

START_TEST(gru_both_directions_sequence) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 3, (int64_t[]){2, 1, 1});
    Value *w = ones(g, "w", 3, (int64_t[]){2, 3, 1}, 1);
    Value *r = ones(g, "r", 3, (int64_t[]){2, 3, 1}, 0);
    Node *n = tu_node(g, OP_GRU, 3, x, w, r);
    node_set_uint(g, n, "steps", 2);
    node_set_uint(g, n, "hiddenSize", 1);
    node_set_string(g, n, "direction", "both");
    node_set_bool(g, n, "returnSequence", true);
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    ck_assert_int_eq(n->n_outputs, 2);
    graph_add_output(g, n->outputs[0]);
    graph_add_output(g, n->outputs[1]);
    float xv[2] = {0.5f, -1}, oh[2], os[4];
    run_outputs(g, (const void *[]){xv}, 2, (float *[]){oh, os}, (int[]){2, 4});
    /* step h' = (1 - s(x)) tanh(x) + s(x) h; forward over x0, x1; backward over x1, x0 */
    expect_f32(os, (float[]){0.17446802f, -0.17209862f, -0.50984826f, -0.55676994f}, 4, 2e-6);
    expect_f32(oh, (float[]){-0.50984826f, -0.17209862f}, 2, 2e-6);
    graph_free(g);
}
END_TEST

START_TEST(lstm_backward_peepholes_initial_state) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 3, (int64_t[]){2, 1, 1});
    Value *w = ones(g, "w", 3, (int64_t[]){1, 4, 1}, 1);
    Value *r = ones(g, "r", 3, (int64_t[]){1, 4, 1}, 0.5f);
    Value *b = ones(g, "b", 2, (int64_t[]){1, 4}, 0.1f);
    Value *p = const_f32(g, "p", 2, (int64_t[]){1, 3}, (float[]){0.2f, 0.3f, 0.4f}, 3);
    Value *h0 = ones(g, "h0", 3, (int64_t[]){1, 1, 1}, 0.1f);
    Value *c0 = ones(g, "c0", 3, (int64_t[]){1, 1, 1}, 0.2f);
    Node *n = tu_node(g, OP_LSTM, 8, x, w, r, b, NULL, p, h0, c0);
    node_set_uint(g, n, "steps", 2);
    node_set_uint(g, n, "hiddenSize", 1);
    node_set_string(g, n, "direction", "backward");
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    graph_add_output(g, n->outputs[0]);
    graph_add_output(g, n->outputs[1]);
    float xv[2] = {0.5f, -1}, oh[1], oc[1];
    run_outputs(g, (const void *[]){xv}, 2, (float *[]){oh, oc}, (int[]){1, 1});
    /* per step: i = s(x + .5h + .1 + .2c), f = s(x + .5h + .1 + .4c), g = tanh(x + .5h + .1),
     * c' = f c + i g, o = s(x + .5h + .1 + .3c'), h' = o tanh(c'); steps t = 1 then t = 0 */
    expect_f32(oh, (float[]){0.15275389f}, 1, 2e-6);
    expect_f32(oc, (float[]){0.23686800f}, 1, 2e-6);
    graph_free(g);
}
END_TEST

START_TEST(oversized_hidden_size_reports_no_kernel) {
    /* hiddenSize 1025 exceeds the recurrent kernel's shared-memory state (1024): load must fail
     * with the standard message, at check time (before anything is uploaded). */
    enum { H = 1025 };
    float *zeros = calloc((size_t)3 * H * H, sizeof *zeros);
    ck_assert_ptr_nonnull(zeros);
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){1, 1});
    Value *w = graph_add_const(g, "w", DT_F32, 2, (int64_t[]){3 * H, 1}, zeros, sizeof *zeros * 3 * H);
    Value *r = graph_add_const(g, "r", DT_F32, 2, (int64_t[]){3 * H, H}, zeros, sizeof *zeros * 3 * H * H);
    Value *h = graph_add_const(g, "h", DT_F32, 2, (int64_t[]){1, H}, zeros, sizeof *zeros * H);
    Node *n = tu_node(g, OP_GRU_CELL, 4, x, w, r, h);
    node_set_uint(g, n, "hiddenSize", H);
    Value *y = graph_finish(g, n);
    ck_assert_msg(y != NULL, "%s", diag_message());
    graph_add_output(g, y);
    ck_assert_ptr_null(wnrt_load(rt_ctx, g));
    ck_assert_msg(strstr(diag_message(), "no kernel for op gruCell") != NULL, "%s", diag_message());
    graph_free(g);
    free(zeros);
}
END_TEST

static void pool_case(OpId op, const char *layout, const int64_t *shape, const float *xv, int nx, const int64_t *win,
                      const int64_t *pad, const int64_t *dil, const float *want, int nw) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 4, shape);
    Node *n = tu_node(g, op, 1, x);
    node_set_string(g, n, "layout", layout);
    node_set_ints(g, n, "windowDimensions", 2, win);
    if (pad) node_set_ints(g, n, "padding", 4, pad);
    if (dil) node_set_ints(g, n, "dilations", 2, dil);
    Value *y = graph_finish(g, n);
    ck_assert_msg(y != NULL, "%s", diag_message());
    ck_assert_int_eq((int)value_max_elements(y), nw);
    graph_add_output(g, y);
    float out[16];
    (void)nx;
    ck_assert_msg(rt_run(g, (const void *[]){xv}, out, sizeof(float) * (size_t)nw) == 0, "%s", diag_message());
    expect_f32(out, want, nw, 1e-6);
    graph_free(g);
}

START_TEST(pools_window_padding_dilation_layout) {
    const float x9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    pool_case(OP_MAX_POOL2D, "nchw", (int64_t[]){1, 1, 3, 3}, x9, 9, (int64_t[]){2, 2}, NULL, NULL,
              (float[]){5, 6, 8, 9}, 4);
    pool_case(OP_MAX_POOL2D, "nchw", (int64_t[]){1, 1, 3, 3}, x9, 9, (int64_t[]){2, 2}, NULL, (int64_t[]){2, 2},
              (float[]){9}, 1);
    /* padding is not counted: every 3x3 window over the padded 2x2 input sees all 4 values */
    pool_case(OP_AVERAGE_POOL2D, "nchw", (int64_t[]){1, 1, 2, 2}, (float[]){1, 2, 3, 4}, 4, (int64_t[]){3, 3},
              (int64_t[]){1, 1, 1, 1}, NULL, (float[]){2.5f, 2.5f, 2.5f, 2.5f}, 4);
    /* nhwc with 2 channels: channel 0 = {3, 4, 0, 0}, channel 1 = {1, 1, 1, 1} */
    pool_case(OP_L2_POOL2D, "nhwc", (int64_t[]){1, 2, 2, 2}, (float[]){3, 1, 4, 1, 0, 1, 0, 1}, 8, (int64_t[]){2, 2}, NULL,
              NULL, (float[]){5, 2}, 2);
    pool_case(OP_AVERAGE_POOL2D, "nhwc", (int64_t[]){1, 2, 2, 2}, (float[]){3, 1, 4, 1, 0, 1, 0, 1}, 8, (int64_t[]){2, 1},
              NULL, NULL, (float[]){1.5f, 1, 2, 1}, 4);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-wpt-kernels");
    TCase *tc = tcase_create("kernels");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_add_test(tc, gemm_transpose_alpha_beta_c);
    tcase_add_test(tc, gemm_b_transpose_scalar_c);
    tcase_add_test(tc, gather_elements_clamps);
    tcase_add_test(tc, gather_elements_axis1_int64);
    tcase_add_test(tc, gather_nd_slices_and_elements);
    tcase_add_test(tc, scatter_elements_axis0);
    tcase_add_test(tc, scatter_nd_elements);
    tcase_add_test(tc, cumulative_sum_modes);
    tcase_add_test(tc, triangular_upper_lower);
    tcase_add_test(tc, resample_nearest_and_linear);
    tcase_add_test(tc, pools_window_padding_dilation_layout);
    tcase_add_test(tc, dequantize_int8_blockwise);
    tcase_add_test(tc, quantize_uint8_rounds_even_and_saturates);
    tcase_add_test(tc, dequantize_int4_packed);
    tcase_add_test(tc, quantize_uint4_packed);
    tcase_add_test(tc, gru_cell_reset_after);
    tcase_add_test(tc, lstm_cell_layouts);
    tcase_add_test(tc, gru_both_directions_sequence);
    tcase_add_test(tc, lstm_backward_peepholes_initial_state);
    tcase_add_test(tc, oversized_hidden_size_reports_no_kernel);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
