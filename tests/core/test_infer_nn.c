/* test_infer_nn.c - shape inference of reductions, argMin/argMax, cumulativeSum, the
 * normalizations, matmul/gemm, gather/scatter family and the recurrent ops. */
#include "core_test_util.h"

static void ints(Node *n, const char *key, int count, const int64_t *v) { node_set_ints(tg, n, key, count, v); }

START_TEST(reductions) {
    Value *x = t_in(DT_F32, S(2, 3, 4));
    Node *n = t_node(OP_REDUCE_SUM, 1, x);
    ints(n, "axes", S(1));
    t_ok(n, DT_F32, S(2, 4));
    n = t_node(OP_REDUCE_MAX, 1, x);
    ints(n, "axes", S(2, 0));
    node_set_bool(tg, n, "keepDimensions", true);
    t_ok(n, DT_F32, S(1, 3, 1));
    t_ok(t_node(OP_REDUCE_MEAN, 1, x), DT_F32, S0); /* default: all axes */
    n = t_node(OP_REDUCE_L2, 1, x);
    ints(n, "axes", 0, NULL); /* [] reduces nothing */
    t_ok(n, DT_F32, S(2, 3, 4));
    n = t_node(OP_REDUCE_SUM, 1, x);
    ints(n, "axes", S(1, 1));
    t_err(n, "repeats axis 1");
    n = t_node(OP_REDUCE_SUM, 1, x);
    ints(n, "axes", S(3));
    t_err(n, "axis 3 out of range for rank 3");
    t_err(t_node(OP_REDUCE_MEAN, 1, t_in(DT_I32, S(2))), "expected float32 or float16");
    t_ok(t_node(OP_REDUCE_PRODUCT, 1, t_in(DT_U64, S(2))), DT_U64, S0);
    /* a symbolic reduced axis disappears; kept axes stay symbolic */
    Dim seq = dim_symbol(tg, "seq", 32);
    n = t_node(OP_REDUCE_SUM, 1, t_in_dims(DT_F32, 2, (Dim[]){seq, dim_static(4)}));
    ints(n, "axes", S(1));
    node_set_bool(tg, n, "keepDimensions", true);
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert(dim_equal(n->outputs[0]->shape[0], seq) && dim_equal(n->outputs[0]->shape[1], dim_static(1)));
}
END_TEST

START_TEST(arg_and_cumsum) {
    Value *x = t_in(DT_F16, S(2, 3, 4));
    Node *n = t_node(OP_ARG_MAX, 1, x);
    node_set_uint(tg, n, "axis", 1);
    t_ok(n, DT_I32, S(2, 4));
    n = t_node(OP_ARG_MIN, 1, x);
    node_set_uint(tg, n, "axis", 2);
    node_set_bool(tg, n, "keepDimensions", true);
    node_set_dtype(tg, n, "outputDataType", DT_I64);
    t_ok(n, DT_I64, S(2, 3, 1));
    n = t_node(OP_ARG_MIN, 1, x);
    node_set_uint(tg, n, "axis", 0);
    node_set_dtype(tg, n, "outputDataType", DT_U32);
    t_err(n, "outputDataType is uint32, expected int32 or int64");
    n = t_node(OP_ARG_MAX, 1, x);
    node_set_uint(tg, n, "axis", 3);
    t_err(n, "axis 3 out of range for rank 3");
    n = t_node(OP_CUMULATIVE_SUM, 1, x);
    node_set_uint(tg, n, "axis", 2);
    t_ok(n, DT_F16, S(2, 3, 4));
    n = t_node(OP_CUMULATIVE_SUM, 1, t_in(DT_U8, S(3)));
    node_set_uint(tg, n, "axis", 0);
    t_err(n, "has dtype uint8");
}
END_TEST

START_TEST(normalizations) {
    Value *x = t_in(DT_F32, S(2, 3, 4));
    t_ok(t_node(OP_LAYER_NORMALIZATION, 3, x, t_in(DT_F32, S(3, 4)), t_in(DT_F32, S(3, 4))), DT_F32, S(2, 3, 4));
    Node *n = t_node(OP_LAYER_NORMALIZATION, 2, x, t_in(DT_F32, S(4)));
    ints(n, "axes", S(2));
    t_ok(n, DT_F32, S(2, 3, 4));
    n = t_node(OP_LAYER_NORMALIZATION, 2, x, t_in(DT_F32, S(4, 3)));
    ints(n, "axes", S(2, 1)); /* scale follows the axes order */
    t_ok(n, DT_F32, S(2, 3, 4));
    n = t_node(OP_LAYER_NORMALIZATION, 2, x, t_in(DT_F32, S(3)));
    ints(n, "axes", S(2));
    t_err(n, "operand 1 (x_5) has shape [3], expected [4]");
    Value *img = t_in(DT_F16, S(2, 3, 4, 4));
    t_ok(t_node(OP_BATCH_NORMALIZATION, 3, img, t_in(DT_F16, S(3)), t_in(DT_F16, S(3))), DT_F16, S(2, 3, 4, 4));
    n = t_node(OP_BATCH_NORMALIZATION, 3, img, t_in(DT_F16, S(4)), t_in(DT_F16, S(4)));
    node_set_uint(tg, n, "axis", 3);
    t_ok(n, DT_F16, S(2, 3, 4, 4));
    t_err(t_node(OP_BATCH_NORMALIZATION, 3, img, t_in(DT_F16, S(4)), t_in(DT_F16, S(3))), "expected [3]");
    t_err(t_node(OP_BATCH_NORMALIZATION, 3, img, t_in(DT_F32, S(3)), t_in(DT_F16, S(3))), "expected float16");
    n = t_node(OP_INSTANCE_NORMALIZATION, 3, t_in(DT_F32, S(1, 4, 4, 3)), t_in(DT_F32, S(3)), t_in(DT_F32, S(3)));
    node_set_string(tg, n, "layout", "nhwc");
    t_ok(n, DT_F32, S(1, 4, 4, 3));
    t_err(t_node(OP_INSTANCE_NORMALIZATION, 2, t_in(DT_F32, S(1, 4, 4, 3)), t_in(DT_F32, S(3))), "expected [4]");
}
END_TEST

START_TEST(matmul_gemm) {
    t_ok(t_node(OP_MATMUL, 2, t_in(DT_F32, S(2, 1, 3, 4)), t_in(DT_F32, S(5, 4, 6))), DT_F32, S(2, 5, 3, 6));
    t_ok(t_node(OP_MATMUL, 2, t_in(DT_F16, S(3, 4)), t_in(DT_F16, S(4, 2))), DT_F16, S(3, 2));
    t_err(t_node(OP_MATMUL, 2, t_in(DT_F32, S(3, 4)), t_in(DT_F32, S(5, 2))), "inner dimensions differ: 4 (operand 0) vs 5");
    t_err(t_node(OP_MATMUL, 2, t_in(DT_F32, S(4)), t_in(DT_F32, S(4, 2))), "has rank 1, expected at least 2");
    t_err(t_node(OP_MATMUL, 2, t_in(DT_F32, S(2, 3, 4)), t_in(DT_F32, S(3, 4, 2))), "batch dimensions [2] and [3]");
    Dim seq = dim_symbol(tg, "seq", 64);
    Node *n = t_node(OP_MATMUL, 2, t_in_dims(DT_F32, 2, (Dim[]){seq, dim_static(4)}), t_in(DT_F32, S(4, 8)));
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert(dim_equal(n->outputs[0]->shape[0], seq) && dim_equal(n->outputs[0]->shape[1], dim_static(8)));

    Value *a = t_in(DT_F32, S(3, 4)), *b = t_in(DT_F32, S(5, 4));
    n = t_node(OP_GEMM, 2, a, b);
    node_set_bool(tg, n, "bTranspose", true);
    t_ok(n, DT_F32, S(3, 5));
    n = t_node(OP_GEMM, 3, a, b, t_in(DT_F32, S(5)));
    node_set_bool(tg, n, "bTranspose", true);
    t_ok(n, DT_F32, S(3, 5));
    n = t_node(OP_GEMM, 3, a, b, t_in(DT_F32, S(3)));
    node_set_bool(tg, n, "bTranspose", true);
    t_err(n, "shape [3] cannot be broadcast to [3, 5]");
    t_err(t_node(OP_GEMM, 2, a, b), "inner dimensions differ");
    n = t_node(OP_GEMM, 2, t_in(DT_F32, S(4, 3)), t_in(DT_F32, S(4, 5)));
    node_set_bool(tg, n, "aTranspose", true);
    t_ok(n, DT_F32, S(3, 5));
}
END_TEST

START_TEST(gather_scatter) {
    Value *x = t_in(DT_F32, S(4, 5, 6));
    Node *n = t_node(OP_GATHER, 2, x, t_in(DT_I32, S(2, 3)));
    node_set_uint(tg, n, "axis", 1); /* [4] + [2,3] + [6] */
    t_ok(n, DT_F32, S(4, 2, 3, 6));
    t_ok(t_node(OP_GATHER, 2, x, t_in(DT_I64, S0)), DT_F32, S(5, 6)); /* scalar index on axis 0 */
    t_err(t_node(OP_GATHER, 2, x, t_in(DT_F32, S(2))), "operand 1 (x_3) has dtype float32, expected int32, uint32 or int64");
    n = t_node(OP_GATHER, 2, x, t_in(DT_I32, S(2)));
    node_set_uint(tg, n, "axis", 3);
    t_err(n, "axis 3 out of range for rank 3");
    t_err(t_node(OP_GATHER, 2, t_in(DT_F32, S(2, 2, 2, 2, 2)), t_in(DT_I32, S(2, 2, 2, 2, 2))), "output rank 9 exceeds");
    /* gatherND: indices [2,3,2] select 2 leading dims: [2,3] + [6] */
    t_ok(t_node(OP_GATHER_ND, 2, x, t_in(DT_I32, S(2, 3, 2))), DT_F32, S(2, 3, 6));
    t_err(t_node(OP_GATHER_ND, 2, x, t_in(DT_I32, S(2, 4))), "last indices dimension 4 must be 1..3");
    Value *m = t_in(DT_I32, S(3, 4));
    t_ok(t_node(OP_GATHER_ELEMENTS, 2, m, t_in(DT_U32, S(2, 4))), DT_I32, S(2, 4));
    t_err(t_node(OP_GATHER_ELEMENTS, 2, m, t_in(DT_U32, S(2, 3))), "must match the input shape [3, 4] except at axis 0");
    t_ok(t_node(OP_SCATTER_ELEMENTS, 3, m, t_in(DT_I32, S(1, 4)), t_in(DT_I32, S(1, 4))), DT_I32, S(3, 4));
    t_err(t_node(OP_SCATTER_ELEMENTS, 3, m, t_in(DT_I32, S(1, 4)), t_in(DT_I32, S(2, 4))), "expected [1, 4]");
    /* scatterND: updates = indices[:-1] + input[k:] = [3] + [5] */
    Value *y = t_in(DT_F32, S(4, 5));
    t_ok(t_node(OP_SCATTER_ND, 3, y, t_in(DT_I64, S(3, 1)), t_in(DT_F32, S(3, 5))), DT_F32, S(4, 5));
    t_err(t_node(OP_SCATTER_ND, 3, y, t_in(DT_I64, S(3, 1)), t_in(DT_F32, S(3, 4))), "expected [3, 5]");
    t_err(t_node(OP_SCATTER_ND, 3, y, t_in(DT_I64, S(3, 1)), t_in(DT_F16, S(3, 5))), "expected float32");
}
END_TEST

START_TEST(recurrent) {
    /* gru: steps 2, batch 3, input 4, hidden 5 -> 3*5 = 15 gate rows */
    Value *x = t_in(DT_F32, S(2, 3, 4));
    Value *w = t_in(DT_F32, S(1, 15, 4)), *r = t_in(DT_F32, S(1, 15, 5));
    Node *n = t_node(OP_GRU, 3, x, w, r);
    node_set_uint(tg, n, "steps", 2);
    node_set_uint(tg, n, "hiddenSize", 5);
    t_ok(n, DT_F32, S(1, 3, 5));
    ck_assert_int_eq(n->n_outputs, 1);
    n = t_node(OP_GRU, 4, x, w, r, t_in(DT_F32, S(1, 15)));
    node_set_uint(tg, n, "steps", 2);
    node_set_uint(tg, n, "hiddenSize", 5);
    node_set_bool(tg, n, "returnSequence", true);
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert_int_eq(n->n_outputs, 2);
    t_out_is(n, 1, DT_F32, S(2, 1, 3, 5));
    n = t_node(OP_GRU, 3, x, w, r);
    node_set_uint(tg, n, "steps", 2);
    node_set_uint(tg, n, "hiddenSize", 5);
    node_set_string(tg, n, "direction", "both");
    t_err(n, "operand 1 (x_1) has shape [1, 15, 4], expected [2, 15, 4]");
    n = t_node(OP_GRU, 3, x, w, r);
    node_set_uint(tg, n, "steps", 3);
    node_set_uint(tg, n, "hiddenSize", 5);
    t_err(n, "steps 3 differs from the input's first dimension 2");
    n = t_node(OP_GRU, 3, x, w, r);
    node_set_uint(tg, n, "steps", 2);
    t_err(n, "missing required option 'hiddenSize'");
    /* lstm, both directions: weight [2, 4*5, 4]; outputs h, c and the sequence */
    Value *w2 = t_in(DT_F32, S(2, 20, 4)), *r2 = t_in(DT_F32, S(2, 20, 5));
    n = t_node(OP_LSTM, 8, x, w2, r2, NULL, NULL, t_in(DT_F32, S(2, 15)), t_in(DT_F32, S(2, 3, 5)), NULL);
    node_set_uint(tg, n, "steps", 2);
    node_set_uint(tg, n, "hiddenSize", 5);
    node_set_string(tg, n, "direction", "both");
    node_set_bool(tg, n, "returnSequence", true);
    const char *acts[] = {"sigmoid", "relu", "tanh"};
    node_set_strings(tg, n, "activations", 3, acts);
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert_int_eq(n->n_outputs, 3);
    t_out_is(n, 0, DT_F32, S(2, 3, 5));
    t_out_is(n, 1, DT_F32, S(2, 3, 5));
    t_out_is(n, 2, DT_F32, S(2, 2, 3, 5));
    n = t_node(OP_LSTM, 3, x, w2, r2);
    node_set_uint(tg, n, "steps", 2);
    node_set_uint(tg, n, "hiddenSize", 5);
    node_set_string(tg, n, "direction", "both");
    node_set_strings(tg, n, "activations", 2, acts);
    t_err(n, "activations has 2 entries, expected 3");
    /* cells */
    Value *cx = t_in(DT_F16, S(3, 4)), *h = t_in(DT_F16, S(3, 5));
    n = t_node(OP_GRU_CELL, 4, cx, t_in(DT_F16, S(15, 4)), t_in(DT_F16, S(15, 5)), h);
    node_set_uint(tg, n, "hiddenSize", 5);
    t_ok(n, DT_F16, S(3, 5));
    n = t_node(OP_GRU_CELL, 4, cx, t_in(DT_F16, S(15, 4)), t_in(DT_F16, S(15, 5)), h);
    t_err(n, "missing required option 'hiddenSize'");
    n = t_node(OP_LSTM_CELL, 5, cx, t_in(DT_F16, S(20, 4)), t_in(DT_F16, S(20, 5)), h, h);
    node_set_uint(tg, n, "hiddenSize", 5);
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert_int_eq(n->n_outputs, 2);
    t_out_is(n, 1, DT_F16, S(3, 5));
    n = t_node(OP_LSTM_CELL, 5, cx, t_in(DT_F16, S(20, 4)), t_in(DT_F16, S(20, 5)), h, t_in(DT_F16, S(3, 4)));
    node_set_uint(tg, n, "hiddenSize", 5);
    t_err(n, "expected [3, 5]");
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-infer-nn");
    TCase *tc = t_case("nn");
    tcase_add_test(tc, reductions);
    tcase_add_test(tc, arg_and_cumsum);
    tcase_add_test(tc, normalizations);
    tcase_add_test(tc, matmul_gemm);
    tcase_add_test(tc, gather_scatter);
    tcase_add_test(tc, recurrent);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
