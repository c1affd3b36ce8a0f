/* test_names.c - identifier hygiene: sanitizing ONNX names into WebNN identifiers, reserved
 * words, and uniqueness suffixes within a graph. */
#include <string.h>

#include "core_test_util.h"

START_TEST(sanitizes) {
    ck_assert_str_eq(graph_unique_name(tg, "model.layers.0/attn:q"), "model_layers_0_attn_q");
    ck_assert_str_eq(graph_unique_name(tg, "1st"), "_1st");
    ck_assert_str_eq(graph_unique_name(tg, ""), "_");
    ck_assert_str_eq(graph_unique_name(tg, NULL), "__1"); /* "_" is taken: suffix "_1" */
    ck_assert_str_eq(graph_unique_name(tg, "true"), "true_");
    ck_assert_str_eq(graph_unique_name(tg, "dyn"), "dyn_");
}
END_TEST

START_TEST(unique_suffixes) {
    ck_assert_str_eq(graph_unique_name(tg, "x"), "x");
    ck_assert_str_eq(graph_unique_name(tg, "x"), "x_1");
    ck_assert_str_eq(graph_unique_name(tg, "x"), "x_2");
    /* "a.b" and "a/b" sanitize to the same identifier and must still differ. */
    ck_assert_str_eq(graph_unique_name(tg, "a.b"), "a_b");
    ck_assert_str_eq(graph_unique_name(tg, "a/b"), "a_b_1");
}
END_TEST

START_TEST(long_names_truncated) {
    char big[1000];
    memset(big, 'n', sizeof big - 1);
    big[sizeof big - 1] = 0;
    const char *a = graph_unique_name(tg, big), *b = graph_unique_name(tg, big);
    ck_assert_int_eq((int)strlen(a), 200);
    ck_assert_str_ne(a, b);
}
END_TEST

START_TEST(values_get_unique_names) {
    Dim d = dim_static(2);
    Value *a = graph_add_input(tg, "in", DT_F32, 1, &d), *b = graph_add_input(tg, "in", DT_F32, 1, &d);
    ck_assert_str_eq(a->name, "in");
    ck_assert_str_eq(b->name, "in_1");
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-names");
    TCase *tc = t_case("names");
    tcase_add_test(tc, sanitizes);
    tcase_add_test(tc, unique_suffixes);
    tcase_add_test(tc, long_names_truncated);
    tcase_add_test(tc, values_get_unique_names);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
