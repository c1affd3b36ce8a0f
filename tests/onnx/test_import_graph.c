/* test_import_graph.c - onnx_import at graph level: inputs and symbolic dims (--fix/--dim and
 * the dynamic-dim error), initializers and Constant nodes, topological sorting, cycle and
 * dangling-input detection, graph outputs, the unsupported-op message, constant folding of
 * Shape -> Gather -> Concat chains, and the "needs constant inputs"/zero-size errors. */
#include <check.h>
#include <string.h>

#include "core.h"
#include "test_import_builder.h"
#include "test_util.h"

static MB *b;
static Graph *g;

static void setup(void) {
    b = mb_new(17);
    g = NULL;
}

static void teardown(void) {
    graph_free(g);
    mb_free(b);
}

/* Imports and asserts failure with a message containing `needle`. */
static void expect_fail(const ImportOptions *opt, const char *needle) { mb_import_fails(b, opt, needle); }
static void expect_ok(const ImportOptions *opt) { g = mb_import_ok(b, opt); }

START_TEST(static_input_and_output_names) {
    mb_input(b, "x", TF32, "2,3");
    mb_node(b, "Relu", "act", "x", "y");
    mb_output(b, "y");
    expect_ok(NULL);
    ck_assert_int_eq(g->n_inputs, 1);
    ck_assert_str_eq(type_of(g, g->inputs[0]), "float32[2, 3]");
    ck_assert_str_eq(g->inputs[0]->origin, "x");
    ck_assert_int_eq(g->n_outputs, 1);
    Value *y = g->outputs[0];
    ck_assert_str_eq(y->name, "y");
    ck_assert_str_eq(y->origin, "y");
    ck_assert_str_eq(type_of(g, y), "float32[2, 3]");
    ck_assert_int_eq(graph_node_count(g), 1);
    ck_assert_ptr_nonnull(y->producer);
    ck_assert_int_eq(y->producer->op, OP_RELU);
    ck_assert_str_eq(y->producer->origin, "act");
}
END_TEST

START_TEST(bool_input_is_uint8) {
    mb_input(b, "m", TBOOL, "4");
    mb_node(b, "Not", "n", "m", "y");
    mb_output(b, "y");
    expect_ok(NULL);
    ck_assert_str_eq(type_of(g, g->inputs[0]), "uint8[4]");
    ck_assert_int_eq(count_op(g, OP_LOGICAL_NOT), 1);
}
END_TEST

START_TEST(fix_makes_dim_static) {
    mb_input(b, "ids", TI64, "1,sequence_length");
    mb_node(b, "Identity", "i", "ids", "y");
    mb_output(b, "y");
    DimSetting fix = {"sequence_length", 8};
    ImportOptions o = {.fix = &fix, .n_fix = 1};
    expect_ok(&o);
    ck_assert_str_eq(type_of(g, g->inputs[0]), "int64[1, 8]");
}
END_TEST

START_TEST(dim_makes_bounded_symbol) {
    mb_input(b, "x", TF32, "1,seq");
    mb_node(b, "Relu", "r", "x", "y");
    mb_output(b, "y");
    DimSetting bound = {"seq", 64};
    ImportOptions o = {.bound = &bound, .n_bound = 1};
    expect_ok(&o);
    Dim d = g->inputs[0]->shape[1];
    ck_assert(!dim_is_static(d));
    ck_assert_str_eq(dim_symbol_name(g, d), "seq");
    ck_assert_int_eq(dim_max(d), 64);
    ck_assert_str_eq(dim_symbol_name(g, g->outputs[0]->shape[1]), "seq");
}
END_TEST

START_TEST(dynamic_dim_needs_setting) {
    mb_input(b, "x", TF32, "1,sequence_length");
    mb_node(b, "Relu", "r", "x", "y");
    mb_output(b, "y");
    expect_fail(NULL, "input x: dimension 'sequence_length' is dynamic; use --fix sequence_length=N or --dim "
                      "sequence_length=MAX");
}
END_TEST

START_TEST(unknown_dim_names_input) {
    mb_input(b, "pixels", TF32, "1,?");
    mb_node(b, "Relu", "r", "pixels", "y");
    mb_output(b, "y");
    expect_fail(NULL, "input pixels: dimension 1");
}
END_TEST

START_TEST(initializer_becomes_constant) {
    static const float w[2] = {1, 2};
    mb_input(b, "x", TF32, "3,2");
    mb_init_f32(b, "w", "2", 2, w);
    mb_input(b, "w", TF32, "2"); /* listed as input too (IR < 4): still a constant */
    mb_node(b, "Add", "add", "x,w", "y");
    mb_output(b, "y");
    expect_ok(NULL);
    ck_assert_int_eq(g->n_inputs, 1);
    Node *add = nth_op(g, OP_ADD, 0);
    ck_assert_ptr_nonnull(add);
    Value *c = add->inputs[1];
    ck_assert(c->flags & VF_CONST);
    ck_assert_str_eq(c->origin, "w");
    ck_assert_uint_eq(c->nbytes, 8);
    float got[2];
    memcpy(got, c->data, 8);
    ck_assert(got[0] == 1 && got[1] == 2);
}
END_TEST

START_TEST(constant_node_value_ints) {
    static const int64_t shape[2] = {3, 2};
    mb_input(b, "x", TF32, "2,3");
    Onnx__NodeProto *k = mb_node(b, "Constant", "k", "", "shape");
    mb_attr_ints(b, k, "value_ints", 2, shape);
    mb_node(b, "Reshape", "r", "x,shape", "y");
    mb_output(b, "y");
    expect_ok(NULL);
    ck_assert_int_eq(graph_node_count(g), 1);
    Node *r = nth_op(g, OP_RESHAPE, 0);
    ck_assert_str_eq(dims_of(g, r, "newShape"), "3,2");
    ck_assert_str_eq(type_of(g, g->outputs[0]), "float32[3, 2]");
}
END_TEST

START_TEST(constant_node_tensor_and_sparse) {
    static const float v[3] = {1, 2, 3};
    mb_input(b, "x", TF32, "3");
    Onnx__NodeProto *k = mb_node(b, "Constant", "k", "", "c");
    mb_attr_tensor(b, k, "value", TF32, "3", v, sizeof v);
    mb_node(b, "Mul", "m", "x,c", "y");
    mb_output(b, "y");
    expect_ok(NULL);
    ck_assert_int_eq(count_op(g, OP_MUL), 1);
    ck_assert(nth_op(g, OP_MUL, 0)->inputs[1]->flags & VF_CONST);
    graph_free(g);
    g = NULL;
    mb_free(b);
    b = mb_new(17);
    mb_input(b, "x", TF32, "3");
    Onnx__NodeProto *s = mb_node(b, "Constant", "sp", "", "c");
    mb_attr_i(b, s, "sparse_value", 0); /* any sparse_value is refused */
    mb_node(b, "Mul", "m", "x,c", "y");
    mb_output(b, "y");
    expect_fail(NULL, "sparse");
}
END_TEST

START_TEST(unsupported_op_message) {
    mb_input(b, "x", TF32, "3");
    mb_node(b, "Foo", "weird", "x", "y");
    mb_output(b, "y");
    expect_fail(NULL, "unsupported op Foo (ai.onnx, opset 17) at node weird");
}
END_TEST

START_TEST(unsupported_contrib_op_message) {
    mb_opset(b, "com.microsoft", 1);
    mb_input(b, "x", TF32, "1,seq"); /* reported before the dynamic input */
    Onnx__NodeProto *n = mb_node(b, "MoE", "q_proj", "x", "y");
    mb_node_domain(b, n, "com.microsoft");
    mb_output(b, "y");
    expect_fail(NULL, "unsupported op MoE (com.microsoft, opset 1) at node q_proj");
}
END_TEST

START_TEST(opset_too_old_is_unsupported) {
    mb_free(b);
    b = mb_new(13); /* LayerNormalization exists from opset 17 */
    mb_input(b, "x", TF32, "2,4");
    mb_init_f32(b, "s", "4", 4, (const float[]){1, 1, 1, 1});
    mb_node(b, "LayerNormalization", "ln", "x,s", "y");
    mb_output(b, "y");
    expect_fail(NULL, "unsupported op LayerNormalization (ai.onnx, opset 13) at node ln");
}
END_TEST

START_TEST(cycle_detected) {
    mb_input(b, "x", TF32, "3");
    mb_node(b, "Add", "a", "x,t2", "t1");
    mb_node(b, "Relu", "b", "t1", "t2");
    mb_output(b, "t2");
    expect_fail(NULL, "cycle through node");
}
END_TEST

START_TEST(dangling_input_detected) {
    mb_input(b, "x", TF32, "3");
    mb_node(b, "Add", "adder", "x,foo", "y");
    mb_output(b, "y");
    expect_fail(NULL, "node adder: input 'foo' is not produced by any node, input or initializer");
}
END_TEST

START_TEST(unsorted_nodes_are_sorted) {
    mb_input(b, "x", TF32, "3");
    mb_node(b, "Sigmoid", "second", "t", "y");
    mb_node(b, "Relu", "first", "x", "t");
    mb_output(b, "y");
    expect_ok(NULL);
    ck_assert_int_eq(g->n_nodes, 2);
    ck_assert_int_eq(g->nodes[0]->op, OP_RELU);
    ck_assert_int_eq(g->nodes[1]->op, OP_SIGMOID);
    ck_assert_int_eq(graph_verify(g, 0), 0);
}
END_TEST

START_TEST(missing_required_input_names_node) {
    mb_input(b, "x", TF32, "3");
    mb_node(b, "Add", "half_add", "x,", "y");
    mb_output(b, "y");
    expect_fail(NULL, "node half_add (Add): missing required input 1");
}
END_TEST

START_TEST(output_that_is_an_input_gets_identity) {
    mb_input(b, "x", TF32, "3");
    mb_node(b, "Identity", "id", "x", "y");
    mb_output(b, "y");
    mb_output(b, "x");
    expect_ok(NULL);
    ck_assert_int_eq(g->n_outputs, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_ptr_nonnull(g->outputs[i]->producer);
        ck_assert_int_eq(g->outputs[i]->producer->op, OP_IDENTITY);
        ck_assert(!(g->outputs[i]->flags & VF_INPUT));
    }
    ck_assert_str_eq(g->outputs[0]->origin, "y");
    ck_assert_str_eq(g->outputs[1]->origin, "x");
}
END_TEST

START_TEST(concat_needs_axis) {
    mb_input(b, "x", TF32, "2");
    mb_node(b, "Concat", "cat", "x,x", "y");
    mb_output(b, "y");
    expect_fail(NULL, "node cat (Concat): missing attribute 'axis'");
}
END_TEST

START_TEST(shape_chain_folds_to_reshape) {
    static const int64_t minus1[1] = {-1}, two = 2, zero[1] = {0};
    mb_input(b, "x", TF32, "2,3,4");
    mb_init_i64(b, "m1", 1, minus1);
    mb_init_i64(b, "idx", -1, &two);
    mb_init_i64(b, "ax0", 1, zero);
    mb_node(b, "Shape", "shape", "x", "s");
    mb_node(b, "Gather", "gather", "s,idx", "d");
    mb_node(b, "Unsqueeze", "unsq", "d,ax0", "du");
    mb_attr_i(b, mb_node(b, "Concat", "cat", "m1,du", "shp"), "axis", 0);
    mb_node(b, "Reshape", "reshape", "x,shp", "y");
    mb_output(b, "y");
    expect_ok(NULL);
    ck_assert_int_eq(graph_node_count(g), 1);
    Node *r = nth_op(g, OP_RESHAPE, 0);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(dims_of(g, r, "newShape"), "6,4");
    ck_assert_str_eq(r->origin, "reshape");
}
END_TEST

START_TEST(range_needs_constant_inputs) {
    static const int64_t one = 1;
    mb_input(b, "n", TI64, "");
    mb_init_i64(b, "z", -1, &one);
    mb_node(b, "Range", "rng", "z,n,z", "y");
    mb_output(b, "y");
    expect_fail(NULL, "Range at node rng needs constant inputs");
}
END_TEST

START_TEST(range_folds_to_constant) {
    static const int64_t start = 2, limit = 9, delta = 3;
    mb_input(b, "x", TI64, "3");
    mb_init_i64(b, "s", -1, &start);
    mb_init_i64(b, "l", -1, &limit);
    mb_init_i64(b, "d", -1, &delta);
    mb_node(b, "Range", "rng", "s,l,d", "r");
    mb_node(b, "Add", "add", "x,r", "y");
    mb_output(b, "y");
    expect_ok(NULL);
    Value *r = nth_op(g, OP_ADD, 0)->inputs[1];
    ck_assert(r->flags & VF_CONST);
    ck_assert_str_eq(type_of(g, r), "int64[3]");
    int64_t got[3];
    memcpy(got, r->data, sizeof got);
    ck_assert(got[0] == 2 && got[1] == 5 && got[2] == 8);
}
END_TEST

START_TEST(zero_size_slice_is_an_error) {
    static const int64_t s[1] = {2}, e[1] = {2};
    mb_input(b, "x", TF32, "4");
    mb_init_i64(b, "s", 1, s);
    mb_init_i64(b, "e", 1, e);
    mb_node(b, "Slice", "sl", "x,s,e", "y");
    mb_output(b, "y");
    expect_fail(NULL, "zero-size tensor");
}
END_TEST

START_TEST(duplicate_output_name) {
    mb_input(b, "x", TF32, "3");
    mb_node(b, "Relu", "a", "x", "y");
    mb_node(b, "Sigmoid", "b", "x", "y");
    mb_output(b, "y");
    expect_fail(NULL, "'y' is already defined");
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("onnx_import_graph");
    TCase *tc = tcase_create("graph");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, static_input_and_output_names);
    tcase_add_test(tc, bool_input_is_uint8);
    tcase_add_test(tc, fix_makes_dim_static);
    tcase_add_test(tc, dim_makes_bounded_symbol);
    tcase_add_test(tc, dynamic_dim_needs_setting);
    tcase_add_test(tc, unknown_dim_names_input);
    tcase_add_test(tc, initializer_becomes_constant);
    tcase_add_test(tc, constant_node_value_ints);
    tcase_add_test(tc, constant_node_tensor_and_sparse);
    tcase_add_test(tc, unsupported_op_message);
    tcase_add_test(tc, unsupported_contrib_op_message);
    tcase_add_test(tc, opset_too_old_is_unsupported);
    tcase_add_test(tc, cycle_detected);
    tcase_add_test(tc, dangling_input_detected);
    tcase_add_test(tc, unsorted_nodes_are_sorted);
    tcase_add_test(tc, missing_required_input_names_node);
    tcase_add_test(tc, output_that_is_an_input_gets_identity);
    tcase_add_test(tc, concat_needs_axis);
    tcase_add_test(tc, shape_chain_folds_to_reshape);
    tcase_add_test(tc, range_needs_constant_inputs);
    tcase_add_test(tc, range_folds_to_constant);
    tcase_add_test(tc, zero_size_slice_is_an_error);
    tcase_add_test(tc, duplicate_output_name);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(suite()); }
