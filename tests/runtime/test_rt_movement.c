/* test_rt_movement.c - data-movement kernels on the Vulkan runtime: transpose, slice with steps,
 * reverse, expand, tile, concat, split, pad (constant/edge/reflection), gather with negative and
 * out-of-range (clamped) indices; expected values written out by hand. */
#include <string.h>

#include "rt_test_util.h"

static const float X6[6] = {0, 1, 2, 3, 4, 5}; /* [2,3] */

static void run_f32(Graph *g, const void *const *ins, float *out, int n, const float *want) {
    ck_assert_msg(rt_run(g, ins, out, sizeof(float) * (uint64_t)n) == 0, "%s", diag_message());
    for (int i = 0; i < n; i++) ck_assert_msg(out[i] == want[i], "element %d: got %g want %g", i, out[i], want[i]);
    graph_free(g);
}

START_TEST(transpose_2d) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){2, 3});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_TRANSPOSE, 1, x)));
    float out[6];
    run_f32(g, (const void *[]){X6}, out, 6, (float[]){0, 3, 1, 4, 2, 5});
}
END_TEST

START_TEST(slice_steps_and_reverse) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){2, 3});
    Node *n = tu_node(g, OP_SLICE, 1, x);
    node_set_ints(g, n, "starts", 2, (int64_t[]){0, 0});
    node_set_dims(g, n, "sizes", 2, (Dim[]){dim_static(2), dim_static(3)}); /* output ceil(size/stride) */
    node_set_ints(g, n, "strides", 2, (int64_t[]){1, 2});
    Value *s = graph_finish(g, n);
    Node *r = tu_node(g, OP_REVERSE, 1, s);
    node_set_ints(g, r, "axes", 1, (int64_t[]){0});
    graph_add_output(g, graph_finish(g, r));
    float out[4];
    run_f32(g, (const void *[]){X6}, out, 4, (float[]){3, 5, 0, 2});
}
END_TEST

START_TEST(expand_and_tile) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){2, 1});
    Node *e = tu_node(g, OP_EXPAND, 1, x);
    node_set_dims(g, e, "newShape", 2, (Dim[]){dim_static(2), dim_static(3)});
    Value *ex = graph_finish(g, e);
    Node *t = tu_node(g, OP_TILE, 1, ex);
    node_set_ints(g, t, "repetitions", 2, (int64_t[]){2, 1});
    graph_add_output(g, graph_finish(g, t));
    float out[12], xv[2] = {7, 8};
    run_f32(g, (const void *[]){xv}, out, 12, (float[]){7, 7, 7, 8, 8, 8, 7, 7, 7, 8, 8, 8});
}
END_TEST

START_TEST(concat_split) {
    Graph *g = graph_new("t");
    Value *a = tu_input(g, "a", DT_F32, 2, (int64_t[]){2, 3});
    Value *b = tu_input(g, "b", DT_F32, 2, (int64_t[]){2, 1});
    Node *c = tu_node(g, OP_CONCAT, 2, a, b);
    node_set_uint(g, c, "axis", 1);
    Value *cat = graph_finish(g, c);
    Node *sp = tu_node(g, OP_SPLIT, 1, cat);
    node_set_ints(g, sp, "splits", 2, (int64_t[]){1, 3});
    node_set_uint(g, sp, "axis", 1);
    ck_assert_msg(graph_insert_node(g, sp) == 0, "%s", diag_message());
    graph_add_output(g, sp->outputs[1]);
    float out[6], bv[2] = {10, 11};
    run_f32(g, (const void *[]){X6, bv}, out, 6, (float[]){1, 2, 10, 4, 5, 11});
}
END_TEST

static void check_pad(const char *mode, const float *want) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 1, (int64_t[]){3});
    Node *n = tu_node(g, OP_PAD, 1, x);
    node_set_ints(g, n, "beginningPadding", 1, (int64_t[]){2});
    node_set_ints(g, n, "endingPadding", 1, (int64_t[]){2});
    node_set_string(g, n, "mode", mode);
    node_set_float(g, n, "value", 9);
    graph_add_output(g, graph_finish(g, n));
    float out[7], xv[3] = {1, 2, 3};
    run_f32(g, (const void *[]){xv}, out, 7, want);
}

START_TEST(pad_modes) {
    check_pad("constant", (float[]){9, 9, 1, 2, 3, 9, 9});
    check_pad("edge", (float[]){1, 1, 1, 2, 3, 3, 3});
    check_pad("reflection", (float[]){3, 2, 1, 2, 3, 2, 1});
}
END_TEST

START_TEST(gather_clamped) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){2, 3});
    Value *idx = tu_input(g, "i", DT_I64, 1, (int64_t[]){4});
    Node *n = tu_node(g, OP_GATHER, 2, x, idx);
    node_set_uint(g, n, "axis", 1);
    graph_add_output(g, graph_finish(g, n));
    int64_t iv[4] = {-1, 0, 7, -9};
    float out[8];
    /* -1 -> 2, 0, 7 -> clamp 2, -9 -> -6 -> clamp 0 */
    run_f32(g, (const void *[]){X6, iv}, out, 8, (float[]){2, 0, 2, 0, 5, 3, 5, 3});
}
END_TEST

/* uint4 rows (packed two per byte, low nibble first) gathered along axis 0, as the embedding
 * lookup of a decomposed gatherBlockQuantized does. */
START_TEST(gather_uint4_rows) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_U4, 2, (int64_t[]){3, 4});
    Value *idx = tu_input(g, "i", DT_I32, 1, (int64_t[]){2});
    Node *n = tu_node(g, OP_GATHER, 2, x, idx);
    node_set_uint(g, n, "axis", 0);
    graph_add_output(g, graph_finish(g, n));
    /* rows: [1 2 3 4], [5 6 7 8], [9 10 11 12] */
    const uint8_t xv[6] = {0x21, 0x43, 0x65, 0x87, 0xA9, 0xCB};
    const int32_t iv[2] = {2, 0};
    uint8_t out[4] = {0};
    ck_assert_msg(rt_run(g, (const void *[]){xv, iv}, out, sizeof out) == 0, "%s", diag_message());
    const uint8_t want[4] = {0xA9, 0xCB, 0x21, 0x43}; /* rows 2 and 0 */
    ck_assert_mem_eq(out, want, 4);
    graph_free(g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-movement");
    TCase *tc = tcase_create("movement");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, transpose_2d);
    tcase_add_test(tc, slice_steps_and_reverse);
    tcase_add_test(tc, expand_and_tile);
    tcase_add_test(tc, concat_split);
    tcase_add_test(tc, pad_modes);
    tcase_add_test(tc, gather_clamped);
    tcase_add_test(tc, gather_uint4_rows);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
