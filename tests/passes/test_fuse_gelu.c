/* test_fuse_gelu.c - pass fuse_gelu: the erf GELU 0.5 x (1 + erf(x / sqrt(2))) in the three
 * groupings torch and hand-written models use, x / sqrt(2) or x * (1 / sqrt(2)), constants on either
 * side and rounded to float16, becomes one spec gelu whose evaluation equals the chain's; a wrong
 * constant, an interior value read elsewhere and a product with another tensor stay as they are. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "decompose_test_util.h"
#include "core.h"
#include "pass.h"
#include "test_util.h"

enum { HALF_X_FIRST, HALF_LAST, HALF_OF_SUM, F16_CONSTS, WRONG_CONST, INTERIOR_LEAK, OTHER_TENSOR };

static Value *bin(Graph *g, OpId op, Value *a, Value *b) {
    Node *n = dt_node(g, op, 2, (Value *[]){a, b});
    dt_insert(g, n);
    return n->outputs[0];
}

static Value *scalar(Graph *g, double v) { return dt_values(g, "c", DT_F32, 0, NULL, &v); }

/* y = gelu(x) written out in `form`; x is [2, 5] of random values in [-3, 3]. */
static Graph *gelu_graph(int form) {
    Graph *g = graph_new("gelu");
    dt_seed(5);
    Value *x = dt_random(g, "x", DT_F32, 2, (const int64_t[]){2, 5}, -3, 3);
    Value *y = dt_random(g, "y", DT_F32, 2, (const int64_t[]){2, 5}, -3, 3);
    bool f16 = form == F16_CONSTS;
    double root2 = f16 ? 1.4140625 : form == WRONG_CONST ? 2.0 : sqrt(2.0), inv = f16 ? 0.70703125 : sqrt(0.5);
    Value *scaled = form == HALF_LAST || f16 ? bin(g, OP_MUL, scalar(g, inv), x) : bin(g, OP_DIV, x, scalar(g, root2));
    Node *erf = dt_node(g, OP_ERF, 1, &scaled);
    dt_insert(g, erf);
    Value *e = erf->outputs[0];
    Value *plus = form == HALF_LAST ? bin(g, OP_ADD, scalar(g, 1), e) : bin(g, OP_ADD, e, scalar(g, 1));
    Value *out;
    if (form == HALF_LAST || form == F16_CONSTS) /* 0.5 * (x * (1 + erf)) */
        out = bin(g, OP_MUL, scalar(g, 0.5), bin(g, OP_MUL, x, plus));
    else if (form == HALF_OF_SUM) /* x * (0.5 * (1 + erf)) */
        out = bin(g, OP_MUL, x, bin(g, OP_MUL, plus, scalar(g, 0.5)));
    else /* (0.5 x) * (1 + erf) */
        out = bin(g, OP_MUL, bin(g, OP_MUL, x, scalar(g, 0.5)), form == OTHER_TENSOR ? bin(g, OP_ADD, plus, y) : plus);
    graph_add_output(g, out);
    if (form == INTERIOR_LEAK) graph_add_output(g, e);
    return g;
}

static void check_fuses(int form) {
    Graph *ref = gelu_graph(form), *g = gelu_graph(form);
    dt_run_pass(g, "fuse_gelu");
    ck_assert_int_eq(dt_count_op(g, OP_GELU), 1);
    ck_assert_int_eq(dt_count_op(g, OP_ERF), 0);
    ck_assert_int_eq(graph_node_count(g), 1);
    dt_run_pass(ref, "fold_constants");
    dt_run_pass(g, "fold_constants");
    const float *want = ref->outputs[0]->data, *got = g->outputs[0]->data;
    ck_assert_ptr_nonnull(want);
    ck_assert_ptr_nonnull(got);
    for (int i = 0; i < 10; i++) /* float16-rounded constants move the chain by ~1e-4 */
        ck_assert_msg(fabsf(got[i] - want[i]) <= (form == F16_CONSTS ? 1e-3f : 1e-6f), "element %d: %g vs %g", i, got[i],
                      want[i]);
    graph_free(ref);
    graph_free(g);
}

static void check_stays(int form) {
    Graph *g = gelu_graph(form);
    int nodes = graph_node_count(g);
    dt_run_pass(g, "fuse_gelu");
    ck_assert_int_eq(graph_node_count(g), nodes);
    ck_assert_int_eq(dt_count_op(g, OP_GELU), 0);
    graph_free(g);
}

START_TEST(half_times_x_first) { check_fuses(HALF_X_FIRST); }
END_TEST
START_TEST(half_applied_last) { check_fuses(HALF_LAST); }
END_TEST
START_TEST(half_of_the_sum) { check_fuses(HALF_OF_SUM); }
END_TEST
START_TEST(float16_constants) { check_fuses(F16_CONSTS); }
END_TEST
START_TEST(wrong_constant_stays) { check_stays(WRONG_CONST); }
END_TEST
START_TEST(interior_read_elsewhere_stays) { check_stays(INTERIOR_LEAK); }
END_TEST
START_TEST(product_with_another_tensor_stays) { check_stays(OTHER_TENSOR); }
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("fuse_gelu");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, diag_clear, NULL);
    tcase_add_test(tc, half_times_x_first);
    tcase_add_test(tc, half_applied_last);
    tcase_add_test(tc, half_of_the_sum);
    tcase_add_test(tc, float16_constants);
    tcase_add_test(tc, wrong_constant_stays);
    tcase_add_test(tc, interior_read_elsewhere_stays);
    tcase_add_test(tc, product_with_another_tensor_stays);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(suite()); }
