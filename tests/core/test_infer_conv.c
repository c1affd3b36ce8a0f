/* test_infer_conv.c - conv2d, convTranspose2d, pools and resample2d output sizes, checked against
 * the WebNN formulas worked by hand in each comment:
 *   conv/pool:  out = round((in + padBegin + padEnd - (dilation * (k - 1) + 1)) / stride) + 1
 *   convTranspose: out = (in - 1) * stride + (k - 1) * dilation + 1 - padBegin - padEnd + outputPadding */
#include "core_test_util.h"

static Node *conv(OpId op, Value *x, Value *f) { return t_node(op, 2, x, f); }
static void ints(Node *n, const char *key, int count, const int64_t *v) { node_set_ints(tg, n, key, count, v); }

START_TEST(conv2d_sizes) {
    Value *x = t_in(DT_F32, S(1, 1, 5, 5)), *f = t_in(DT_F32, S(1, 1, 3, 3));
    t_ok(conv(OP_CONV2D, x, f), DT_F32, S(1, 1, 3, 3)); /* 5 - 3 + 1 = 3 */
    Node *n = conv(OP_CONV2D, x, f);
    ints(n, "padding", S(1, 1, 1, 1)); /* 5 + 2 - 3 + 1 = 5 */
    t_ok(n, DT_F32, S(1, 1, 5, 5));
    n = conv(OP_CONV2D, x, f);
    ints(n, "padding", S(1, 1, 1, 1));
    ints(n, "strides", S(2, 2)); /* floor((5 + 2 - 3) / 2) + 1 = 3 */
    t_ok(n, DT_F32, S(1, 1, 3, 3));
    n = conv(OP_CONV2D, x, f);
    ints(n, "padding", S(1, 0, 0, 0));
    ints(n, "strides", S(2, 1)); /* h: floor((5 + 1 - 3) / 2) + 1 = 2 ; w: 3 */
    t_ok(n, DT_F32, S(1, 1, 2, 3));
    n = conv(OP_CONV2D, t_in(DT_F32, S(1, 1, 7, 7)), f);
    ints(n, "dilations", S(2, 2)); /* effective kernel 2 * 2 + 1 = 5: 7 - 5 + 1 = 3 */
    t_ok(n, DT_F32, S(1, 1, 3, 3));
    n = conv(OP_CONV2D, x, t_in(DT_F32, S(1, 1, 3, 3)));
    ints(n, "dilations", S(3, 1)); /* effective 7 > 5 */
    t_err(n, "dilated window 7 is larger than the padded input 5 along height");
}
END_TEST

START_TEST(conv2d_layouts_groups_bias) {
    /* nhwc input, ohwi filter [O=4, 3, 3, I=2]: [1, 3, 3, 4] */
    Node *n = conv(OP_CONV2D, t_in(DT_F16, S(1, 5, 5, 2)), t_in(DT_F16, S(4, 3, 3, 2)));
    node_set_string(tg, n, "inputLayout", "nhwc");
    node_set_string(tg, n, "filterLayout", "ohwi");
    t_ok(n, DT_F16, S(1, 3, 3, 4));
    /* hwio filter [3, 3, I=2, O=6] on nchw [2, 2, 6, 4]: [2, 6, 4, 2] */
    n = conv(OP_CONV2D, t_in(DT_F32, S(2, 2, 6, 4)), t_in(DT_F32, S(3, 3, 2, 6)));
    node_set_string(tg, n, "filterLayout", "hwio");
    t_ok(n, DT_F32, S(2, 6, 4, 2));
    /* depthwise: 4 channels, groups 4, filter [4, 1, 3, 3] */
    Value *x = t_in(DT_F32, S(1, 4, 5, 5));
    n = conv(OP_CONV2D, x, t_in(DT_F32, S(4, 1, 3, 3)));
    node_set_uint(tg, n, "groups", 4);
    t_ok(n, DT_F32, S(1, 4, 3, 3));
    n = conv(OP_CONV2D, x, t_in(DT_F32, S(4, 1, 3, 3)));
    node_set_uint(tg, n, "groups", 3);
    t_err(n, "input channels 4 != filter input channels 1 * groups 3");
    n = conv(OP_CONV2D, x, t_in(DT_F32, S(6, 1, 3, 3)));
    node_set_uint(tg, n, "groups", 4);
    t_err(n, "output channels 6 are not a multiple of groups 4");
    n = t_node(OP_CONV2D, 3, x, t_in(DT_F32, S(8, 4, 1, 1)), t_in(DT_F32, S(8)));
    t_ok(n, DT_F32, S(1, 8, 5, 5));
    t_err(t_node(OP_CONV2D, 3, x, t_in(DT_F32, S(8, 4, 1, 1)), t_in(DT_F32, S(4))), "has shape [4], expected [8]");
    n = conv(OP_CONV2D, x, t_in(DT_F32, S(8, 4, 1, 1)));
    node_set_string(tg, n, "filterLayout", "iohw");
    t_err(n, "option 'filterLayout' is \"iohw\"");
    t_err(conv(OP_CONV2D, t_in(DT_I32, S(1, 4, 5, 5)), t_in(DT_I32, S(8, 4, 1, 1))), "expected float32 or float16");
    t_err(conv(OP_CONV2D, t_in(DT_F32, S(4, 5, 5)), t_in(DT_F32, S(8, 4, 1, 1))), "has rank 3, expected 4");
    Dim h = dim_symbol(tg, "h", 64);
    t_err(conv(OP_CONV2D, t_in_dims(DT_F32, 4, (Dim[]){dim_static(1), dim_static(4), h, dim_static(5)}),
               t_in(DT_F32, S(8, 4, 1, 1))),
          "dynamic dim not supported for conv2d spatial dims");
}
END_TEST

START_TEST(conv_transpose2d_sizes) {
    /* input [1,1,3,3], filter iohw [1,2,3,3], strides [3,2]:
     * h = (3-1)*3 + (3-1)*1 + 1 = 9 ; w = (3-1)*2 + 2 + 1 = 7 ; channels = 2 * groups 1 */
    Value *x = t_in(DT_F32, S(1, 1, 3, 3)), *f = t_in(DT_F32, S(1, 2, 3, 3));
    Node *n = conv(OP_CONV_TRANSPOSE2D, x, f);
    ints(n, "strides", S(3, 2));
    t_ok(n, DT_F32, S(1, 2, 9, 7));
    n = conv(OP_CONV_TRANSPOSE2D, x, f);
    ints(n, "strides", S(3, 2));
    ints(n, "outputPadding", S(1, 1)); /* 10, 8 */
    t_ok(n, DT_F32, S(1, 2, 10, 8));
    n = conv(OP_CONV_TRANSPOSE2D, x, f);
    ints(n, "strides", S(3, 2));
    ints(n, "outputSizes", S(11, 8)); /* within [9, 12) and [7, 9) */
    t_ok(n, DT_F32, S(1, 2, 11, 8));
    n = conv(OP_CONV_TRANSPOSE2D, x, f);
    ints(n, "strides", S(3, 2));
    ints(n, "outputSizes", S(12, 8));
    t_err(n, "outputSizes[0] = 12 must be in [9, 12)");
    n = conv(OP_CONV_TRANSPOSE2D, x, f);
    ints(n, "outputPadding", S(1, 0)); /* stride 1 */
    t_err(n, "outputPadding 1 must be smaller than the stride 1");
    n = conv(OP_CONV_TRANSPOSE2D, x, f);
    ints(n, "padding", S(1, 1, 0, 0)); /* h = 2 + 2 + 1 - 2 = 3, w = 5 */
    t_ok(n, DT_F32, S(1, 2, 3, 5));
    /* nhwc input [1,3,3,2], ohwi filter [O=5, 2, 2, I=2], groups 1, dilations [2,1]:
     * h = 2 + 1*2 + 1 = 5 ; w = 2 + 1 + 1 = 4 */
    n = conv(OP_CONV_TRANSPOSE2D, t_in(DT_F32, S(1, 3, 3, 2)), t_in(DT_F32, S(5, 2, 2, 2)));
    node_set_string(tg, n, "inputLayout", "nhwc");
    node_set_string(tg, n, "filterLayout", "ohwi");
    ints(n, "dilations", S(2, 1));
    t_ok(n, DT_F32, S(1, 5, 4, 5));
    t_err(conv(OP_CONV_TRANSPOSE2D, t_in(DT_F32, S(1, 3, 3, 3)), f), "input channels 3 != filter input channels 1");
}
END_TEST

START_TEST(pool_sizes) {
    Value *x = t_in(DT_F32, S(1, 3, 5, 5));
    Node *n = t_node(OP_AVERAGE_POOL2D, 1, x);
    ints(n, "windowDimensions", S(3, 3));
    ints(n, "strides", S(2, 2)); /* floor((5-3)/2)+1 = 2 */
    t_ok(n, DT_F32, S(1, 3, 2, 2));
    t_ok(t_node(OP_MAX_POOL2D, 1, x), DT_F32, S(1, 3, 1, 1)); /* default window: whole 5x5 */
    n = t_node(OP_MAX_POOL2D, 1, x);
    ints(n, "windowDimensions", S(2, 2));
    ints(n, "strides", S(2, 2)); /* floor(3/2)+1 = 2 */
    t_ok(n, DT_F32, S(1, 3, 2, 2));
    n = t_node(OP_MAX_POOL2D, 1, x);
    ints(n, "windowDimensions", S(2, 2));
    ints(n, "strides", S(2, 2));
    node_set_string(tg, n, "outputShapeRounding", "ceil"); /* ceil(3/2)+1 = 3 */
    t_ok(n, DT_F32, S(1, 3, 3, 3));
    n = t_node(OP_L2_POOL2D, 1, x);
    ints(n, "windowDimensions", S(2, 2));
    ints(n, "strides", S(2, 2));
    ints(n, "outputSizes", S(3, 2)); /* ceil for h, floor for w */
    t_ok(n, DT_F32, S(1, 3, 3, 2));
    n = t_node(OP_L2_POOL2D, 1, x);
    ints(n, "windowDimensions", S(2, 2));
    ints(n, "strides", S(2, 2));
    ints(n, "outputSizes", S(4, 2));
    t_err(n, "outputSizes[0] = 4 is neither the floor (2) nor the ceil (3)");
    /* nhwc, padding and dilation: window 3 dilated by 2 = 5 on 6 + 2 padding: (8-5)/1+1 = 4 */
    n = t_node(OP_MAX_POOL2D, 1, t_in(DT_I8, S(1, 6, 6, 3)));
    node_set_string(tg, n, "layout", "nhwc");
    ints(n, "windowDimensions", S(3, 3));
    ints(n, "dilations", S(2, 2));
    ints(n, "padding", S(1, 1, 1, 1));
    t_ok(n, DT_I8, S(1, 4, 4, 3));
    t_err(t_node(OP_AVERAGE_POOL2D, 1, t_in(DT_I8, S(1, 6, 6, 3))), "expected float32 or float16");
    n = t_node(OP_MAX_POOL2D, 1, x);
    ints(n, "windowDimensions", S(6, 1));
    t_err(n, "larger than the padded input");
    n = t_node(OP_MAX_POOL2D, 1, x);
    ints(n, "windowDimensions", S(0, 1));
    t_err(n, "option 'windowDimensions'[0] = 0 is out of range");
}
END_TEST

START_TEST(resample2d_sizes) {
    Value *x = t_in(DT_F32, S(1, 1, 2, 4));
    Node *n = t_node(OP_RESAMPLE2D, 1, x);
    node_set_floats(tg, n, "scales", 2, (double[]){2.0, 3.0}); /* [1,1,4,12] */
    t_ok(n, DT_F32, S(1, 1, 4, 12));
    n = t_node(OP_RESAMPLE2D, 1, x);
    node_set_floats(tg, n, "scales", 2, (double[]){2.0, 3.0});
    ints(n, "sizes", S(3, 5)); /* sizes override scales */
    t_ok(n, DT_F32, S(1, 1, 3, 5));
    n = t_node(OP_RESAMPLE2D, 1, t_in(DT_U8, S(1, 2, 3, 4)));
    ints(n, "axes", S(1, 2));
    node_set_floats(tg, n, "scales", 2, (double[]){2.0, 0.5}); /* 2*2 = 4, floor(3*0.5) = 1 */
    node_set_string(tg, n, "mode", "linear");
    t_ok(n, DT_U8, S(1, 4, 1, 4));
    n = t_node(OP_RESAMPLE2D, 1, x);
    node_set_floats(tg, n, "scales", 2, (double[]){0.25, 1.0}); /* floor(2 * 0.25) = 0 */
    t_err(n, "not a valid dimension");
    n = t_node(OP_RESAMPLE2D, 1, x);
    node_set_floats(tg, n, "scales", 2, (double[]){-1.0, 1.0});
    t_err(n, "scales[0] = -1 must be positive");
    n = t_node(OP_RESAMPLE2D, 1, x);
    ints(n, "axes", S(2, 2));
    t_err(n, "axes repeat axis 2");
    n = t_node(OP_RESAMPLE2D, 1, x);
    node_set_string(tg, n, "mode", "cubic");
    t_err(n, "option 'mode' is \"cubic\"");
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-infer-conv");
    TCase *tc = t_case("conv");
    tcase_add_test(tc, conv2d_sizes);
    tcase_add_test(tc, conv2d_layouts_groups_bias);
    tcase_add_test(tc, conv_transpose2d_sizes);
    tcase_add_test(tc, pool_sizes);
    tcase_add_test(tc, resample2d_sizes);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
