/* test_rt_kv.c - KV caches in the runtime (runtime/rt_kv.c): a present written in place by
 * scatterElements shares the past's buffer (stats.kv_aliased); resident caches start zeroed, keep
 * every step's rows between runs without being bound or read back, and reset to zero; a
 * non-resident cache is an ordinary input/output pair; a past read after the scatter is not
 * aliased (results stay right) and cannot be made resident.  Expected values are hand-computed. */
#include <stdlib.h>
#include <string.h>

#include "rt_test_util.h"

#define SH(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}

/* past f32 [1,1,4,2] -> present = scatterElements(past, rows i32 [1,1,1,2], upd f32 [1,1,1,2], axis 2);
 * outputs: sum = reduceSum(present) (all axes), present; with `late_reader` also relu(past) after the
 * scatter, which forbids the aliasing. */
static Graph *cache_graph(bool late_reader) {
    Graph *g = graph_new("kv");
    Value *past = tu_input(g, "past", DT_F32, SH(1, 1, 4, 2));
    Value *rows = tu_input(g, "rows", DT_I32, SH(1, 1, 1, 2));
    Value *upd = tu_input(g, "upd", DT_F32, SH(1, 1, 1, 2));
    Node *n = tu_node(g, OP_SCATTER_ELEMENTS, 3, past, rows, upd);
    node_set_uint(g, n, "axis", 2);
    node_set_output_names(g, n, 1, (const char *[]){"present"});
    Value *present = graph_finish(g, n);
    ck_assert_ptr_nonnull(present);
    Value *sum = graph_finish(g, tu_node(g, OP_REDUCE_SUM, 1, present));
    ck_assert_ptr_nonnull(sum);
    graph_add_output(g, sum);
    graph_add_output(g, present);
    if (late_reader) graph_add_output(g, graph_finish(g, tu_node(g, OP_RELU, 1, past)));
    g->kv = graph_alloc(g, sizeof *g->kv);
    g->kv[0] = (KvBinding){past->name, present->name, 2, 4, NULL};
    g->n_kv = 1;
    return g;
}

/* Binds row r (both lanes) and update (a, b), runs, returns output 0 (the sum). */
static float step(WnrtModel *m, int32_t r, float a, float b) {
    int32_t rows[2] = {r, r};
    float upd[2] = {a, b};
    ck_assert_msg(wnrt_bind_input(m, "rows", rows, sizeof rows, SH(1, 1, 1, 2)) == 0, "%s", diag_message());
    ck_assert_msg(wnrt_bind_input(m, "upd", upd, sizeof upd, SH(1, 1, 1, 2)) == 0, "%s", diag_message());
    ck_assert_msg(wnrt_run(m) == 0, "%s", diag_message());
    float sum = -1;
    ck_assert_msg(wnrt_read_output(m, 0, &sum, sizeof sum) == 0, "%s", diag_message());
    return sum;
}

/* Loads g; asserts how many caches the plan writes in place. */
static WnrtModel *load(Graph *g, int want_aliased) {
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s", diag_message());
    WnrtStats st;
    wnrt_stats(m, &st);
    ck_assert_int_eq(st.kv_aliased, want_aliased);
    return m;
}

/* Output `index` ([1,1,4,2] float32) equals want. */
static void expect_output(WnrtModel *m, int index, const float want[8]) {
    float got[8];
    ck_assert_msg(wnrt_read_output(m, index, got, sizeof got) == 0, "%s", diag_message());
    for (int i = 0; i < 8; i++) ck_assert_float_eq(got[i], want[i]);
}

START_TEST(resident_cache_keeps_rows) {
    Graph *g = cache_graph(false);
    WnrtModel *m = load(g, 1);
    ck_assert_msg(wnrt_kv_resident(m) == 0, "%s", diag_message());
    /* rows 0..3 get (10, 11), (20, 21), (30, 31), (40, 41): running sums 21, 62, 123, 204 */
    ck_assert_float_eq(step(m, 0, 10, 11), 21);
    ck_assert_float_eq(step(m, 1, 20, 21), 62);
    ck_assert_float_eq(step(m, 2, 30, 31), 123);
    ck_assert_float_eq(step(m, 3, 40, 41), 204);
    /* overwrite row 1: 204 - 41 + 5 = 168 */
    ck_assert_float_eq(step(m, 1, 2, 3), 168);
    float dummy[8] = {0};
    diag_clear();
    ck_assert_int_eq(wnrt_bind_input(m, "past", dummy, sizeof dummy, SH(1, 1, 4, 2)), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "kept on the device"));
    diag_clear();
    ck_assert_int_eq(wnrt_read_output(m, 1, dummy, sizeof dummy), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "not read back"));
    diag_clear();
    ck_assert_msg(wnrt_kv_reset(m) == 0, "%s", diag_message());
    ck_assert_float_eq(step(m, 0, 1, 2), 3);
    wnrt_free(m);
    graph_free(g);
}
END_TEST

START_TEST(bound_cache_is_an_input_output_pair) {
    Graph *g = cache_graph(false);
    WnrtModel *m = load(g, 1);
    float past[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int run = 0; run < 2; run++) { /* the bound past wins over the previous run's present */
        ck_assert_msg(wnrt_bind_input(m, "past", past, sizeof past, SH(1, 1, 4, 2)) == 0, "%s", diag_message());
        ck_assert_float_eq(step(m, 2, 100, 200), 1 + 2 + 3 + 4 + 100 + 200 + 7 + 8);
        expect_output(m, 1, (const float[8]){1, 2, 3, 4, 100, 200, 7, 8});
    }
    wnrt_free(m);
    graph_free(g);
}
END_TEST

START_TEST(late_reader_prevents_aliasing) {
    Graph *g = cache_graph(true);
    WnrtModel *m = load(g, 0);
    float past[8] = {-1, 2, -3, 4, -5, 6, -7, 8};
    ck_assert_msg(wnrt_bind_input(m, "past", past, sizeof past, SH(1, 1, 4, 2)) == 0, "%s", diag_message());
    ck_assert_float_eq(step(m, 0, 10, 20), 10 + 20 - 3 + 4 - 5 + 6 - 7 + 8);
    expect_output(m, 2, (const float[8]){0, 2, 0, 4, 0, 6, 0, 8}); /* the past as bound, not the scattered cache */
    wnrt_free(m);
    m = load(g, 0);
    diag_clear();
    ck_assert_int_eq(wnrt_kv_resident(m), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "not written in place"));
    wnrt_free(m);
    graph_free(g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-kv");
    TCase *tc = tcase_create("kv");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_add_test(tc, resident_cache_keeps_rows);
    tcase_add_test(tc, bound_cache_is_an_input_output_pair);
    tcase_add_test(tc, late_reader_prevents_aliasing);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
