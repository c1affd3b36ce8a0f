/* test_legalize.c - pass legalize_limits against the built-in Chromium 153 limits (issue 12):
 * uint4 dequantization becomes int4 with shifted values and zero points (or uint8 behind a gather)
 * with identical folded results; an int64 pow is computed in int32 between casts;
 * a rank-7 broadcasting div is computed on flat tensors; the KV-cache scatter with computed indices becomes
 * equal/argMax/gather/where with a bit-identical result, and restore_scatter puts the scatter back;
 * scatters with indices that differ along other axes, ops the target lacks and malformed notes are
 * refused with one line naming the node/operand or the file. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "decompose_test_util.h"
#include "core.h"
#include "impl_limits.h"
#include "legalize.h"
#include "limits_check.h"
#include "pass.h"
#include "test_util.h"

#define SHAPE(...) (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}

static Graph *g;
static ImplLimits *chromium;

static void setup(void) {
    diag_clear();
    dt_seed(12);
    g = graph_new("t");
    chromium = wn_impl_limits_load(NULL);
    ck_assert_msg(chromium != NULL, "%s", diag_message());
}

static void teardown(void) {
    graph_free(g);
    wn_impl_limits_free(chromium);
}

/* Folds g and returns a copy of output 0's bytes (n bytes). */
static void *fold_output(Graph *gr, uint64_t *n) {
    dt_run_pass(gr, "fold_constants");
    const Value *o = gr->outputs[0];
    ck_assert_msg(o->flags & VF_CONST, "output %s did not fold", o->name);
    void *copy = malloc(o->nbytes);
    memcpy(copy, o->data, o->nbytes);
    *n = o->nbytes;
    return copy;
}

/* The folded outputs of ref and gr are the same bytes; frees ref. */
static void assert_same_folded(Graph *ref, Graph *gr) {
    uint64_t nr, nl;
    void *want = fold_output(ref, &nr), *got = fold_output(gr, &nl);
    ck_assert_uint_eq(nl, nr);
    ck_assert(memcmp(got, want, nr) == 0);
    free(want);
    free(got);
    graph_free(ref);
}

/* x[1,2,6,3] with rows from r ([1,1,2,1] computed by an add, so not constant) replaced by upd. */
static Node *kv_scatter(Graph *gr, const double *rows) {
    Value *x = dt_random(gr, "x", DT_F32, SHAPE(1, 2, 6, 3), -1, 1);
    Value *rc = dt_values(gr, "rc", DT_I32, SHAPE(1, 1, 2, 1), rows);
    Value *zero = dt_values(gr, "zero", DT_I32, SHAPE(1), (const double[]){0});
    Node *add = dt_node(gr, OP_ADD, 2, (Value *[]){rc, zero});
    dt_insert(gr, add);
    Node *ex = dt_node(gr, OP_EXPAND, 1, (Value *[]){add->outputs[0]});
    node_set_dims(gr, ex, "newShape", 4, (const Dim[]){dim_static(1), dim_static(2), dim_static(2), dim_static(3)});
    dt_insert(gr, ex);
    Value *upd = dt_random(gr, "upd", DT_F32, SHAPE(1, 2, 2, 3), 5, 9);
    Node *s = dt_node(gr, OP_SCATTER_ELEMENTS, 3, (Value *[]){x, ex->outputs[0], upd});
    node_set_uint(gr, s, "axis", 2);
    dt_insert(gr, s);
    graph_add_output(gr, s->outputs[0]);
    return s;
}

START_TEST(kv_scatter_becomes_where_exactly) {
    const double rows[] = {3, 4};
    kv_scatter(g, rows);
    Graph *ref = graph_new("ref");
    dt_seed(12);
    kv_scatter(ref, rows);
    uint64_t nr, nl;
    void *want = fold_output(ref, &nr);
    ck_assert_int_eq(wn_limits_check_graph(g, chromium), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "operand indices"));
    ck_assert_ptr_nonnull(strstr(diag_message(), "must be a constant"));
    diag_clear();
    ck_assert_msg(pass_legalize_scatter(g, chromium) == 0, "%s", diag_message());
    dt_run_pass(g, "dce");
    ck_assert_int_eq(dt_count_op(g, OP_SCATTER_ELEMENTS), 0);
    ck_assert_int_eq(dt_count_op(g, OP_WHERE), 1);
    ck_assert_msg(wn_limits_check_graph(g, chromium) == 0, "%s", diag_message());
    ck_assert_str_eq(g->outputs[0]->name, ref->outputs[0]->name);
    Graph *back = graph_new("back"); /* the legalized form restored for webnnc's runtime */
    dt_seed(12);
    kv_scatter(back, rows);
    ck_assert_int_eq(pass_legalize_scatter(back, chromium), 0);
    dt_run_pass(back, "restore_scatter");
    ck_assert_int_eq(dt_count_op(back, OP_SCATTER_ELEMENTS), 1);
    ck_assert_int_eq(dt_count_op(back, OP_WHERE), 0);
    void *got = fold_output(g, &nl), *again = fold_output(back, &nl);
    ck_assert_uint_eq(nl, nr);
    ck_assert(memcmp(got, want, nr) == 0);
    ck_assert(memcmp(again, want, nr) == 0);
    free(want);
    free(got);
    free(again);
    graph_free(ref);
    graph_free(back);
}
END_TEST

START_TEST(scatter_with_varying_indices_is_refused) {
    Value *x = dt_random(g, "x", DT_F32, SHAPE(2, 4), -1, 1);
    Value *ic = dt_values(g, "ic", DT_I32, SHAPE(2, 1), (const double[]){1, 2});
    Value *zero = dt_values(g, "zero", DT_I32, SHAPE(1), (const double[]){0});
    Node *add = dt_node(g, OP_ADD, 2, (Value *[]){ic, zero});
    dt_insert(g, add);
    Value *upd = dt_random(g, "upd", DT_F32, SHAPE(2, 1), -1, 1);
    Node *s = dt_node(g, OP_SCATTER_ELEMENTS, 3, (Value *[]){x, add->outputs[0], upd});
    node_set_uint(g, s, "axis", 1);
    dt_insert(g, s);
    graph_add_output(g, s->outputs[0]);
    ck_assert_int_eq(pass_legalize_scatter(g, chromium), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "operand indices"));
    ck_assert_ptr_nonnull(strstr(diag_message(), "cannot be legalized"));
    ck_assert_ptr_null(strchr(diag_message(), '\n'));
}
END_TEST

/* dequantizeLinear(uint4 [4, 6], scale [4, 1], uint4 zero point [4, 1]) */
static Node *dequant_u4(Graph *gr, bool gathered) {
    Value *q = dt_random(gr, "q", DT_U4, SHAPE(4, 6), 0, 15);
    Value *sc = dt_random(gr, "s", DT_F32, SHAPE(4, 1), 0.1, 1);
    Value *zp = dt_random(gr, "zp", DT_U4, SHAPE(4, 1), 0, 15);
    if (gathered) { /* the GatherBlockQuantized form: rows picked by computed indices */
        Value *ic = dt_values(gr, "ic", DT_I32, SHAPE(2), (const double[]){3, 1});
        Value *zero = dt_values(gr, "zero", DT_I32, SHAPE(1), (const double[]){0});
        Node *add = dt_node(gr, OP_ADD, 2, (Value *[]){ic, zero});
        dt_insert(gr, add);
        Node *gq = dt_node(gr, OP_GATHER, 2, (Value *[]){q, add->outputs[0]});
        dt_insert(gr, gq);
        Node *gz = dt_node(gr, OP_GATHER, 2, (Value *[]){zp, add->outputs[0]});
        dt_insert(gr, gz);
        Node *gs = dt_node(gr, OP_GATHER, 2, (Value *[]){sc, add->outputs[0]});
        dt_insert(gr, gs);
        q = gq->outputs[0], zp = gz->outputs[0], sc = gs->outputs[0];
    }
    Node *d = dt_node(gr, OP_DEQUANTIZE_LINEAR, 3, (Value *[]){q, sc, zp});
    dt_insert(gr, d);
    graph_add_output(gr, d->outputs[0]);
    return d;
}

static void check_dequant(bool gathered, DType want_dt) {
    Node *d = dequant_u4(g, gathered);
    Graph *ref = graph_new("ref");
    dt_seed(12);
    dequant_u4(ref, gathered);
    ck_assert_int_eq(wn_limits_check_graph(g, chromium), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "uint4"));
    diag_clear();
    ck_assert_msg(pass_legalize_4bit(g, chromium) == 0, "%s", diag_message());
    ck_assert_int_eq(d->inputs[0]->dtype, want_dt);
    ck_assert_int_eq(d->inputs[2]->dtype, want_dt);
    ck_assert_msg(wn_limits_check_graph(g, chromium) == 0, "%s", diag_message());
    assert_same_folded(ref, g);
}

START_TEST(uint4_weights_become_int4) { check_dequant(false, DT_I4); }
END_TEST

START_TEST(gathered_uint4_becomes_uint8) { check_dequant(true, DT_U8); }
END_TEST

/* pow(int64 [3], int64 [3]): Chromium's pow has no int64 */
static void int64_pow(Graph *gr) {
    Value *a = dt_values(gr, "a", DT_I64, SHAPE(3), (const double[]){2, -3, 7});
    Value *b = dt_values(gr, "b", DT_I64, SHAPE(3), (const double[]){3, 2, 1});
    Value *zero = dt_values(gr, "zero", DT_I64, SHAPE(1), (const double[]){0});
    Node *add = dt_node(gr, OP_ADD, 2, (Value *[]){a, zero});
    dt_insert(gr, add);
    Node *p = dt_node(gr, OP_POW, 2, (Value *[]){add->outputs[0], b});
    dt_insert(gr, p);
    graph_add_output(gr, p->outputs[0]);
}

START_TEST(int64_pow_computed_in_int32) {
    int64_pow(g);
    Graph *ref = graph_new("ref");
    int64_pow(ref);
    ck_assert_int_eq(wn_limits_check_graph(g, chromium), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "int64"));
    diag_clear();
    ck_assert_msg(pass_legalize_int64(g, chromium) == 0, "%s", diag_message());
    ck_assert_int_eq(dt_count_op(g, OP_CAST), 3);
    ck_assert_int_eq(g->outputs[0]->dtype, DT_I64);
    ck_assert_msg(wn_limits_check_graph(g, chromium) == 0, "%s", diag_message());
    uint64_t nr, nl;
    void *want = fold_output(ref, &nr), *got = fold_output(g, &nl);
    ck_assert_uint_eq(nl, nr);
    ck_assert(memcmp(got, want, nr) == 0);
    ck_assert_int_eq(((const int64_t *)got)[1], 9);
    free(want);
    free(got);
    graph_free(ref);
}
END_TEST

/* div of rank 7 (Chromium: 0..5), the divisor broadcast from [2, 1, 2] */
static void div_rank7(Graph *gr) {
    Value *x = dt_random(gr, "x", DT_F32, SHAPE(2, 2, 2, 2, 2, 2, 2), -1, 1);
    Value *y = dt_random(gr, "y", DT_F32, SHAPE(2, 1, 2), 1, 2);
    Node *n = dt_node(gr, OP_DIV, 2, (Value *[]){x, y});
    dt_insert(gr, n);
    graph_add_output(gr, n->outputs[0]);
}

START_TEST(rank7_div_computed_flat) {
    div_rank7(g);
    Graph *ref = graph_new("ref");
    dt_seed(12);
    div_rank7(ref);
    ck_assert_msg(pass_legalize_rank(g, chromium) == 0, "%s", diag_message());
    dt_run_pass(g, "dce");
    ck_assert_int_eq(dt_count_op(g, OP_EXPAND), 1);
    ck_assert_msg(wn_limits_check_graph(g, chromium) == 0, "%s", diag_message());
    ck_assert_int_eq(g->outputs[0]->rank, 7);
    assert_same_folded(ref, g);
}
END_TEST

START_TEST(check_names_op_and_limit) {
    Value *x = dt_random(g, "x", DT_F32, SHAPE(2, 2, 2, 2, 2, 2, 2), -1, 1);
    Node *n = dt_node(g, OP_DIV, 2, (Value *[]){x, x}); /* div: rank 0..5 on Chromium */
    dt_insert(g, n);
    graph_add_output(g, n->outputs[0]);
    ck_assert_int_eq(wn_limits_check_graph(g, chromium), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "operand a"));
    ck_assert_ptr_nonnull(strstr(diag_message(), "rank 7"));
    ck_assert_ptr_nonnull(strstr(diag_message(), "rank 0..5"));
    ImplLimits *none = wn_impl_limits_parse("{\"add\": {\"a\": {\"dataTypes\": [\"float32\"]}}}", 43, "small.json");
    ck_assert_ptr_nonnull(none);
    none->src = "small.json";
    diag_clear();
    ck_assert_int_eq(wn_limits_check_graph(g, none), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "op div is not supported by the target"));
    wn_impl_limits_free(none);
}
END_TEST

START_TEST(notes_are_strict) {
    static const char *bad[][2] = {
        {"[]", "format"}, {"{\"format\": \"x\"}", "format"},
        {"{\"format\": \"webnnc-limits-notes\", \"constantOperands\": 3}", "constantOperands"},
        {"{\"format\": \"webnnc-limits-notes\", \"constantOperands\": [{\"op\": 1}]}", "constantOperands"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        diag_clear();
        ck_assert_int_eq(wn_impl_limits_parse_notes(chromium, bad[i][0], strlen(bad[i][0]), "n.json"), -1);
        ck_assert_msg(strstr(diag_message(), bad[i][1]) && !strncmp(diag_message(), "n.json: ", 8), "%s", diag_message());
    }
    ck_assert(wn_impl_limits_constant_only(chromium, "scatterElements", "indices"));
    ck_assert(!wn_impl_limits_constant_only(chromium, "scatterElements", "updates"));
    diag_clear();
    ck_assert_ptr_null(wn_impl_limits_load("/nonexistent/limits.json"));
    ck_assert(diag_has_error());
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("legalize");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, kv_scatter_becomes_where_exactly);
    tcase_add_test(tc, scatter_with_varying_indices_is_refused);
    tcase_add_test(tc, uint4_weights_become_int4);
    tcase_add_test(tc, gathered_uint4_becomes_uint8);
    tcase_add_test(tc, int64_pow_computed_in_int32);
    tcase_add_test(tc, rank7_div_computed_flat);
    tcase_add_test(tc, check_names_op_and_limit);
    tcase_add_test(tc, notes_are_strict);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(suite()); }
