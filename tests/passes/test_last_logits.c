/* test_last_logits.c - pass last_logits: the head of a decoder computed for the last position only.
 * A matmul head followed by soft-capping (mul, tanh, mul) gives, after the pass, exactly the last
 * row of what the whole graph gives, as logits [1, 1, vocab] with one gather in front of the head;
 * graphs where the rows do not stay rows up to `logits` (a transpose on the way, a head whose
 * weights are computed, no output named logits) are left unchanged. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "decompose_test_util.h"
#include "core.h"
#include "pass.h"
#include "test_util.h"

#define SHAPE(...) (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}
enum { ROWS = 5, HIDDEN = 4, VOCAB = 6 };

static Value *emit(Graph *g, OpId op, int count, Value *const *ins) {
    Node *n = dt_node(g, op, count, ins);
    dt_insert(g, n);
    return n->outputs[0];
}

/* x[1, ROWS, HIDDEN] . w[HIDDEN, VOCAB] (w computed when computed_w), * 0.5, tanh, * 3, named out_name;
 * transposed: a transpose of the rows and vocabulary axes before the soft-capping. */
static Graph *decoder_tail(const char *out_name, bool computed_w, bool transposed) {
    dt_seed(7);
    Graph *g = graph_new("t");
    Value *x = dt_random(g, "x", DT_F32, SHAPE(1, ROWS, HIDDEN), -1, 1);
    Value *w = dt_random(g, "w", DT_F32, SHAPE(HIDDEN, VOCAB), -1, 1);
    if (computed_w) w = emit(g, OP_NEG, 1, &w);
    Value *y = emit(g, OP_MATMUL, 2, (Value *[]){x, w});
    if (transposed) {
        Node *t = graph_new_node(g, OP_TRANSPOSE, NULL);
        node_add_input(g, t, y);
        node_set_ints(g, t, "permutation", 3, (const int64_t[]){0, 2, 1});
        dt_insert(g, t);
        y = t->outputs[0];
    }
    Value *half = dt_values(g, "half", DT_F32, SHAPE(1), (const double[]){0.5});
    Value *three = dt_values(g, "three", DT_F32, 0, NULL, (const double[]){3});
    y = emit(g, OP_MUL, 2, (Value *[]){y, half});
    y = emit(g, OP_TANH, 1, &y);
    Node *cap = graph_new_node(g, OP_MUL, NULL);
    node_add_input(g, cap, three);
    node_add_input(g, cap, y);
    node_set_output_names(g, cap, 1, (const char *const[]){out_name});
    dt_insert(g, cap);
    graph_add_output(g, cap->outputs[0]);
    return g;
}

/* Folds g and returns its only output (constant). */
static const Value *folded_output(Graph *g) {
    dt_run_pass(g, "fold_constants");
    ck_assert_msg(g->outputs[0]->flags & VF_CONST, "output did not fold");
    return g->outputs[0];
}

START_TEST(head_runs_on_the_last_row) {
    Graph *whole = decoder_tail("logits", false, false), *last = decoder_tail("logits", false, false);
    int nodes = graph_node_count(last);
    dt_run_pass(last, "last_logits");
    ck_assert_int_eq(graph_node_count(last), nodes + 1);
    ck_assert_int_eq(dt_count_op(last, OP_GATHER), 1);
    ck_assert_msg(graph_verify(last, 0) == 0, "%s", diag_message());
    const Value *lo = last->outputs[0];
    ck_assert_str_eq(lo->name, "logits");
    ck_assert_int_eq(lo->rank, 3);
    ck_assert_int_eq(lo->shape[1].v, 1);
    ck_assert_int_eq(lo->shape[2].v, VOCAB);
    const Value *wo = folded_output(whole);
    lo = folded_output(last);
    ck_assert_uint_eq(lo->nbytes, sizeof(float) * VOCAB);
    ck_assert_int_eq(memcmp(lo->data, (const float *)wo->data + (ROWS - 1) * VOCAB, lo->nbytes), 0);
    graph_free(whole);
    graph_free(last);
}
END_TEST

static void check_unchanged(const char *name, bool computed_w, bool transposed) {
    Graph *g = decoder_tail(name, computed_w, transposed);
    int nodes = graph_node_count(g);
    dt_run_pass(g, "last_logits");
    ck_assert_int_eq(graph_node_count(g), nodes);
    ck_assert_int_eq(dt_count_op(g, OP_GATHER), 0);
    graph_free(g);
}

START_TEST(other_outputs_are_left_alone) { check_unchanged("hidden_states", false, false); }
END_TEST
START_TEST(computed_head_weights_are_left_alone) { check_unchanged("logits", true, false); }
END_TEST
START_TEST(rows_mixed_on_the_way_are_left_alone) { check_unchanged("logits", false, true); }
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("last_logits");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, diag_clear, NULL);
    tcase_add_test(tc, head_runs_on_the_last_row);
    tcase_add_test(tc, other_outputs_are_left_alone);
    tcase_add_test(tc, computed_head_weights_are_left_alone);
    tcase_add_test(tc, rows_mixed_on_the_way_are_left_alone);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(suite()); }
