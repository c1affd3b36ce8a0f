/* test_dims.c - symbolic dimensions: static folding, named symbols and bounds, hash-consing of
 * expressions (equal expressions are equal Dims), formatting, evaluation. */
#include "core_test_util.h"

START_TEST(static_folding) {
    ck_assert(dim_equal(dim_add(tg, dim_static(3), dim_static(4)), dim_static(7)));
    ck_assert(dim_equal(dim_sub(tg, dim_static(9), dim_static(4)), dim_static(5)));
    ck_assert(dim_equal(dim_mul(tg, dim_static(6), dim_static(7)), dim_static(42)));
    ck_assert(dim_equal(dim_div(tg, dim_static(7), dim_static(2)), dim_static(3)));
    ck_assert(!dim_equal(dim_static(3), dim_static(4)));
}
END_TEST

START_TEST(symbols_are_interned) {
    Dim a = dim_symbol(tg, "seq", 128), a2 = dim_symbol(tg, "seq", 0), b = dim_symbol(tg, "past", 64);
    ck_assert(!dim_is_static(a));
    ck_assert(dim_equal(a, a2));
    ck_assert(!dim_equal(a, b));
    ck_assert_int_eq(a.v, 128);
    ck_assert_int_eq(dim_max(b), 64);
    ck_assert_str_eq(dim_symbol_name(tg, a), "seq");
    ck_assert_ptr_null(dim_symbol_name(tg, dim_static(5)));
    /* A smaller bound given later tightens the symbol. */
    ck_assert_int_eq(dim_symbol(tg, "seq", 100).v, 100);
}
END_TEST

START_TEST(expressions_hash_consed) {
    Dim p = dim_symbol(tg, "past", 64), s = dim_symbol(tg, "seq", 128);
    Dim ps = dim_add(tg, p, s), sp = dim_add(tg, s, p);
    ck_assert(dim_equal(ps, sp)); /* commutative forms share one expression */
    ck_assert(dim_equal(dim_mul(tg, p, s), dim_mul(tg, s, p)));
    ck_assert(!dim_equal(ps, dim_mul(tg, p, s)));
    ck_assert(!dim_equal(dim_sub(tg, p, s), dim_sub(tg, s, p)));
    ck_assert_int_eq(ps.v, 64 + 128);
    ck_assert_int_eq(dim_mul(tg, p, dim_static(4)).v, 256);
    ck_assert_ptr_null(dim_symbol_name(tg, ps));
    int before = tg->n_exprs;
    dim_add(tg, p, s);
    ck_assert_int_eq(tg->n_exprs, before);
}
END_TEST

START_TEST(identities) {
    Dim s = dim_symbol(tg, "seq", 128);
    ck_assert(dim_equal(dim_add(tg, s, dim_static(0)), s));
    ck_assert(dim_equal(dim_mul(tg, dim_static(1), s), s));
    ck_assert(dim_equal(dim_sub(tg, s, s), dim_static(0)));
    ck_assert(dim_equal(dim_div(tg, s, s), dim_static(1)));
    ck_assert(dim_equal(dim_div(tg, s, dim_static(1)), s));
}
END_TEST

START_TEST(format_and_eval) {
    Dim p = dim_symbol(tg, "past", 64), s = dim_symbol(tg, "seq", 128);
    char buf[64];
    ck_assert_str_eq(dim_format(tg, dim_static(8), buf, sizeof buf), "8");
    ck_assert_str_eq(dim_format(tg, s, buf, sizeof buf), "seq");
    ck_assert_str_eq(dim_format(tg, dim_add(tg, p, s), buf, sizeof buf), "(past+seq)");
    int64_t vals[2] = {10, 3}; /* past = 10, seq = 3 */
    ck_assert_int_eq(dim_eval(tg, dim_add(tg, p, s), vals), 13);
    ck_assert_int_eq(dim_eval(tg, dim_sub(tg, p, s), vals), 7);
    ck_assert_int_eq(dim_eval(tg, dim_mul(tg, p, dim_static(3)), vals), 30);
    ck_assert_int_eq(dim_eval(tg, dim_div(tg, p, s), vals), 3);
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-dims");
    TCase *tc = t_case("dims");
    tcase_add_test(tc, static_folding);
    tcase_add_test(tc, symbols_are_interned);
    tcase_add_test(tc, expressions_hash_consed);
    tcase_add_test(tc, identities);
    tcase_add_test(tc, format_and_eval);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
