/* test_import_ops.c - per-op lowering of the ONNX importer: which WebNN ops come out, with which
 * options and shapes (expected values written from the ONNX/WebNN specs), including the
 * opset-dependent attribute/input forms.  No numerics here (end-to-end runs cover them). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "pass.h"
#include "test_import_builder.h"
#include "test_util.h"
#include "webnn_io.h"

static MB *b;
static Graph *g;

static void teardown(void) {
    graph_free(g);
    g = NULL;
    mb_free(b);
    b = NULL;
}

static void expect_ok(void) { g = mb_import_ok(b, NULL); }
static void expect_fail(const char *needle) { mb_import_fails(b, NULL, needle); }

static const char *out_type(void) { return type_of(g, g->outputs[0]); }

/* ---- linear algebra, softmax, normalization ---------------------------------------------------- */

START_TEST(gemm_lowered_to_matmul) {
    b = mb_new(13);
    mb_input(b, "a", TF32, "4,3");
    mb_input(b, "w", TF32, "4,5");
    mb_input(b, "c", TF32, "5");
    Onnx__NodeProto *n = mb_node(b, "Gemm", "fc", "a,w,c", "y");
    mb_attr_i(b, n, "transA", 1);
    mb_attr_f(b, n, "alpha", 2.0f);
    mb_attr_f(b, n, "beta", 0.5f);
    mb_output(b, "y");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_GEMM), 0);
    ck_assert_int_eq(count_op(g, OP_TRANSPOSE), 1);
    ck_assert_str_eq(ints_of(nth_op(g, OP_TRANSPOSE, 0), "permutation"), "1,0");
    ck_assert_int_eq(count_op(g, OP_MATMUL), 1);
    ck_assert_int_eq(count_op(g, OP_MUL), 2); /* alpha * AB, beta * C */
    ck_assert_int_eq(count_op(g, OP_ADD), 1);
    ck_assert_str_eq(out_type(), "float32[3, 5]");
}
END_TEST

START_TEST(matmul_1d_operands) {
    b = mb_new(13);
    mb_input(b, "v", TF32, "4");
    mb_input(b, "m", TF32, "2,4,3");
    mb_node(b, "MatMul", "mm", "v,m", "y");
    mb_output(b, "y");
    expect_ok();
    Node *mm = nth_op(g, OP_MATMUL, 0);
    ck_assert_ptr_nonnull(mm);
    ck_assert_int_ge(mm->inputs[0]->rank, 2);
    ck_assert_str_eq(out_type(), "float32[2, 3]");
}
END_TEST

START_TEST(softmax_opset13_single_node) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "2,3,4");
    mb_attr_i(b, mb_node(b, "Softmax", "sm", "x", "y"), "axis", -2);
    mb_output(b, "y");
    expect_ok();
    ck_assert_int_eq(graph_node_count(g), 1);
    ck_assert_int_eq(node_int(nth_op(g, OP_SOFTMAX, 0), "axis", -1), 1);
}
END_TEST

START_TEST(softmax_opset11_coerced_to_2d) {
    b = mb_new(11);
    mb_input(b, "x", TF32, "2,3,4");
    mb_node(b, "Softmax", "sm", "x", "y"); /* default axis 1: softmax over 3*4 */
    mb_output(b, "y");
    expect_ok();
    Node *sm = nth_op(g, OP_SOFTMAX, 0);
    ck_assert_ptr_nonnull(sm);
    ck_assert_str_eq(type_of(g, sm->inputs[0]), "float32[2, 12]");
    ck_assert_int_eq(node_int(sm, "axis", -1), 1);
    ck_assert_int_eq(count_op(g, OP_RESHAPE), 2);
    ck_assert_str_eq(out_type(), "float32[2, 3, 4]");
}
END_TEST

START_TEST(log_softmax_without_log_of_softmax) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "2,5");
    mb_node(b, "LogSoftmax", "ls", "x", "y");
    mb_output(b, "y");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_REDUCE_LOG_SUM_EXP), 1);
    ck_assert_str_eq(ints_of(nth_op(g, OP_REDUCE_LOG_SUM_EXP, 0), "axes"), "1");
    ck_assert_int_eq(count_op(g, OP_SUB), 1);
    ck_assert_str_eq(out_type(), "float32[2, 5]");
}
END_TEST

START_TEST(layer_norm_portable_form) {
    b = mb_new(17);
    mb_input(b, "x", TF32, "2,3,4");
    mb_input(b, "s", TF32, "3,4");
    mb_input(b, "bias", TF32, "3,4");
    Onnx__NodeProto *n = mb_node(b, "LayerNormalization", "ln", "x,s,bias", "y");
    mb_attr_i(b, n, "axis", -2);
    mb_attr_f(b, n, "epsilon", 1e-3f);
    mb_output(b, "y");
    expect_ok();
    Node *ln = nth_op(g, OP_LAYER_NORMALIZATION, 0);
    ck_assert_ptr_nonnull(ln);
    ck_assert_str_eq(ints_of(ln, "axes"), "1,2");
    ck_assert(node_float(ln, "epsilon", 0) > 0.00099 && node_float(ln, "epsilon", 0) < 0.00101);
    int present = 0;
    for (int i = 0; i < ln->n_inputs; i++) present += ln->inputs[i] != NULL;
    ck_assert_int_eq(present, 1); /* no scale/bias operands */
    ck_assert_int_eq(count_op(g, OP_MUL), 1);
    ck_assert_int_eq(count_op(g, OP_ADD), 1);
}
END_TEST

/* ---- opset-dependent forms ----------------------------------------------------------------------- */

START_TEST(squeeze_axes_attribute_vs_input) {
    static const int64_t ax[1] = {-3};
    b = mb_new(11);
    mb_input(b, "x", TF32, "1,3,1");
    mb_attr_ints(b, mb_node(b, "Squeeze", "sq", "x", "y"), "axes", 1, ax);
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(dims_of(g, nth_op(g, OP_RESHAPE, 0), "newShape"), "3,1");
    teardown();
    b = mb_new(13);
    mb_input(b, "x", TF32, "1,3,1");
    mb_init_i64(b, "axes", 1, ax);
    mb_node(b, "Squeeze", "sq", "x,axes", "y");
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(dims_of(g, nth_op(g, OP_RESHAPE, 0), "newShape"), "3,1");
}
END_TEST

START_TEST(squeeze_all_ones_without_axes) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "1,3,1");
    mb_node(b, "Squeeze", "sq", "x", "y");
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(out_type(), "float32[3]");
}
END_TEST

START_TEST(unsqueeze_negative_axes) {
    static const int64_t ax[2] = {0, -1};
    b = mb_new(11);
    mb_input(b, "x", TF32, "3");
    mb_attr_ints(b, mb_node(b, "Unsqueeze", "u", "x", "y"), "axes", 2, ax);
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(out_type(), "float32[1, 3, 1]");
}
END_TEST

START_TEST(reduce_axes_attribute_vs_input) {
    static const int64_t ax[1] = {-1};
    b = mb_new(13); /* ReduceMean: attribute until opset 18 */
    mb_input(b, "x", TF32, "2,3,4");
    Onnx__NodeProto *n = mb_node(b, "ReduceMean", "rm", "x", "y");
    mb_attr_ints(b, n, "axes", 1, ax);
    mb_attr_i(b, n, "keepdims", 0);
    mb_output(b, "y");
    expect_ok();
    Node *r = nth_op(g, OP_REDUCE_MEAN, 0);
    ck_assert_str_eq(ints_of(r, "axes"), "2");
    ck_assert(!node_bool(r, "keepDimensions", true));
    ck_assert_str_eq(out_type(), "float32[2, 3]");
    teardown();
    b = mb_new(18);
    mb_input(b, "x", TF32, "2,3,4");
    mb_init_i64(b, "axes", 1, ax);
    mb_node(b, "ReduceMean", "rm", "x,axes", "y"); /* keepdims defaults to 1 */
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(ints_of(nth_op(g, OP_REDUCE_MEAN, 0), "axes"), "2");
    ck_assert_str_eq(out_type(), "float32[2, 3, 1]");
}
END_TEST

START_TEST(reduce_sum_empty_axes) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "2,3");
    mb_node(b, "ReduceSum", "all", "x", "y"); /* no axes: all of them */
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(ints_of(nth_op(g, OP_REDUCE_SUM, 0), "axes"), "0,1");
    ck_assert_str_eq(out_type(), "float32[1, 1]");
    teardown();
    b = mb_new(13);
    mb_input(b, "x", TF32, "2,3");
    mb_attr_i(b, mb_node(b, "ReduceSum", "noop", "x", "y"), "noop_with_empty_axes", 1);
    mb_output(b, "y");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_REDUCE_SUM), 0);
    ck_assert_str_eq(out_type(), "float32[2, 3]");
}
END_TEST

START_TEST(clip_attributes_vs_inputs) {
    b = mb_new(6);
    mb_input(b, "x", TF32, "4");
    Onnx__NodeProto *n = mb_node(b, "Clip", "c", "x", "y");
    mb_attr_f(b, n, "min", -1.0f);
    mb_attr_f(b, n, "max", 6.0f);
    mb_output(b, "y");
    expect_ok();
    Node *c = nth_op(g, OP_CLAMP, 0);
    ck_assert(node_float(c, "minValue", 0) == -1.0 && node_float(c, "maxValue", 0) == 6.0);
    teardown();
    b = mb_new(13);
    mb_input(b, "x", TF32, "4");
    mb_init_f32(b, "hi", "", 1, (const float[]){6.0f});
    mb_node(b, "Clip", "c", "x,,hi", "y"); /* min absent */
    mb_output(b, "y");
    expect_ok();
    c = nth_op(g, OP_CLAMP, 0);
    ck_assert_ptr_null(node_attr(c, "minValue"));
    ck_assert(node_float(c, "maxValue", 0) == 6.0);
}
END_TEST

/* webnn_graph_json(g) succeeds (the graph can be written); returns the JSON (freed at the next call). */
static const char *written_json(void) {
    static char *json;
    free(json);
    diag_clear();
    json = webnn_graph_json(g);
    ck_assert_msg(json != NULL, "%s", diag_message());
    return json;
}

/* A constant bound that constrains nothing (min -Infinity, max +Infinity) is dropped, so the
 * graph can be written; a non-finite bound that does constrain stays and the writer refuses it. */
START_TEST(clip_unbounded_constant_bounds_dropped) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "4");
    mb_init_f32(b, "lo", "", 1, (const float[]){-INFINITY});
    mb_init_f32(b, "hi", "", 1, (const float[]){INFINITY});
    mb_node(b, "Clip", "c", "x,lo,hi", "y");
    mb_output(b, "y");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_CLAMP), 0);
    ck_assert_str_eq(out_type(), "float32[4]");
    const char *json = written_json();
    ck_assert_ptr_null(strstr(json, "minValue"));
    ck_assert_ptr_null(strstr(json, "maxValue"));
    teardown();
    b = mb_new(13); /* only the unbounded side goes */
    mb_input(b, "x", TF32, "4");
    mb_init_f32(b, "lo", "", 1, (const float[]){-INFINITY});
    mb_init_f32(b, "hi", "", 1, (const float[]){6.0f});
    mb_node(b, "Clip", "c", "x,lo,hi", "y");
    mb_output(b, "y");
    expect_ok();
    Node *c = nth_op(g, OP_CLAMP, 0);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_null(node_attr(c, "minValue"));
    ck_assert(node_float(c, "maxValue", 0) == 6.0);
    ck_assert_ptr_nonnull(strstr(written_json(), "\"maxValue\""));
    teardown();
    b = mb_new(6); /* attribute form */
    mb_input(b, "x", TF32, "4");
    Onnx__NodeProto *n = mb_node(b, "Clip", "c", "x", "y");
    mb_attr_f(b, n, "min", -INFINITY);
    mb_attr_f(b, n, "max", INFINITY);
    mb_output(b, "y");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_CLAMP), 0);
    written_json();
    teardown();
    b = mb_new(13); /* min +Infinity constrains every element: kept, and not writable */
    mb_input(b, "x", TF32, "4");
    mb_init_f32(b, "lo", "", 1, (const float[]){INFINITY});
    mb_node(b, "Clip", "c", "x,lo", "y");
    mb_output(b, "y");
    expect_ok();
    c = nth_op(g, OP_CLAMP, 0);
    ck_assert_ptr_nonnull(c);
    ck_assert(node_float(c, "minValue", 0) == INFINITY);
    diag_clear();
    ck_assert_ptr_null(webnn_graph_json(g));
    ck_assert_msg(strstr(diag_message(), "option 'minValue' is infinite, which webnn-graph files cannot spell"), "%s",
                  diag_message());
}
END_TEST

START_TEST(split_num_outputs_and_sizes) {
    b = mb_new(18);
    mb_input(b, "x", TF32, "7,2");
    mb_attr_i(b, mb_node(b, "Split", "sp", "x", "a,b,c"), "num_outputs", 3);
    mb_output(b, "a");
    mb_output(b, "c");
    expect_ok();
    ck_assert_str_eq(ints_of(nth_op(g, OP_SPLIT, 0), "splits"), "3,3,1");
    ck_assert_str_eq(type_of(g, g->outputs[1]), "float32[1, 2]");
    teardown();
    b = mb_new(13);
    mb_input(b, "x", TF32, "2,7");
    mb_init_i64(b, "sizes", 2, (const int64_t[]){2, 5});
    mb_attr_i(b, mb_node(b, "Split", "sp", "x,sizes", "a,b"), "axis", -1);
    mb_output(b, "b");
    expect_ok();
    Node *s = nth_op(g, OP_SPLIT, 0);
    ck_assert_str_eq(ints_of(s, "splits"), "2,5");
    ck_assert_int_eq(node_int(s, "axis", -1), 1);
    ck_assert_str_eq(out_type(), "float32[2, 5]");
}
END_TEST

/* ---- Slice -------------------------------------------------------------------------------------------- */

static void slice_model(int64_t start, int64_t end, int64_t step) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "10,3");
    mb_init_i64(b, "s", 1, &start);
    mb_init_i64(b, "e", 1, &end);
    mb_init_i64(b, "ax", 1, (const int64_t[]){0});
    mb_init_i64(b, "st", 1, &step);
    mb_node(b, "Slice", "sl", "x,s,e,ax,st", "y");
    mb_output(b, "y");
}

START_TEST(slice_negative_start_clamped_end) {
    slice_model(-8, 1000, 2); /* elements 2,4,6,8 */
    expect_ok();
    Node *s = nth_op(g, OP_SLICE, 0);
    ck_assert_str_eq(ints_of(s, "starts"), "2,0");
    ck_assert_str_eq(dims_of(g, s, "sizes"), "4,3");
    ck_assert_str_eq(ints_of(s, "strides"), "2,1");
    ck_assert_int_eq(count_op(g, OP_REVERSE), 0);
}
END_TEST

START_TEST(slice_negative_step_uses_reverse) {
    slice_model(8, 1, -3); /* elements 8,5,2 = reversed-tensor indices 1,4,7 */
    expect_ok();
    ck_assert_str_eq(ints_of(nth_op(g, OP_REVERSE, 0), "axes"), "0");
    Node *s = nth_op(g, OP_SLICE, 0);
    ck_assert_str_eq(ints_of(s, "starts"), "1,0");
    ck_assert_str_eq(dims_of(g, s, "sizes"), "3,3");
    ck_assert_str_eq(ints_of(s, "strides"), "3,1");
}
END_TEST

START_TEST(slice_opset9_attributes) {
    b = mb_new(9);
    mb_input(b, "x", TF32, "4,6");
    Onnx__NodeProto *n = mb_node(b, "Slice", "sl", "x", "y");
    mb_attr_ints(b, n, "starts", 1, (const int64_t[]){1});
    mb_attr_ints(b, n, "ends", 1, (const int64_t[]){-1});
    mb_attr_ints(b, n, "axes", 1, (const int64_t[]){1});
    mb_output(b, "y");
    expect_ok();
    Node *s = nth_op(g, OP_SLICE, 0);
    ck_assert_str_eq(ints_of(s, "starts"), "0,1");
    ck_assert_str_eq(dims_of(g, s, "sizes"), "4,4");
}
END_TEST

/* ---- shapes ----------------------------------------------------------------------------------------- */

START_TEST(reshape_zero_and_minus_one) {
    b = mb_new(14);
    mb_input(b, "x", TF32, "2,3,4");
    mb_init_i64(b, "shape", 2, (const int64_t[]){0, -1});
    mb_node(b, "Reshape", "r", "x,shape", "y");
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(dims_of(g, nth_op(g, OP_RESHAPE, 0), "newShape"), "2,12");
    teardown();
    b = mb_new(14);
    mb_input(b, "x", TF32, "2,3,4");
    mb_init_i64(b, "shape", 2, (const int64_t[]){0, -1});
    mb_attr_i(b, mb_node(b, "Reshape", "r", "x,shape", "y"), "allowzero", 1);
    mb_output(b, "y");
    expect_fail("not representable");
}
END_TEST

START_TEST(flatten_and_transpose) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "2,3,4");
    mb_attr_i(b, mb_node(b, "Flatten", "f", "x", "f0"), "axis", 0);
    mb_node(b, "Transpose", "t", "x", "t0");
    mb_output(b, "f0");
    mb_output(b, "t0");
    expect_ok();
    ck_assert_str_eq(type_of(g, g->outputs[0]), "float32[1, 24]");
    ck_assert_str_eq(ints_of(nth_op(g, OP_TRANSPOSE, 0), "permutation"), "2,1,0");
    ck_assert_str_eq(type_of(g, g->outputs[1]), "float32[4, 3, 2]");
}
END_TEST

START_TEST(expand_broadcasts_shape) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "3,1");
    mb_init_i64(b, "shape", 3, (const int64_t[]){2, 1, 4});
    mb_node(b, "Expand", "e", "x,shape", "y");
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(dims_of(g, nth_op(g, OP_EXPAND, 0), "newShape"), "2,3,4");
}
END_TEST

START_TEST(pad_reflect_and_tile) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "2,3");
    mb_init_i64(b, "pads", 4, (const int64_t[]){0, 1, 1, 2});
    mb_init_i64(b, "reps", 2, (const int64_t[]){2, 1});
    mb_attr_s(b, mb_node(b, "Pad", "p", "x,pads", "p0"), "mode", "reflect");
    mb_node(b, "Tile", "t", "x,reps", "t0");
    mb_output(b, "p0");
    mb_output(b, "t0");
    expect_ok();
    Node *p = nth_op(g, OP_PAD, 0);
    ck_assert_str_eq(node_str(p, "mode", ""), "reflection");
    ck_assert_str_eq(ints_of(p, "beginningPadding"), "0,1");
    ck_assert_str_eq(ints_of(p, "endingPadding"), "1,2");
    ck_assert_str_eq(type_of(g, g->outputs[0]), "float32[3, 6]");
    ck_assert_str_eq(ints_of(nth_op(g, OP_TILE, 0), "repetitions"), "2,1");
}
END_TEST

/* ---- element-wise, casts ---------------------------------------------------------------------------- */

START_TEST(cast_to_bool_is_not_equal) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "3");
    mb_attr_i(b, mb_node(b, "Cast", "c", "x", "y"), "to", TBOOL);
    mb_input(b, "i", TI32, "3");
    mb_attr_i(b, mb_node(b, "Cast", "c2", "i", "z"), "to", TF16);
    mb_output(b, "y");
    mb_output(b, "z");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_NOT_EQUAL), 1);
    ck_assert_str_eq(type_of(g, g->outputs[0]), "uint8[3]");
    Node *c = nth_op(g, OP_CAST, 0);
    ck_assert_int_eq(node_dtype(c, "to", DT_INVALID), DT_F16);
    ck_assert_str_eq(type_of(g, g->outputs[1]), "float16[3]");
}
END_TEST

START_TEST(gelu_exact_and_tanh) {
    b = mb_new(20);
    mb_input(b, "x", TF32, "4");
    mb_node(b, "Gelu", "g1", "x", "a");
    mb_attr_s(b, mb_node(b, "Gelu", "g2", "x", "t"), "approximate", "tanh");
    mb_output(b, "a");
    mb_output(b, "t");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_GELU), 1);
    ck_assert_int_eq(count_op(g, OP_TANH), 1);
    ck_assert_int_eq(count_op(g, OP_POW), 1);
}
END_TEST

START_TEST(swish_is_silu_or_quick_gelu) { /* opset 24 Swish: x * sigmoid(alpha x), fused back */
    b = mb_new(24);
    mb_input(b, "x", TF32, "4");
    mb_node(b, "Swish", "s1", "x", "a");
    mb_attr_f(b, mb_node(b, "Swish", "s2", "x", "q"), "alpha", 1.702f);
    mb_output(b, "a");
    mb_output(b, "q");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_SIGMOID), 2);
    ck_assert_int_eq(count_op(g, OP_MUL), 3);
    ck_assert_ptr_nonnull(pass_find("fuse_silu"));
    ck_assert_int_eq(pass_find("fuse_silu")->run(g, &(PassOptions){0}), 0);
    ck_assert_int_eq(count_op(g, OP_SILU), 1);
    ck_assert_int_eq(count_op(g, OP_QUICK_GELU), 1);
}
END_TEST

START_TEST(pow_exponent_cast_to_base_type) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "4");
    mb_input(b, "e", TI32, "4");
    mb_node(b, "Pow", "p", "x,e", "y");
    mb_output(b, "y");
    expect_ok();
    Node *p = nth_op(g, OP_POW, 0);
    ck_assert_int_eq(p->inputs[1]->dtype, DT_F32);
    ck_assert_int_eq(count_op(g, OP_CAST), 1);
}
END_TEST

START_TEST(variadic_max_and_mean) {
    b = mb_new(13);
    mb_input(b, "a", TF32, "4");
    mb_input(b, "b", TF32, "4");
    mb_input(b, "c", TF32, "4");
    mb_node(b, "Max", "mx", "a,b,c", "m");
    mb_node(b, "Mean", "mn", "a,b", "n");
    mb_output(b, "m");
    mb_output(b, "n");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_MAX), 2);
    ck_assert_int_eq(count_op(g, OP_ADD), 1);
    ck_assert_int_eq(count_op(g, OP_DIV), 1);
}
END_TEST

START_TEST(isinf_one_sided) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "4");
    mb_attr_i(b, mb_node(b, "IsInf", "inf", "x", "y"), "detect_negative", 0);
    mb_output(b, "y");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_IS_INFINITE), 1);
    ck_assert_int_eq(count_op(g, OP_GREATER), 1); /* +inf only: x > 0 */
    ck_assert_int_eq(count_op(g, OP_LOGICAL_AND), 1);
    ck_assert_str_eq(out_type(), "uint8[4]");
    teardown();
    b = mb_new(13);
    mb_input(b, "x", TF32, "4");
    Onnx__NodeProto *n = mb_node(b, "IsInf", "inf", "x", "y");
    mb_attr_i(b, n, "detect_negative", 0);
    mb_attr_i(b, n, "detect_positive", 0);
    mb_output(b, "y");
    expect_fail("node inf (IsInf)");
}
END_TEST

/* ---- indexing ------------------------------------------------------------------------------------------ */

START_TEST(gather_negative_constant_indices) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "5,2");
    mb_init_i64(b, "idx", 2, (const int64_t[]){-1, 1});
    mb_node(b, "Gather", "g", "x,idx", "y");
    mb_output(b, "y");
    expect_ok();
    Node *n = nth_op(g, OP_GATHER, 0);
    Value *idx = n->inputs[1];
    ck_assert(idx->flags & VF_CONST);
    int64_t got[2];
    memcpy(got, idx->data, sizeof got);
    ck_assert(got[0] == 4 && got[1] == 1);
    ck_assert_str_eq(out_type(), "float32[2, 2]");
}
END_TEST

START_TEST(trilu_cumsum_argmax) {
    b = mb_new(14);
    mb_input(b, "x", TF32, "3,4");
    mb_init_i64(b, "k", -1, (const int64_t[]){1});
    mb_init_i64(b, "ax", -1, (const int64_t[]){-1});
    mb_attr_i(b, mb_node(b, "Trilu", "tr", "x,k", "t"), "upper", 0);
    Onnx__NodeProto *cs = mb_node(b, "CumSum", "cs", "x,ax", "c");
    mb_attr_i(b, cs, "exclusive", 1);
    mb_attr_i(b, cs, "reverse", 1);
    Onnx__NodeProto *am = mb_node(b, "ArgMax", "am", "x", "a");
    mb_attr_i(b, am, "axis", 1);
    mb_attr_i(b, am, "keepdims", 0);
    mb_output(b, "t");
    mb_output(b, "c");
    mb_output(b, "a");
    expect_ok();
    Node *t = nth_op(g, OP_TRIANGULAR, 0);
    ck_assert(!node_bool(t, "upper", true));
    ck_assert_int_eq(node_int(t, "diagonal", 0), 1);
    Node *c = nth_op(g, OP_CUMULATIVE_SUM, 0);
    ck_assert_int_eq(node_int(c, "axis", -1), 1);
    ck_assert(node_bool(c, "exclusive", false) && node_bool(c, "reversed", false));
    ck_assert_str_eq(type_of(g, g->outputs[2]), "int64[3]");
}
END_TEST

START_TEST(argmax_select_last_index) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "3,4");
    Onnx__NodeProto *n = mb_node(b, "ArgMax", "am", "x", "y");
    mb_attr_i(b, n, "axis", 1);
    mb_attr_i(b, n, "select_last_index", 1);
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(ints_of(nth_op(g, OP_REVERSE, 0), "axes"), "1");
    Node *sub = nth_op(g, OP_SUB, 0); /* 3 - index in the reversed tensor */
    ck_assert_ptr_nonnull(sub);
    ck_assert(sub->inputs[0]->flags & VF_CONST);
    int64_t k;
    memcpy(&k, sub->inputs[0]->data, 8);
    ck_assert_int_eq(k, 3);
    ck_assert_str_eq(out_type(), "int64[3, 1]");
}
END_TEST

START_TEST(layer_norm_mean_and_inv_std_dev) {
    b = mb_new(17);
    mb_input(b, "x", TF32, "2,3");
    mb_input(b, "s", TF32, "3");
    mb_node(b, "LayerNormalization", "ln", "x,s", "y,mean,inv");
    mb_output(b, "y");
    mb_output(b, "mean");
    mb_output(b, "inv");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_LAYER_NORMALIZATION), 1);
    ck_assert_int_eq(count_op(g, OP_REDUCE_MEAN), 2);
    ck_assert_str_eq(type_of(g, g->outputs[1]), "float32[2, 1]");
    ck_assert_str_eq(type_of(g, g->outputs[2]), "float32[2, 1]");
    ck_assert_int_eq(g->outputs[2]->producer->op, OP_RECIPROCAL);
}
END_TEST

/* ---- convolution and pooling ------------------------------------------------------------------------- */

START_TEST(conv1d_same_upper) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "1,2,7");
    mb_input(b, "w", TF32, "4,2,3");
    mb_input(b, "bias", TF32, "4");
    Onnx__NodeProto *n = mb_node(b, "Conv", "conv", "x,w,bias", "y");
    mb_attr_s(b, n, "auto_pad", "SAME_UPPER");
    mb_attr_ints(b, n, "strides", 1, (const int64_t[]){2});
    mb_output(b, "y");
    expect_ok();
    Node *c = nth_op(g, OP_CONV2D, 0);
    ck_assert_ptr_nonnull(c);
    /* out = ceil(7/2) = 4; total pad = (4-1)*2 + 3 - 7 = 2 -> 1 before, 1 after (on W) */
    ck_assert_str_eq(ints_of(c, "padding"), "0,0,1,1");
    ck_assert_str_eq(ints_of(c, "strides"), "1,2");
    ck_assert_int_eq(c->n_inputs, 3);
    ck_assert_ptr_nonnull(c->inputs[2]); /* bias as third positional operand */
    ck_assert_str_eq(type_of(g, c->inputs[0]), "float32[1, 2, 1, 7]");
    ck_assert_str_eq(out_type(), "float32[1, 4, 4]");
}
END_TEST

START_TEST(conv2d_explicit_pads_order) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "1,1,5,5");
    mb_input(b, "w", TF32, "2,1,3,3");
    mb_attr_ints(b, mb_node(b, "Conv", "conv", "x,w", "y"), "pads", 4, (const int64_t[]){1, 2, 3, 4});
    mb_output(b, "y");
    expect_ok();
    /* ONNX [h_begin, w_begin, h_end, w_end] -> WebNN [top, bottom, left, right] */
    ck_assert_str_eq(ints_of(nth_op(g, OP_CONV2D, 0), "padding"), "1,3,2,4");
    ck_assert_str_eq(out_type(), "float32[1, 2, 7, 9]");
}
END_TEST

START_TEST(average_pool_count_include_pad) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "1,1,4,4");
    Onnx__NodeProto *n = mb_node(b, "AveragePool", "ap", "x", "y");
    mb_attr_ints(b, n, "kernel_shape", 2, (const int64_t[]){3, 3});
    mb_attr_ints(b, n, "pads", 4, (const int64_t[]){1, 1, 1, 1});
    mb_attr_i(b, n, "count_include_pad", 1);
    mb_output(b, "y");
    expect_ok();
    Node *p = nth_op(g, OP_PAD, 0);
    ck_assert_ptr_nonnull(p);
    ck_assert_str_eq(ints_of(p, "beginningPadding"), "0,0,1,1");
    Node *ap = nth_op(g, OP_AVERAGE_POOL2D, 0);
    ck_assert_str_eq(ints_of(ap, "padding"), "0,0,0,0");
    ck_assert_str_eq(ints_of(ap, "windowDimensions"), "3,3");
    ck_assert_str_eq(out_type(), "float32[1, 1, 4, 4]");
}
END_TEST

START_TEST(max_pool_ceil_mode) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "1,1,5,5");
    Onnx__NodeProto *n = mb_node(b, "MaxPool", "mp", "x", "y");
    mb_attr_ints(b, n, "kernel_shape", 2, (const int64_t[]){2, 2});
    mb_attr_ints(b, n, "strides", 2, (const int64_t[]){2, 2});
    mb_attr_i(b, n, "ceil_mode", 1);
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(node_str(nth_op(g, OP_MAX_POOL2D, 0), "outputShapeRounding", ""), "ceil");
    ck_assert_str_eq(out_type(), "float32[1, 1, 3, 3]");
}
END_TEST

START_TEST(global_average_pool_is_reduce_mean) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "1,3,4,5");
    mb_node(b, "GlobalAveragePool", "gap", "x", "y");
    mb_output(b, "y");
    expect_ok();
    ck_assert_str_eq(ints_of(nth_op(g, OP_REDUCE_MEAN, 0), "axes"), "2,3");
    ck_assert_str_eq(out_type(), "float32[1, 3, 1, 1]");
}
END_TEST

/* ---- node-test coverage fixes (issue #3): run-time Clip bounds, Dropout mask, BatchNormalization
 * training mode, GatherND batch_dims, scatter reductions ------------------------------------------ */

/* The constant bytes behind graph output i (through identity nodes); fails the test otherwise. */
static const Value *const_output(int i) {
    const Value *v = g->outputs[i];
    while (v->producer && v->producer->op == OP_IDENTITY) v = v->producer->inputs[0];
    ck_assert_msg(v->flags & VF_CONST, "output %d is not a constant", i);
    return v;
}

START_TEST(clip_run_time_bounds) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "4");
    mb_input(b, "lo", TF32, "");
    mb_init_f32(b, "hi", "", 1, (const float[]){6.0f});
    mb_node(b, "Clip", "c", "x,lo,hi", "y");
    mb_output(b, "y");
    expect_ok();
    /* min(max(x, lo), 6): max with the run-time bound first, then the constant one as clamp */
    Node *mx = nth_op(g, OP_MAX, 0), *cl = nth_op(g, OP_CLAMP, 0);
    ck_assert_ptr_nonnull(mx);
    ck_assert_ptr_nonnull(cl);
    ck_assert_ptr_eq(cl->inputs[0], mx->outputs[0]);
    ck_assert_ptr_null(node_attr(cl, "minValue"));
    ck_assert(node_float(cl, "maxValue", 0) == 6.0);
    ck_assert_str_eq(out_type(), "float32[4]");
    teardown();
    b = mb_new(13);
    mb_input(b, "x", TI8, "3,4");
    mb_input(b, "lo", TI8, "");
    mb_input(b, "hi", TI8, "");
    mb_node(b, "Clip", "c", "x,lo,hi", "y");
    mb_output(b, "y");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_CLAMP), 0);
    mx = nth_op(g, OP_MAX, 0);
    Node *mn = nth_op(g, OP_MIN, 0);
    ck_assert_ptr_nonnull(mx);
    ck_assert_ptr_nonnull(mn);
    ck_assert_ptr_eq(mn->inputs[0], mx->outputs[0]);
    ck_assert_str_eq(out_type(), "int8[3, 4]");
    teardown();
    b = mb_new(13);
    mb_input(b, "x", TF32, "4");
    mb_input(b, "lo", TF32, "2");
    mb_node(b, "Clip", "c", "x,lo", "y");
    mb_output(b, "y");
    expect_fail("'min' must be a scalar");
}
END_TEST

START_TEST(dropout_mask_all_true) {
    b = mb_new(13);
    mb_input(b, "x", TF32, "3,4");
    mb_input(b, "ratio", TF32, ""); /* ignored in inference */
    mb_node(b, "Dropout", "d", "x,ratio", "y,mask");
    mb_output(b, "y");
    mb_output(b, "mask");
    expect_ok();
    ck_assert_str_eq(type_of(g, g->outputs[1]), "uint8[3, 4]");
    const Value *m = const_output(1);
    ck_assert_uint_eq(m->nbytes, 12);
    for (int i = 0; i < 12; i++) ck_assert_uint_eq(((const uint8_t *)m->data)[i], 1);
    teardown();
    b = mb_new(13);
    mb_input(b, "x", TF32, "3,4");
    mb_init(b, "t", TBOOL, "", (const uint8_t[]){1}, 1);
    mb_node(b, "Dropout", "d", "x,,t", "y");
    mb_output(b, "y");
    expect_fail("training_mode=true is not supported");
}
END_TEST

START_TEST(batch_norm_training_mode) {
    b = mb_new(15);
    mb_input(b, "x", TF32, "2,3,4,5");
    const char *params[] = {"s", "bias", "mean", "var"};
    for (int i = 0; i < 4; i++) mb_input(b, params[i], TF32, "3");
    Onnx__NodeProto *n = mb_node(b, "BatchNormalization", "bn", "x,s,bias,mean,var", "y,rm,rv");
    mb_attr_i(b, n, "training_mode", 1);
    mb_attr_f(b, n, "momentum", 0.75f);
    mb_output(b, "y");
    mb_output(b, "rm");
    mb_output(b, "rv");
    expect_ok();
    /* batch mean and population variance over N, H, W; Y normalizes with them */
    ck_assert_int_eq(count_op(g, OP_REDUCE_MEAN), 2);
    ck_assert_str_eq(ints_of(nth_op(g, OP_REDUCE_MEAN, 0), "axes"), "0,2,3");
    Node *bn = nth_op(g, OP_BATCH_NORMALIZATION, 0);
    ck_assert_ptr_nonnull(bn);
    ck_assert_ptr_nonnull(bn->inputs[1]->producer); /* the batch mean, not the running-mean input */
    ck_assert_str_eq(type_of(g, bn->inputs[1]), "float32[3]");
    ck_assert_str_eq(type_of(g, g->outputs[1]), "float32[3]");
    ck_assert_str_eq(type_of(g, g->outputs[2]), "float32[3]");
    /* running = input * momentum + batch * (1 - momentum): two scalings and one add per output */
    ck_assert_int_eq(count_op(g, OP_ADD), 2);
    teardown();
    b = mb_new(15);
    mb_input(b, "x", TF32, "2,3,4,5");
    for (int i = 0; i < 4; i++) mb_input(b, params[i], TF32, "3");
    mb_node(b, "BatchNormalization", "bn", "x,s,bias,mean,var", "y,rm");
    mb_output(b, "y");
    mb_output(b, "rm");
    expect_fail("training_mode = 1");
}
END_TEST

START_TEST(gather_nd_batch_dims) {
    b = mb_new(13);
    mb_input(b, "data", TI32, "2,2,2");
    mb_input(b, "idx", TI64, "2,1");
    mb_attr_i(b, mb_node(b, "GatherND", "g", "data,idx", "y"), "batch_dims", 1);
    mb_output(b, "y");
    expect_ok();
    Node *cat = nth_op(g, OP_CONCAT, 0), *gn = nth_op(g, OP_GATHER_ND, 0);
    ck_assert_ptr_nonnull(cat);
    ck_assert_ptr_nonnull(gn);
    ck_assert_ptr_eq(gn->inputs[1], cat->outputs[0]);
    const Value *coords = cat->inputs[0];
    ck_assert(coords->flags & VF_CONST);
    ck_assert_str_eq(type_of(g, coords), "int64[2, 1]");
    ck_assert_int_eq(((const int64_t *)coords->data)[0], 0); /* batch 0 */
    ck_assert_int_eq(((const int64_t *)coords->data)[1], 1); /* batch 1 */
    ck_assert_str_eq(out_type(), "int32[2, 2]"); /* ONNX: [batch, data dims after batch + 1] */
    teardown();
    b = mb_new(13);
    mb_input(b, "data", TI32, "2,2,2");
    mb_input(b, "idx", TI64, "3,1");
    mb_attr_i(b, mb_node(b, "GatherND", "g", "data,idx", "y"), "batch_dims", 1);
    mb_output(b, "y");
    expect_fail("batch dims");
}
END_TEST

/* ScatterElements' duplicate-index example of the ONNX operator docs, all constant: folds. */
START_TEST(scatter_elements_add_duplicates) {
    b = mb_new(16);
    mb_init_f32(b, "data", "1,5", 5, (const float[]){1, 2, 3, 4, 5});
    mb_init(b, "idx", TI64, "1,2", (const int64_t[]){1, 1}, 16);
    mb_init_f32(b, "upd", "1,2", 2, (const float[]){1.1f, 2.1f});
    Onnx__NodeProto *n = mb_node(b, "ScatterElements", "s", "data,idx,upd", "y");
    mb_attr_i(b, n, "axis", 1);
    mb_attr_s(b, n, "reduction", "add");
    mb_output(b, "y");
    expect_ok();
    const Value *y = const_output(0);
    ck_assert_str_eq(out_type(), "float32[1, 5]");
    const float want[5] = {1, (2.0f + 1.1f) + 2.1f, 3, 4, 5}; /* applied in index order */
    ck_assert_mem_eq(y->data, want, sizeof want);
}
END_TEST

START_TEST(scatter_nd_mul_negative_and_duplicate) {
    b = mb_new(16);
    mb_init_f32(b, "data", "4", 4, (const float[]){1, 2, 3, 4});
    mb_init(b, "idx", TI64, "3,1", (const int64_t[]){-1, 3, 0}, 24);
    mb_init_f32(b, "upd", "3", 3, (const float[]){2, 3, 5});
    mb_attr_s(b, mb_node(b, "ScatterND", "s", "data,idx,upd", "y"), "reduction", "mul");
    mb_output(b, "y");
    expect_ok();
    const float want[4] = {5, 2, 3, 24}; /* -1 is index 3: 4 * 2 * 3 */
    ck_assert_mem_eq(const_output(0)->data, want, sizeof want);
}
END_TEST

/* data/idx/upd graph inputs of the given shapes -> ScatterND with `reduction` -> y. */
static void scatter_nd_inputs(int64_t opset, const char *data, const char *idx, const char *upd, const char *reduction) {
    b = mb_new(opset);
    mb_input(b, "data", TF32, data);
    mb_input(b, "idx", TI64, idx);
    mb_input(b, "upd", TF32, upd);
    mb_attr_s(b, mb_node(b, "ScatterND", "s", "data,idx,upd", "y"), "reduction", reduction);
    mb_output(b, "y");
}

START_TEST(scatter_nd_add_run_time_indices) {
    scatter_nd_inputs(16, "4,4,4", "2,1", "2,4,4", "add");
    expect_ok();
    ck_assert_int_eq(count_op(g, OP_SCATTER_ND), 0);
    ck_assert_int_eq(count_op(g, OP_WHERE), 1 + 2); /* negative wrap + one per update slice */
    ck_assert_str_eq(out_type(), "float32[4, 4, 4]");
    teardown();
    scatter_nd_inputs(16, "100", "65,1", "65", "add");
    expect_fail("more than 64");
    teardown();
    scatter_nd_inputs(18, "4", "1,1", "1", "xor");
    expect_fail("reduction 'xor' is not supported");
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("onnx_import_ops");
    TCase *tc = tcase_create("ops");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, gemm_lowered_to_matmul);
    tcase_add_test(tc, matmul_1d_operands);
    tcase_add_test(tc, softmax_opset13_single_node);
    tcase_add_test(tc, softmax_opset11_coerced_to_2d);
    tcase_add_test(tc, log_softmax_without_log_of_softmax);
    tcase_add_test(tc, layer_norm_portable_form);
    tcase_add_test(tc, squeeze_axes_attribute_vs_input);
    tcase_add_test(tc, squeeze_all_ones_without_axes);
    tcase_add_test(tc, unsqueeze_negative_axes);
    tcase_add_test(tc, reduce_axes_attribute_vs_input);
    tcase_add_test(tc, reduce_sum_empty_axes);
    tcase_add_test(tc, clip_attributes_vs_inputs);
    tcase_add_test(tc, clip_unbounded_constant_bounds_dropped);
    tcase_add_test(tc, split_num_outputs_and_sizes);
    tcase_add_test(tc, slice_negative_start_clamped_end);
    tcase_add_test(tc, slice_negative_step_uses_reverse);
    tcase_add_test(tc, slice_opset9_attributes);
    tcase_add_test(tc, reshape_zero_and_minus_one);
    tcase_add_test(tc, flatten_and_transpose);
    tcase_add_test(tc, expand_broadcasts_shape);
    tcase_add_test(tc, pad_reflect_and_tile);
    tcase_add_test(tc, cast_to_bool_is_not_equal);
    tcase_add_test(tc, gelu_exact_and_tanh);
    tcase_add_test(tc, swish_is_silu_or_quick_gelu);
    tcase_add_test(tc, pow_exponent_cast_to_base_type);
    tcase_add_test(tc, variadic_max_and_mean);
    tcase_add_test(tc, isinf_one_sided);
    tcase_add_test(tc, gather_negative_constant_indices);
    tcase_add_test(tc, trilu_cumsum_argmax);
    tcase_add_test(tc, argmax_select_last_index);
    tcase_add_test(tc, layer_norm_mean_and_inv_std_dev);
    tcase_add_test(tc, conv1d_same_upper);
    tcase_add_test(tc, conv2d_explicit_pads_order);
    tcase_add_test(tc, average_pool_count_include_pad);
    tcase_add_test(tc, max_pool_ceil_mode);
    tcase_add_test(tc, global_average_pool_is_reduce_mean);
    tcase_add_test(tc, clip_run_time_bounds);
    tcase_add_test(tc, dropout_mask_all_true);
    tcase_add_test(tc, batch_norm_training_mode);
    tcase_add_test(tc, gather_nd_batch_dims);
    tcase_add_test(tc, scatter_elements_add_duplicates);
    tcase_add_test(tc, scatter_nd_mul_negative_and_duplicate);
    tcase_add_test(tc, scatter_nd_add_run_time_indices);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(suite()); }
