/* test_eval_ops.c - Check tests of CPU evaluator semantics that the WPT JSON corpus does not cover
 * (gather index clamping, integer division, argMax ties, roundEven, cast rules incl. float16 and
 * int4, clamp with NaN and infinite bounds on float and integer types, cumulativeSum, triangular,
 * where, gatherND/scatterND, blockwise (de)quantization, gemm, softmax, pools, resample2d, pad
 * modes, recurrent ops).  Expected values are worked out by hand
 * from the WebNN definitions and written as literals. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "clamp_cases.h"
#include "test_util.h"

#define SHAPE(...) (const int64_t[]){__VA_ARGS__}
#define LEN(a) ((int)(sizeof(a) / sizeof *(a)))

static Graph *g;

static void setup(void) {
    diag_clear();
    g = graph_new("t");
}
static void teardown(void) { graph_free(g); }

static Value *K(DType dt, int rank, const int64_t *shape, const void *data) {
    uint64_t count = 1;
    for (int i = 0; i < rank; i++) count *= (uint64_t)shape[i];
    return graph_add_const_copy(g, "k", dt, rank, shape, data, dtype_storage_bytes(dt, count));
}

static Node *node(OpId op, int n_in, Value *const *in) {
    Node *n = graph_new_node(g, op, NULL);
    for (int i = 0; i < n_in; i++) node_add_input(g, n, in[i]);
    return n;
}

/* Inserts and folds n; returns output `k`'s bytes. */
static const void *fold(Node *n, int k) {
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    ck_assert_msg(eval_fold_node(g, n) == 1, "%s not folded: %s", op_name(n->op), diag_message());
    return n->outputs[k]->data;
}

static void expect_f32(const void *data, const float *want, int count, float tol) {
    const float *f = data;
    for (int i = 0; i < count; i++)
        ck_assert_msg(f[i] == want[i] || fabsf(f[i] - want[i]) <= tol || (isnan(f[i]) && isnan(want[i])),
                      "[%d] = %.9g, want %.9g", i, f[i], want[i]);
}

START_TEST(gather_clamps_and_wraps) {
    static const float x[4] = {10, 20, 30, 40};
    static const int32_t idx[4] = {-1, 5, -9, 1};
    Value *in[2] = {K(DT_F32, 1, SHAPE(4), x), K(DT_I32, 1, SHAPE(4), idx)};
    static const float want[4] = {40, 40, 10, 20};
    expect_f32(fold(node(OP_GATHER, 2, in), 0), want, 4, 0);
}
END_TEST

START_TEST(int_div_truncates) {
    static const int32_t a[4] = {-7, 7, -7, INT32_MIN}, b[4] = {2, -2, -2, -1};
    Value *in[2] = {K(DT_I32, 1, SHAPE(4), a), K(DT_I32, 1, SHAPE(4), b)};
    const int32_t *r = fold(node(OP_DIV, 2, in), 0);
    ck_assert_int_eq(r[0], -3);
    ck_assert_int_eq(r[1], -3);
    ck_assert_int_eq(r[2], 3);
    ck_assert_int_eq(r[3], INT32_MIN); /* wraps */
}
END_TEST

START_TEST(arg_first_index) {
    static const float x[5] = {1, 3, 3, 0, 0};
    Value *in[1] = {K(DT_F32, 1, SHAPE(5), x)};
    Node *n = node(OP_ARG_MAX, 1, in);
    node_set_uint(g, n, "axis", 0);
    ck_assert_int_eq(*(const int32_t *)fold(n, 0), 1);
    n = node(OP_ARG_MIN, 1, in);
    node_set_uint(g, n, "axis", 0);
    ck_assert_int_eq(*(const int32_t *)fold(n, 0), 3);
}
END_TEST

START_TEST(round_even_and_special) {
    static const float x[4] = {2.5f, 3.5f, -0.5f, -1.5f};
    Value *in[1] = {K(DT_F32, 1, SHAPE(4), x)};
    const float *r = fold(node(OP_ROUND_EVEN, 1, in), 0);
    ck_assert(r[0] == 2 && r[1] == 4 && r[2] == 0 && signbit(r[2]) && r[3] == -2);
    static const float y[3] = {NAN, 1, -INFINITY};
    Value *in2[1] = {K(DT_F32, 1, SHAPE(3), y)};
    const uint8_t *nan = fold(node(OP_IS_NAN, 1, in2), 0);
    ck_assert(nan[0] == 1 && nan[1] == 0 && nan[2] == 0);
    const uint8_t *inf = fold(node(OP_IS_INFINITE, 1, in2), 0);
    ck_assert(inf[0] == 0 && inf[1] == 0 && inf[2] == 1);
}
END_TEST

START_TEST(cast_rules) {
    /* float16: saturation to inf, the largest finite value, ties to even. */
    static const float h[5] = {70000.0f, 65519.0f, 65520.0f, 1.00048828125f, 1.00146484375f};
    Value *in[1] = {K(DT_F32, 1, SHAPE(5), h)};
    Node *n = node(OP_CAST, 1, in);
    node_set_dtype(g, n, "to", DT_F16);
    const uint16_t *r = fold(n, 0);
    ck_assert_uint_eq(r[0], 0x7c00);
    ck_assert_uint_eq(r[1], 0x7bff);
    ck_assert_uint_eq(r[2], 0x7c00);
    ck_assert_uint_eq(r[3], 0x3c00); /* 1 + 2^-11 ties to 1 */
    ck_assert_uint_eq(r[4], 0x3c02); /* 1 + 3*2^-11 ties to 1 + 2^-9 */
    /* float -> int truncates; int -> narrower int wraps; int4 packs low nibble first. */
    static const float f[2] = {-2.7f, 2.7f};
    Value *fin[1] = {K(DT_F32, 1, SHAPE(2), f)};
    n = node(OP_CAST, 1, fin);
    node_set_dtype(g, n, "to", DT_I32);
    const int32_t *ri = fold(n, 0);
    ck_assert(ri[0] == -2 && ri[1] == 2);
    static const int32_t w[3] = {300, -1, 9};
    Value *win[1] = {K(DT_I32, 1, SHAPE(3), w)};
    n = node(OP_CAST, 1, win);
    node_set_dtype(g, n, "to", DT_U8);
    const uint8_t *ru = fold(n, 0);
    ck_assert(ru[0] == 44 && ru[1] == 255 && ru[2] == 9);
    static const int32_t q[3] = {-8, 7, 9};
    Value *qin[1] = {K(DT_I32, 1, SHAPE(3), q)};
    n = node(OP_CAST, 1, qin);
    node_set_dtype(g, n, "to", DT_I4);
    const uint8_t *r4 = fold(n, 0);
    ck_assert_uint_eq(r4[0], 0x78);
    ck_assert_uint_eq(r4[1], 0x09);
    ck_assert_int_eq(n->outputs[0]->nbytes, 2);
}
END_TEST

START_TEST(int_unary_wraps) {
    static const int8_t x[2] = {-128, -5};
    Value *in[1] = {K(DT_I8, 1, SHAPE(2), x)};
    const int8_t *neg = fold(node(OP_NEG, 1, in), 0);
    ck_assert(neg[0] == -128 && neg[1] == 5);
    const int8_t *abs_ = fold(node(OP_ABS, 1, in), 0);
    ck_assert(abs_[0] == -128 && abs_[1] == 5);
    const int8_t *relu = fold(node(OP_RELU, 1, in), 0);
    ck_assert(relu[0] == 0 && relu[1] == 0);
}
END_TEST

/* clamp(x) with both bounds set as options (a NaN bound is no bound on that side). */
static const void *fold_clamp(Value *x, double lo, double hi) {
    Value *in[1] = {x};
    Node *n = node(OP_CLAMP, 1, in);
    node_set_float(g, n, "minValue", lo);
    node_set_float(g, n, "maxValue", hi);
    return fold(n, 0);
}

START_TEST(clamp_nan_and_infinite_bounds) {
    /* float32 and int32: the shared cases of clamp_cases.h */
    Value *xf = K(DT_F32, 1, SHAPE(6), clamp_f32_x);
    for (int i = 0; i < CLAMP_CASE_COUNT(clamp_f32_cases); i++)
        expect_f32(fold_clamp(xf, clamp_f32_cases[i].lo, clamp_f32_cases[i].hi), clamp_f32_cases[i].want, 6, 0);
    Value *vi = K(DT_I32, 1, SHAPE(5), clamp_i32_x);
    for (int i = 0; i < CLAMP_CASE_COUNT(clamp_i32_cases); i++) {
        const int32_t *r = fold_clamp(vi, clamp_i32_cases[i].lo, clamp_i32_cases[i].hi);
        for (int k = 0; k < 5; k++)
            ck_assert_msg(r[k] == clamp_i32_cases[i].want[k], "case %d [%d] = %d, want %d", i, k, r[k], clamp_i32_cases[i].want[k]);
    }
    /* uint64 (compared unsigned) */
    static const uint64_t xu[3] = {0, 5, UINT64_MAX};
    Value *vu = K(DT_U64, 1, SHAPE(3), xu);
    const uint64_t *u = fold_clamp(vu, NAN, 4);
    ck_assert(u[0] == 0 && u[1] == 4 && u[2] == 4);
    u = fold_clamp(vu, 4.5, NAN);
    ck_assert(u[0] == 5 && u[1] == 5 && u[2] == UINT64_MAX);
}
END_TEST

START_TEST(cumsum_triangular_where) {
    static const int32_t x[4] = {1, 2, 3, 4};
    Value *in[1] = {K(DT_I32, 1, SHAPE(4), x)};
    Node *n = node(OP_CUMULATIVE_SUM, 1, in);
    node_set_uint(g, n, "axis", 0);
    node_set_bool(g, n, "exclusive", true);
    node_set_bool(g, n, "reversed", true);
    const int32_t *c = fold(n, 0);
    ck_assert(c[0] == 9 && c[1] == 7 && c[2] == 4 && c[3] == 0);

    static const float m[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    Value *tin[1] = {K(DT_F32, 2, SHAPE(3, 3), m)};
    n = node(OP_TRIANGULAR, 1, tin);
    node_set_int(g, n, "diagonal", 1);
    static const float up[9] = {0, 2, 3, 0, 0, 6, 0, 0, 0};
    expect_f32(fold(n, 0), up, 9, 0);
    n = node(OP_TRIANGULAR, 1, tin);
    node_set_bool(g, n, "upper", false);
    node_set_int(g, n, "diagonal", -1);
    static const float low[9] = {0, 0, 0, 4, 0, 0, 7, 8, 0};
    expect_f32(fold(n, 0), low, 9, 0);

    static const uint8_t cond[3] = {1, 0, 1};
    static const float t[1] = {5}, f[3] = {1, 2, 3};
    Value *win[3] = {K(DT_U8, 1, SHAPE(3), cond), K(DT_F32, 1, SHAPE(1), t), K(DT_F32, 1, SHAPE(3), f)};
    static const float want[3] = {5, 2, 5};
    expect_f32(fold(node(OP_WHERE, 3, win), 0), want, 3, 0);
}
END_TEST

START_TEST(gather_scatter_nd) {
    static const float x[4] = {1, 2, 3, 4};
    static const int32_t idx[4] = {0, 1, 1, 0};
    Value *in[2] = {K(DT_F32, 2, SHAPE(2, 2), x), K(DT_I32, 2, SHAPE(2, 2), idx)};
    static const float want[2] = {2, 3};
    expect_f32(fold(node(OP_GATHER_ND, 2, in), 0), want, 2, 0);

    static const float z[4] = {0, 0, 0, 0}, upd[2] = {9, 8};
    static const int32_t sidx[2] = {3, 1};
    Value *sin_[3] = {K(DT_F32, 1, SHAPE(4), z), K(DT_I32, 2, SHAPE(2, 1), sidx), K(DT_F32, 1, SHAPE(2), upd)};
    static const float swant[4] = {0, 8, 0, 9};
    expect_f32(fold(node(OP_SCATTER_ND, 3, sin_), 0), swant, 4, 0);

    static const int32_t eidx[4] = {1, 0, 0, 0};
    Value *ein[3] = {K(DT_F32, 2, SHAPE(2, 2), x), K(DT_I32, 2, SHAPE(2, 2), eidx), K(DT_F32, 2, SHAPE(2, 2), z)};
    Node *n = node(OP_GATHER_ELEMENTS, 2, ein);
    static const float gwant[4] = {3, 2, 1, 2}; /* out[i][j] = x[idx[i][j]][j] */
    expect_f32(fold(n, 0), gwant, 4, 0);
}
END_TEST

START_TEST(quantization_blockwise) {
    static const uint8_t x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, zp[4] = {0, 1, 2, 3};
    static const float scale[4] = {1, 2, 3, 4};
    Value *in[3] = {K(DT_U8, 2, SHAPE(2, 4), x), K(DT_F32, 2, SHAPE(2, 2), scale), K(DT_U8, 2, SHAPE(2, 2), zp)};
    static const float want[8] = {0, 1, 2, 4, 6, 9, 12, 16};
    expect_f32(fold(node(OP_DEQUANTIZE_LINEAR, 3, in), 0), want, 8, 0);

    static const float q[4] = {2.5f, 3.5f, 1000, -1000}, one[1] = {1};
    static const int8_t z0[1] = {0};
    Value *qin[3] = {K(DT_F32, 1, SHAPE(4), q), K(DT_F32, 1, SHAPE(1), one), K(DT_I8, 1, SHAPE(1), z0)};
    const int8_t *r = fold(node(OP_QUANTIZE_LINEAR, 3, qin), 0);
    ck_assert(r[0] == 2 && r[1] == 4 && r[2] == 127 && r[3] == -128);
}
END_TEST

START_TEST(gemm_softmax) {
    static const float a[2] = {1, 2}, b[4] = {1, 2, 3, 4}, c[1] = {1};
    Value *in[3] = {K(DT_F32, 2, SHAPE(2, 1), a), K(DT_F32, 2, SHAPE(2, 2), b), K(DT_F32, 0, NULL, c)};
    Node *n = node(OP_GEMM, 3, in);
    node_set_bool(g, n, "aTranspose", true);
    node_set_bool(g, n, "bTranspose", true);
    node_set_float(g, n, "alpha", 2);
    node_set_float(g, n, "beta", 3);
    static const float want[2] = {13, 25};
    expect_f32(fold(n, 0), want, 2, 0);

    static const float x[2] = {0, 1.0986122886681098f}; /* ln 3 */
    Value *sin_[1] = {K(DT_F32, 1, SHAPE(2), x)};
    n = node(OP_SOFTMAX, 1, sin_);
    node_set_uint(g, n, "axis", 0);
    static const float sw[2] = {0.25f, 0.75f};
    expect_f32(fold(n, 0), sw, 2, 1e-7f);
}
END_TEST

START_TEST(pools_exclude_padding) {
    static const float x[4] = {1, 2, 3, 4};
    Value *in[1] = {K(DT_F32, 4, SHAPE(1, 1, 2, 2), x)};
    static const int64_t win[2] = {2, 2}, pad[4] = {1, 1, 1, 1};
    OpId ops[3] = {OP_AVERAGE_POOL2D, OP_MAX_POOL2D, OP_L2_POOL2D};
    static const float want[3][9] = {
        {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4},
        {1, 2, 2, 3, 4, 4, 3, 4, 4},
        {1, 2.2360680f, 2, 3.1622777f, 5.4772256f, 4.4721360f, 3, 5, 4},
    };
    for (int k = 0; k < 3; k++) {
        Node *n = node(ops[k], 1, in);
        node_set_ints(g, n, "windowDimensions", 2, win);
        node_set_ints(g, n, "padding", 4, pad);
        expect_f32(fold(n, 0), want[k], 9, 1e-6f);
    }
}
END_TEST

START_TEST(resample_and_pad) {
    static const float x[2] = {1, 2};
    Value *in[1] = {K(DT_F32, 4, SHAPE(1, 1, 1, 2), x)};
    static const double scales[2] = {1.0, 2.0};
    Node *n = node(OP_RESAMPLE2D, 1, in);
    node_set_floats(g, n, "scales", 2, scales);
    static const float nearest[4] = {1, 1, 2, 2};
    expect_f32(fold(n, 0), nearest, 4, 0);
    n = node(OP_RESAMPLE2D, 1, in);
    node_set_floats(g, n, "scales", 2, scales);
    node_set_string(g, n, "mode", "linear");
    static const float linear[4] = {1, 1.25f, 1.75f, 2};
    expect_f32(fold(n, 0), linear, 4, 0);

    static const float p[3] = {1, 2, 3};
    static const int64_t beg[1] = {2}, end[1] = {1};
    Value *pin[1] = {K(DT_F32, 1, SHAPE(3), p)};
    static const char *modes[3] = {"reflection", "edge", "constant"};
    static const float pw[3][6] = {{3, 2, 1, 2, 3, 2}, {1, 1, 1, 2, 3, 3}, {9, 9, 1, 2, 3, 9}};
    for (int k = 0; k < 3; k++) {
        n = node(OP_PAD, 1, pin);
        node_set_ints(g, n, "beginningPadding", 1, beg);
        node_set_ints(g, n, "endingPadding", 1, end);
        node_set_string(g, n, "mode", modes[k]);
        node_set_float(g, n, "value", 9);
        expect_f32(fold(n, 0), pw[k], 6, 0);
    }
}
END_TEST

START_TEST(recurrent_zero_weights) {
    /* With zero weights every sigmoid gate is 0.5 and every tanh candidate is 0:
     * lstm: c' = 0.5*c0 = 0.5, h' = 0.5*tanh(0.5); gru: h' = 0.5*h0. */
    static const float zero[4] = {0}, one[1] = {1};
    Value *x = K(DT_F32, 3, SHAPE(1, 1, 1), zero);
    Value *w4 = K(DT_F32, 3, SHAPE(1, 4, 1), zero), *w3 = K(DT_F32, 3, SHAPE(1, 3, 1), zero);
    Value *state = K(DT_F32, 3, SHAPE(1, 1, 1), one);
    Value *lin[8] = {x, w4, w4, NULL, NULL, NULL, NULL, state};
    Node *n = node(OP_LSTM, 8, lin);
    node_set_uint(g, n, "steps", 1);
    node_set_uint(g, n, "hiddenSize", 1);
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    ck_assert_int_eq(n->n_outputs, 2);
    ck_assert_int_eq(eval_fold_node(g, n), 1);
    ck_assert_float_eq_tol(*(const float *)n->outputs[0]->data, 0.2310585786300049, 1e-7);
    ck_assert_float_eq_tol(*(const float *)n->outputs[1]->data, 0.5, 1e-7);

    Value *gin[6] = {x, w3, w3, NULL, NULL, state};
    n = node(OP_GRU, 6, gin);
    node_set_uint(g, n, "steps", 1);
    node_set_uint(g, n, "hiddenSize", 1);
    ck_assert_float_eq_tol(*(const float *)fold(n, 0), 0.5, 1e-7);
}
END_TEST

START_TEST(unsupported_is_not_error) {
    /* A node whose operand is not constant is simply not folded. */
    int64_t s = 2;
    Dim d = dim_static(s);
    Value *x = graph_add_input(g, "x", DT_F32, 1, &d);
    Value *in[1] = {x};
    Node *n = node(OP_EXP, 1, in);
    ck_assert_int_eq(graph_insert_node(g, n), 0);
    ck_assert_int_eq(eval_fold_node(g, n), 0);
    const void *data[1];
    uint64_t nbytes[1];
    ck_assert_int_eq(eval_node(g, n, data, nbytes), 1);
    ck_assert(!diag_has_error());
}
END_TEST

int main(void) {
    Suite *s = suite_create("eval_ops");
    TCase *tc = tcase_create("ops");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, gather_clamps_and_wraps);
    tcase_add_test(tc, int_div_truncates);
    tcase_add_test(tc, arg_first_index);
    tcase_add_test(tc, round_even_and_special);
    tcase_add_test(tc, cast_rules);
    tcase_add_test(tc, int_unary_wraps);
    tcase_add_test(tc, clamp_nan_and_infinite_bounds);
    tcase_add_test(tc, cumsum_triangular_where);
    tcase_add_test(tc, gather_scatter_nd);
    tcase_add_test(tc, quantization_blockwise);
    tcase_add_test(tc, gemm_softmax);
    tcase_add_test(tc, pools_exclude_padding);
    tcase_add_test(tc, resample_and_pad);
    tcase_add_test(tc, recurrent_zero_weights);
    tcase_add_test(tc, unsupported_is_not_error);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
