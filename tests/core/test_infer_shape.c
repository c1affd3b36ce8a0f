/* test_infer_shape.c - shape inference of data movement ops (reshape, expand, transpose, concat,
 * slice, split, tile, pad, reverse, triangular), including symbolic dims, zero dims and the
 * 2^31 element limit.  Expected shapes are worked out by hand from the WebNN rules. */
#include "core_test_util.h"

static Node *with_dims(Node *n, const char *key, int count, const int64_t *v) {
    Dim d[WN_MAX_RANK];
    for (int i = 0; i < count; i++) d[i] = dim_static(v[i]);
    node_set_dims(tg, n, key, count, d);
    return n;
}

static Node *with_ints(Node *n, const char *key, int count, const int64_t *v) {
    node_set_ints(tg, n, key, count, v);
    return n;
}

START_TEST(reshape) {
    Value *x = t_in(DT_F32, S(2, 3, 4));
    t_ok(with_dims(t_node(OP_RESHAPE, 1, x), "newShape", S(6, 4)), DT_F32, S(6, 4));
    t_ok(with_dims(t_node(OP_RESHAPE, 1, x), "newShape", S(24)), DT_F32, S(24));
    t_err(with_dims(t_node(OP_RESHAPE, 1, x), "newShape", S(5, 5)), "does not have the element count");
    t_err(with_dims(t_node(OP_RESHAPE, 1, x), "newShape", S(24, 0)), "not a valid dimension");
    t_err(t_node(OP_RESHAPE, 1, x), "missing required option 'newShape'");
    t_ok(with_dims(t_node(OP_RESHAPE, 1, t_in(DT_F32, S(1, 1))), "newShape", S0), DT_F32, S0);
}
END_TEST

START_TEST(expand) {
    Value *x = t_in(DT_I32, S(3, 1));
    t_ok(with_dims(t_node(OP_EXPAND, 1, x), "newShape", S(2, 3, 4)), DT_I32, S(2, 3, 4));
    t_err(with_dims(t_node(OP_EXPAND, 1, x), "newShape", S(4, 4)), "cannot be broadcast to newShape [4, 4]");
    t_err(with_dims(t_node(OP_EXPAND, 1, x), "newShape", S(3)), "cannot be broadcast");
}
END_TEST

START_TEST(transpose_reverse_triangular) {
    Value *x = t_in(DT_F16, S(2, 3, 4));
    t_ok(t_node(OP_TRANSPOSE, 1, x), DT_F16, S(4, 3, 2));
    t_ok(with_ints(t_node(OP_TRANSPOSE, 1, x), "permutation", S(1, 2, 0)), DT_F16, S(3, 4, 2));
    t_err(with_ints(t_node(OP_TRANSPOSE, 1, x), "permutation", S(0, 0, 1)), "permutation repeats axis 0");
    t_err(with_ints(t_node(OP_TRANSPOSE, 1, x), "permutation", S(0, 1)), "permutation has 2 entries, expected the rank 3");
    t_err(with_ints(t_node(OP_TRANSPOSE, 1, x), "permutation", S(0, 1, 3)), "permutation entry 3 out of range for rank 3");
    t_ok(with_ints(t_node(OP_REVERSE, 1, x), "axes", S(2, 0)), DT_F16, S(2, 3, 4));
    t_err(with_ints(t_node(OP_REVERSE, 1, x), "axes", S(1, 1)), "repeats axis 1");
    t_ok(t_node(OP_TRIANGULAR, 1, x), DT_F16, S(2, 3, 4));
    t_err(t_node(OP_TRIANGULAR, 1, t_in(DT_F16, S(4))), "has rank 1, expected at least 2");
}
END_TEST

START_TEST(concat) {
    Value *a = t_in(DT_F32, S(2, 3)), *b = t_in(DT_F32, S(2, 5)), *c = t_in(DT_F32, S(2, 1));
    Node *n = t_node(OP_CONCAT, 3, a, b, c);
    node_set_uint(tg, n, "axis", 1);
    t_ok(n, DT_F32, S(2, 9));
    n = t_node(OP_CONCAT, 2, a, b);
    node_set_uint(tg, n, "axis", 0);
    t_err(n, "differs from operand 0 shape [2, 3] outside axis 0");
    n = t_node(OP_CONCAT, 2, a, t_in(DT_I32, S(2, 3)));
    node_set_uint(tg, n, "axis", 1);
    t_err(n, "expected float32");
    n = t_node(OP_CONCAT, 2, a, b);
    node_set_uint(tg, n, "axis", 2);
    t_err(n, "axis 2 out of range for rank 2");
    n = t_node(OP_CONCAT, 0);
    node_set_uint(tg, n, "axis", 0);
    t_err(n, "expected at least 1 operand");
}
END_TEST

START_TEST(slice) {
    Value *x = t_in(DT_U8, S(5, 6));
    Node *n = with_dims(with_ints(t_node(OP_SLICE, 1, x), "starts", S(1, 2)), "sizes", S(3, 4));
    t_ok(n, DT_U8, S(3, 4));
    /* strides: output = ceil(size / stride): ceil(3/2) = 2, ceil(4/3) = 2 */
    n = with_ints(with_dims(with_ints(t_node(OP_SLICE, 1, x), "starts", S(1, 2)), "sizes", S(3, 4)), "strides", S(2, 3));
    t_ok(n, DT_U8, S(2, 2));
    n = with_dims(with_ints(t_node(OP_SLICE, 1, x), "starts", S(3, 0)), "sizes", S(3, 6));
    t_err(n, "starts[0] + sizes[0] = 6 exceeds dimension 5");
    n = with_dims(with_ints(t_node(OP_SLICE, 1, x), "starts", S(0)), "sizes", S(3, 6));
    t_err(n, "option 'starts' has 1 entries, expected 2");
    n = with_ints(with_dims(with_ints(t_node(OP_SLICE, 1, x), "starts", S(0, 0)), "sizes", S(1, 1)), "strides", S(0, 1));
    t_err(n, "option 'strides'[0] = 0 is out of range");
}
END_TEST

START_TEST(split) {
    Value *x = t_in(DT_F32, S(6, 4));
    Node *n = t_node(OP_SPLIT, 1, x);
    node_set_uint(tg, n, "splits", 3);
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert_int_eq(n->n_outputs, 3);
    for (int i = 0; i < 3; i++) t_out_is(n, i, DT_F32, S(2, 4));
    n = with_ints(t_node(OP_SPLIT, 1, x), "splits", S(1, 3));
    node_set_uint(tg, n, "axis", 1);
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    t_out_is(n, 0, DT_F32, S(6, 1));
    t_out_is(n, 1, DT_F32, S(6, 3));
    t_err(with_ints(t_node(OP_SPLIT, 1, x), "splits", S(1, 2)), "splits sum to 3, expected the axis dimension 6");
    n = t_node(OP_SPLIT, 1, x);
    node_set_uint(tg, n, "splits", 4);
    t_err(n, "axis dimension 6 is not divisible into 4 splits");
    n = t_node(OP_SPLIT, 1, x);
    node_set_uint(tg, n, "splits", 0);
    t_err(n, "splits gives 0 outputs");
}
END_TEST

START_TEST(tile_and_pad) {
    Value *x = t_in(DT_I32, S(2, 3));
    t_ok(with_ints(t_node(OP_TILE, 1, x), "repetitions", S(2, 1)), DT_I32, S(4, 3));
    t_err(with_ints(t_node(OP_TILE, 1, x), "repetitions", S(2)), "has 1 entries, expected 2");
    Node *n = with_ints(with_ints(t_node(OP_PAD, 1, x), "beginningPadding", S(1, 0)), "endingPadding", S(0, 2));
    t_ok(n, DT_I32, S(3, 5));
    n = with_ints(with_ints(t_node(OP_PAD, 1, x), "beginningPadding", S(0, 3)), "endingPadding", S(0, 0));
    node_set_string(tg, n, "mode", "reflection");
    t_err(n, "reflection padding at axis 1 must be smaller than the dimension 3");
    n = with_ints(with_ints(t_node(OP_PAD, 1, x), "beginningPadding", S(0, 0)), "endingPadding", S(0, 0));
    node_set_string(tg, n, "mode", "mirror");
    t_err(n, "option 'mode' is \"mirror\", expected one of \"constant\", \"edge\", \"reflection\"");
}
END_TEST

START_TEST(limits) {
    /* 65536 * 65536 = 2^32 elements: over the WebNN limit of 2^31 - 1. */
    Value *x = t_in(DT_U8, S(65536, 2));
    t_err(with_ints(t_node(OP_TILE, 1, x), "repetitions", S(1, 32768)), "has 2^31 or more elements");
    t_ok(with_ints(t_node(OP_TILE, 1, x), "repetitions", S(1, 16383)), DT_U8, S(65536, 32766));
    /* A single dim of 2^31 is not valid either. */
    t_err(with_ints(t_node(OP_TILE, 1, t_in(DT_U8, S(2))), "repetitions", S(1073741824)), "is not below 2^31");
}
END_TEST

START_TEST(symbolic) {
    Dim seq = dim_symbol(tg, "seq", 128), past = dim_symbol(tg, "past", 64), other = dim_symbol(tg, "other", 16);
    Value *x = t_in_dims(DT_F32, 3, (Dim[]){dim_static(1), seq, dim_static(8)});
    /* [1, seq, 8] -> [seq, 2, 4]: same symbols, static parts 8 == 8 */
    Node *n = t_node(OP_RESHAPE, 1, x);
    node_set_dims(tg, n, "newShape", 3, (Dim[]){seq, dim_static(2), dim_static(4)});
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert(dim_equal(n->outputs[0]->shape[0], seq));
    n = t_node(OP_RESHAPE, 1, x);
    node_set_dims(tg, n, "newShape", 2, (Dim[]){seq, dim_static(16)});
    t_err(n, "does not have the element count");
    n = t_node(OP_RESHAPE, 1, x); /* different symbols: cannot be decided, accepted */
    node_set_dims(tg, n, "newShape", 2, (Dim[]){other, dim_static(8)});
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    /* concat along a symbolic axis sums the dims */
    Value *kv = t_in_dims(DT_F32, 3, (Dim[]){dim_static(1), past, dim_static(8)});
    n = t_node(OP_CONCAT, 2, kv, x);
    node_set_uint(tg, n, "axis", 1);
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert(dim_equal(n->outputs[0]->shape[1], dim_add(tg, past, seq)));
    ck_assert_int_eq(n->outputs[0]->shape[1].v, 192);
    /* slice: static window within the symbol's bound, and beyond it */
    n = with_dims(with_ints(t_node(OP_SLICE, 1, x), "starts", S(0, 0, 0)), "sizes", S(1, 100, 8));
    t_ok(n, DT_F32, S(1, 100, 8));
    n = with_dims(with_ints(t_node(OP_SLICE, 1, x), "starts", S(0, 100, 0)), "sizes", S(1, 100, 8));
    t_err(n, "exceeds dimension seq");
    /* split along a symbolic axis into parts is refused */
    n = t_node(OP_SPLIT, 1, x);
    node_set_uint(tg, n, "splits", 2);
    node_set_uint(tg, n, "axis", 1);
    t_err(n, "dynamic dim not supported for split axis");
    /* pad and tile keep symbols in expressions */
    n = with_ints(with_ints(t_node(OP_PAD, 1, x), "beginningPadding", S(0, 2, 0)), "endingPadding", S(0, 1, 0));
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert(dim_equal(n->outputs[0]->shape[1], dim_add(tg, seq, dim_static(3))));
    n = with_ints(t_node(OP_TILE, 1, x), "repetitions", S(1, 2, 1));
    ck_assert_int_eq(graph_insert_node(tg, n), 0);
    ck_assert(dim_equal(n->outputs[0]->shape[1], dim_mul(tg, seq, dim_static(2))));
}
END_TEST

START_TEST(symbolic_broadcast) {
    Dim seq = dim_symbol(tg, "seq", 128), other = dim_symbol(tg, "other", 128);
    Dim a[3] = {dim_static(1), seq, dim_static(8)}, b[2] = {dim_static(1), dim_static(8)}, c[1] = {other};
    Dim out[WN_MAX_RANK];
    int r = -1;
    ck_assert(infer_broadcast(tg, 3, a, 2, b, &r, out));
    ck_assert_int_eq(r, 3);
    ck_assert(dim_equal(out[1], seq) && dim_equal(out[2], dim_static(8)));
    ck_assert(infer_broadcast(tg, 3, a, 3, a, &r, out));
    ck_assert(!infer_broadcast(tg, 3, a, 1, c, &r, out)); /* 8 vs other */
    Dim d[2] = {other, dim_static(1)};
    ck_assert(!infer_broadcast(tg, 3, a, 2, d, &r, out)); /* seq vs other */
    Dim e[2] = {seq, dim_static(1)};
    ck_assert(infer_broadcast(tg, 3, a, 2, e, &r, out));
    Value *x = t_in_dims(DT_F32, 3, a), *y = t_in_dims(DT_F32, 2, d);
    t_err(t_node(OP_ADD, 2, x, y), "shape [other, 1] cannot be broadcast with [1, seq, 8]");
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-infer-shape");
    TCase *tc = t_case("shape");
    tcase_add_test(tc, reshape);
    tcase_add_test(tc, expand);
    tcase_add_test(tc, transpose_reverse_triangular);
    tcase_add_test(tc, concat);
    tcase_add_test(tc, slice);
    tcase_add_test(tc, split);
    tcase_add_test(tc, tile_and_pad);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, symbolic);
    tcase_add_test(tc, symbolic_broadcast);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
