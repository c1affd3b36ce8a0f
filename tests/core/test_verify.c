/* test_verify.c - graph_verify: accepts a well-formed graph and catches forward references,
 * dangling operands, wrong stored shapes, oversized element counts, bad constants, duplicate
 * names, double assignment, missing outputs and non-exportable dims. */
#include <string.h>

#include "core_test_util.h"

static Value *x, *a, *b; /* x -> relu -> a -> sigmoid -> b (output) */

static void build(void) {
    x = t_in(DT_F32, S(2, 3));
    a = graph_finish(tg, t_node(OP_RELU, 1, x));
    b = graph_finish(tg, t_node(OP_SIGMOID, 1, a));
    ck_assert(a && b);
    graph_add_output(tg, b);
}

static void verify_fails(unsigned flags, const char *needle) {
    ck_assert_int_eq(graph_verify(tg, flags), -1);
    ck_assert_msg(strstr(diag_message(), needle) != NULL, "diagnostic '%s' lacks '%s'", diag_message(), needle);
    diag_clear();
}

START_TEST(valid_graph) {
    build();
    ck_assert_msg(graph_verify(tg, VERIFY_SPEC_ONLY | VERIFY_EXPORTABLE) == 0, "%s", diag_message());
}
END_TEST

START_TEST(needs_an_output) {
    t_in(DT_F32, S(2));
    verify_fails(0, "has no outputs");
}
END_TEST

START_TEST(forward_reference) {
    build();
    Node *n0 = tg->nodes[0], *n1 = tg->nodes[1];
    tg->nodes[0] = n1; /* sigmoid now runs before relu defines its operand */
    tg->nodes[1] = n0;
    n1->index = 0;
    n0->index = 1;
    verify_fails(0, "operand 0 (relu_1) is used before it is defined");
}
END_TEST

START_TEST(dangling_operand) {
    build();
    Graph *other = graph_new("other");
    Dim d[2] = {dim_static(2), dim_static(3)};
    Value *foreign = graph_add_input(other, "y", DT_F32, 2, d);
    tg->nodes[1]->inputs[0] = foreign;
    verify_fails(0, "operand 0 is not a value of the graph (dangling)");
    graph_free(other);
}
END_TEST

START_TEST(wrong_stored_shape) {
    build();
    b->shape[1] = dim_static(4);
    verify_fails(0, "output 0 (sigmoid_2) is stored as float32[2, 4], shape inference gives float32[2, 3]");
}
END_TEST

START_TEST(wrong_stored_dtype) {
    build();
    a->dtype = DT_F16; /* relu re-infers float32; sigmoid would still accept float16 */
    verify_fails(0, "stored as float16[2, 3]");
}
END_TEST

START_TEST(oversized_element_count) {
    Value *big = t_in(DT_U8, S(65536, 65536)); /* 2^32 elements */
    graph_add_output(tg, big);
    verify_fails(0, "element count is 2^31 or more");
}
END_TEST

START_TEST(zero_dim) {
    Value *z = t_in(DT_F32, S(2, 0));
    graph_add_output(tg, z);
    verify_fails(0, "dimension 1 is invalid (0;");
}
END_TEST

START_TEST(constant_bytes) {
    build();
    static const float data[6] = {0};
    graph_add_const(tg, "w", DT_F32, S(2, 3), data, 24);
    ck_assert_msg(graph_verify(tg, 0) == 0, "%s", diag_message());
    graph_add_const(tg, "w4", DT_U4, S(3), data, 2); /* 3 nibbles = 2 bytes */
    ck_assert_msg(graph_verify(tg, 0) == 0, "%s", diag_message());
    graph_add_const(tg, "bad", DT_F32, S(2, 3), data, 20);
    verify_fails(0, "constant holds 20 bytes, expected 24");
}
END_TEST

START_TEST(duplicate_names) {
    build();
    b->name = a->name;
    verify_fails(0, "value name \"relu_1\" is used more than once");
}
END_TEST

START_TEST(double_assignment) {
    build();
    Node *n1 = tg->nodes[1];
    n1->outputs[0] = a; /* sigmoid claims relu's output */
    verify_fails(0, "does not name this node as its producer");
    n1->outputs[0] = b;
    a->flags |= VF_INPUT; /* a node output that is also an input */
    verify_fails(0, "an input or constant cannot also be a node output");
}
END_TEST

START_TEST(exportable_dims) {
    Dim seq = dim_symbol(tg, "seq", 64), past = dim_symbol(tg, "past", 64);
    Value *k = t_in_dims(DT_F32, 2, (Dim[]){past, dim_static(4)}), *q = t_in_dims(DT_F32, 2, (Dim[]){seq, dim_static(4)});
    Node *n = t_node(OP_CONCAT, 2, k, q);
    node_set_uint(tg, n, "axis", 0);
    Value *kv = graph_finish(tg, n);
    ck_assert(kv);
    graph_add_output(tg, kv);
    ck_assert_msg(graph_verify(tg, 0) == 0, "%s", diag_message());
    verify_fails(VERIFY_EXPORTABLE, "dimension (seq+past) is not expressible in webnn-graph JSON");
}
END_TEST

START_TEST(spec_only) {
    build();
    ck_assert_int_eq(graph_verify(tg, VERIFY_SPEC_ONLY), 0);
    /* Every op without OPF_SPEC must be refused; exercise whichever the table has. */
    for (int op = 0; op < OP_COUNT; op++) {
        if (op_info((OpId)op)->flags & OPF_SPEC) continue;
        tg->nodes[0]->op = (OpId)op;
        verify_fails(VERIFY_SPEC_ONLY, "is not a WebNN spec op");
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-verify");
    TCase *tc = t_case("verify");
    tcase_add_test(tc, valid_graph);
    tcase_add_test(tc, needs_an_output);
    tcase_add_test(tc, forward_reference);
    tcase_add_test(tc, dangling_operand);
    tcase_add_test(tc, wrong_stored_shape);
    tcase_add_test(tc, wrong_stored_dtype);
    tcase_add_test(tc, oversized_element_count);
    tcase_add_test(tc, zero_dim);
    tcase_add_test(tc, constant_bytes);
    tcase_add_test(tc, duplicate_names);
    tcase_add_test(tc, double_assignment);
    tcase_add_test(tc, exportable_dims);
    tcase_add_test(tc, spec_only);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
