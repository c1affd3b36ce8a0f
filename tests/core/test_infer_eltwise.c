/* test_infer_eltwise.c - shape inference of element-wise ops: broadcasting, dtype rules,
 * comparison/logical uint8 results, clamp, prelu, cast, softmax, where, (de)quantizeLinear, plus
 * the common operand/option validation done for every op. */
#include "core_test_util.h"

START_TEST(binary_broadcast) {
    Value *a = t_in(DT_F32, S(2, 1, 4)), *b = t_in(DT_F32, S(3, 1));
    t_ok(t_node(OP_ADD, 2, a, b), DT_F32, S(2, 3, 4));
    t_ok(t_node(OP_POW, 2, b, t_in(DT_F32, S0)), DT_F32, S(3, 1)); /* scalar */
    t_err(t_node(OP_MUL, 2, a, t_in(DT_F32, S(3))), "cannot be broadcast");
    t_err(t_node(OP_SUB, 2, a, t_in(DT_I32, S(4))), "operand 1 (x_4) has dtype int32, expected float32 (the dtype of operand 0)");
}
END_TEST

START_TEST(compare_and_logical) {
    Value *a = t_in(DT_I32, S(4, 1)), *b = t_in(DT_I32, S(5));
    t_ok(t_node(OP_GREATER, 2, a, b), DT_U8, S(4, 5));
    Value *u = t_in(DT_U8, S(2, 2));
    t_ok(t_node(OP_LOGICAL_AND, 2, u, u), DT_U8, S(2, 2));
    t_ok(t_node(OP_LOGICAL_NOT, 1, u), DT_U8, S(2, 2));
    t_err(t_node(OP_LOGICAL_OR, 2, a, a), "expected uint8");
    t_ok(t_node(OP_IS_NAN, 1, t_in(DT_F16, S(3))), DT_U8, S(3));
}
END_TEST

START_TEST(unary_dtypes) {
    t_ok(t_node(OP_RELU, 1, t_in(DT_I8, S(3))), DT_I8, S(3));
    t_ok(t_node(OP_ABS, 1, t_in(DT_I64, S(3))), DT_I64, S(3));
    t_err(t_node(OP_SQRT, 1, t_in(DT_I32, S(3))), "has dtype int32, expected float32 or float16");
    t_err(t_node(OP_NEG, 1, t_in(DT_U32, S(3))), "expected float32, float16, int32, int64 or int8");
    t_ok(t_node(OP_IDENTITY, 1, t_in(DT_U4, S(8))), DT_U4, S(8));
    Node *n = t_node(OP_ELU, 1, t_in(DT_F16, S(2, 2)));
    node_set_float(tg, n, "alpha", 0.5);
    t_ok(n, DT_F16, S(2, 2));
}
END_TEST

START_TEST(clamp_bounds) {
    Node *n = t_node(OP_CLAMP, 1, t_in(DT_F32, S(2)));
    node_set_float(tg, n, "minValue", 1);
    node_set_float(tg, n, "maxValue", 0);
    t_err(n, "minValue 1 is greater than maxValue 0");
    n = t_node(OP_CLAMP, 1, t_in(DT_U8, S(2)));
    node_set_float(tg, n, "minValue", 0);
    t_ok(n, DT_U8, S(2));
}
END_TEST

START_TEST(prelu_unidirectional) {
    Value *x = t_in(DT_F32, S(2, 4));
    t_ok(t_node(OP_PRELU, 2, x, t_in(DT_F32, S(4))), DT_F32, S(2, 4));
    t_ok(t_node(OP_PRELU, 2, x, t_in(DT_F32, S(1, 1))), DT_F32, S(2, 4));
    t_err(t_node(OP_PRELU, 2, x, t_in(DT_F32, S(2))), "slope shape [2] cannot be broadcast to input shape [2, 4]");
    t_err(t_node(OP_PRELU, 2, x, t_in(DT_F32, S(3, 2, 4))), "cannot be broadcast");
}
END_TEST

START_TEST(cast_and_softmax) {
    Node *n = t_node(OP_CAST, 1, t_in(DT_I64, S(2, 3)));
    node_set_dtype(tg, n, "to", DT_F16);
    t_ok(n, DT_F16, S(2, 3));
    n = t_node(OP_CAST, 1, t_in(DT_I64, S(2, 3)));
    t_err(n, "missing required option 'to'");
    n = t_node(OP_SOFTMAX, 1, t_in(DT_F32, S(2, 3)));
    node_set_uint(tg, n, "axis", 1);
    t_ok(n, DT_F32, S(2, 3));
    n = t_node(OP_SOFTMAX, 1, t_in(DT_F32, S(2, 3)));
    node_set_uint(tg, n, "axis", 2);
    t_err(n, "axis 2 out of range for rank 2");
    n = t_node(OP_SOFTMAX, 1, t_in(DT_F32, S(2, 3)));
    node_set_string(tg, n, "axis", "1");
    t_err(n, "option 'axis' has the wrong type");
    n = t_node(OP_SOFTMAX, 1, t_in(DT_F32, S(2, 3)));
    node_set_int(tg, n, "axis", -1);
    t_err(n, "option 'axis' has the wrong type or value");
}
END_TEST

START_TEST(where_three_way) {
    Value *c = t_in(DT_U8, S(2, 1, 1)), *a = t_in(DT_F32, S(3, 1)), *b = t_in(DT_F32, S(4));
    t_ok(t_node(OP_WHERE, 3, c, a, b), DT_F32, S(2, 3, 4));
    t_err(t_node(OP_WHERE, 3, a, a, b), "operand 0 (x_1) has dtype float32, expected uint8");
    t_err(t_node(OP_WHERE, 3, c, a, t_in(DT_F16, S(4))), "expected float32 (the dtype of operand 1)");
    t_err(t_node(OP_WHERE, 3, c, a, t_in(DT_F32, S(2, 1))), "cannot be broadcast");
}
END_TEST

START_TEST(quantization_blockwise) {
    Value *q = t_in(DT_U8, S(4, 6)), *scale = t_in(DT_F32, S(2, 3)), *zp = t_in(DT_U8, S(2, 3));
    t_ok(t_node(OP_DEQUANTIZE_LINEAR, 3, q, scale, zp), DT_F32, S(4, 6));
    t_ok(t_node(OP_DEQUANTIZE_LINEAR, 3, t_in(DT_I4, S(8, 32)), t_in(DT_F16, S(8, 1)), t_in(DT_I4, S(8, 1))), DT_F16,
         S(8, 32));
    t_err(t_node(OP_DEQUANTIZE_LINEAR, 3, q, t_in(DT_F32, S(4, 4)), t_in(DT_U8, S(4, 4))), "not blockwise broadcastable");
    t_err(t_node(OP_DEQUANTIZE_LINEAR, 3, q, scale, t_in(DT_I8, S(2, 3))), "expected uint8 (the dtype of operand 0)");
    t_err(t_node(OP_DEQUANTIZE_LINEAR, 3, q, scale, t_in(DT_U8, S(3, 2))), "operand 2");
    t_ok(t_node(OP_QUANTIZE_LINEAR, 3, t_in(DT_F32, S(4, 6)), scale, t_in(DT_I8, S(2, 3))), DT_I8, S(4, 6));
    t_err(t_node(OP_QUANTIZE_LINEAR, 3, t_in(DT_F32, S(4, 6)), scale, t_in(DT_F32, S(2, 3))), "operand 2");
}
END_TEST

START_TEST(operand_and_option_validation) {
    Value *x = t_in(DT_F32, S(2));
    t_err(t_node(OP_ADD, 1, x), "missing required operand 1 ('b')");
    t_err(t_node(OP_RELU, 2, x, x), "expected at most 1 operands, got 2");
    t_err(t_node(OP_ADD, 2, x, NULL), "missing required operand 1");
    Node *n = t_node(OP_RELU, 1, x);
    node_set_float(tg, n, "alpha", 1);
    t_err(n, "unknown option 'alpha'");
    n = t_node(OP_RELU, 1, x);
    node_set_string(tg, n, "label", "ignored");
    t_ok(n, DT_F32, S(2));
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-infer-eltwise");
    TCase *tc = t_case("eltwise");
    tcase_add_test(tc, binary_broadcast);
    tcase_add_test(tc, compare_and_logical);
    tcase_add_test(tc, unary_dtypes);
    tcase_add_test(tc, clamp_bounds);
    tcase_add_test(tc, prelu_unidirectional);
    tcase_add_test(tc, cast_and_softmax);
    tcase_add_test(tc, where_three_way);
    tcase_add_test(tc, quantization_blockwise);
    tcase_add_test(tc, operand_and_option_validation);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
