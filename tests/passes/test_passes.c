/* test_passes.c - Check tests of eval_fold_node (a hand-built shape-computation chain, the size limit),
 * the fold_constants / dce / identity passes and the pass pipeline (pass_find, pass_run_list). */
#include <check.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "pass.h"
#include "test_util.h"

static Value *input(Graph *g, const char *name, DType dt, int rank, const int64_t *shape) {
    Dim d[WN_MAX_RANK];
    for (int i = 0; i < rank; i++) d[i] = dim_static(shape[i]);
    return graph_add_input(g, name, dt, rank, d);
}

static Value *unary(Graph *g, OpId op, Value *x) {
    Node *n = graph_new_node(g, op, NULL);
    node_add_input(g, n, x);
    Value *v = graph_finish(g, n);
    ck_assert_msg(v != NULL, "%s", diag_message());
    return v;
}

static Value *reshape(Graph *g, Value *x, int rank, const int64_t *shape) {
    Node *n = graph_new_node(g, OP_RESHAPE, NULL);
    node_add_input(g, n, x);
    Dim d[WN_MAX_RANK];
    for (int i = 0; i < rank; i++) d[i] = dim_static(shape[i]);
    node_set_dims(g, n, "newShape", rank, d);
    Value *v = graph_finish(g, n);
    ck_assert_msg(v != NULL, "%s", diag_message());
    return v;
}

/* Shape -> Gather -> Reshape -> Concat, as ONNX exporters emit for a Reshape target, all on
 * constants: folds to the constant [7, 32]. */
START_TEST(fold_shape_chain) {
    diag_clear();
    Graph *g = graph_new("t");
    static const int64_t shape_data[3] = {2, 7, 64}, tail[1] = {32};
    static const int32_t index = 1;
    int64_t three = 3, one = 1;
    Value *shape = graph_add_const(g, "shape", DT_I64, 1, &three, shape_data, sizeof shape_data);
    Value *idx = graph_add_const(g, "idx", DT_I32, 0, NULL, &index, sizeof index);
    Value *t = graph_add_const(g, "tail", DT_I64, 1, &one, tail, sizeof tail);
    Node *gather = graph_new_node(g, OP_GATHER, "gather");
    node_add_input(g, gather, shape);
    node_add_input(g, gather, idx);
    Value *seq = graph_finish(g, gather);
    ck_assert_ptr_nonnull(seq);
    ck_assert_int_eq(seq->rank, 0);
    Value *seq1 = reshape(g, seq, 1, &one);
    Node *cat = graph_new_node(g, OP_CONCAT, "concat");
    node_add_input(g, cat, seq1);
    node_add_input(g, cat, t);
    node_set_uint(g, cat, "axis", 0);
    Value *out = graph_finish(g, cat);
    ck_assert_ptr_nonnull(out);
    graph_add_output(g, out);

    ck_assert_int_eq(eval_fold_node(g, gather), 1);
    ck_assert(gather->dead);
    ck_assert(seq->flags & VF_CONST);
    ck_assert_ptr_null(seq->producer);
    ck_assert_int_eq(*(const int64_t *)seq->data, 7);

    const char *names[] = {"fold_constants"};
    ck_assert_int_eq(pass_run_list(g, names, 1, NULL), 0);
    ck_assert_int_eq(graph_node_count(g), 0);
    ck_assert(out->flags & VF_CONST);
    ck_assert_int_eq(out->nbytes, 16);
    const int64_t *r = out->data;
    ck_assert_int_eq(r[0], 7);
    ck_assert_int_eq(r[1], 32);
    ck_assert(out->flags & VF_OUTPUT);
    graph_free(g);
}
END_TEST

START_TEST(fold_skips_non_constant) {
    diag_clear();
    Graph *g = graph_new("t");
    int64_t s = 4;
    Value *x = input(g, "x", DT_F32, 1, &s);
    Value *y = unary(g, OP_RELU, x);
    ck_assert_int_eq(eval_fold_node(g, y->producer), 0);
    ck_assert(!y->producer->dead);
    ck_assert(!(y->flags & VF_CONST));
    graph_free(g);
}
END_TEST

/* Expand of one float to n*1024 floats: folded up to 16 KiB, refused beyond (the operand is only
 * 4 bytes); a 2 MiB transpose is folded because its operand is as large. */
static int fold_expand(int64_t rows) {
    Graph *g = graph_new("t");
    static const float one = 1.5f;
    int64_t s = 1;
    Value *c = graph_add_const(g, "c", DT_F32, 1, &s, &one, sizeof one);
    Node *n = graph_new_node(g, OP_EXPAND, "expand");
    node_add_input(g, n, c);
    Dim d[2] = {dim_static(rows), dim_static(1024)};
    node_set_dims(g, n, "newShape", 2, d);
    Value *v = graph_finish(g, n);
    ck_assert_ptr_nonnull(v);
    int rc = eval_fold_node(g, n);
    if (rc == 1) {
        const float *f = v->data;
        ck_assert(f[0] == 1.5f && f[rows * 1024 - 1] == 1.5f);
        ck_assert_int_eq(v->nbytes, rows * 1024 * 4);
    }
    graph_free(g);
    return rc;
}

START_TEST(fold_size_limit) {
    diag_clear();
    ck_assert_int_eq(fold_expand(4), 1);    /* exactly 16 KiB */
    ck_assert_int_eq(fold_expand(5), 0);    /* just over */
    ck_assert_int_eq(fold_expand(1024), 0); /* 4 MiB */

    Graph *g = graph_new("t");
    int64_t shape[2] = {512, 1024};
    float *data = graph_alloc(g, 512 * 1024 * sizeof(float));
    data[1] = 3.0f; /* element [0][1] -> [1][0] after the transpose */
    Value *c = graph_add_const(g, "w", DT_F32, 2, shape, data, 512 * 1024 * sizeof(float));
    Value *t = unary(g, OP_TRANSPOSE, c);
    ck_assert_int_eq(eval_fold_node(g, t->producer), 1);
    ck_assert(((const float *)t->data)[512] == 3.0f);
    graph_free(g);
}
END_TEST

START_TEST(dce_removes_unused) {
    diag_clear();
    Graph *g = graph_new("t");
    int64_t s = 4;
    Value *x = input(g, "x", DT_F32, 1, &s);
    Value *unused_in = input(g, "unused_input", DT_F32, 1, &s);
    static const float k[4] = {1, 2, 3, 4};
    Value *unused_c = graph_add_const(g, "unused_const", DT_F32, 1, &s, k, sizeof k);
    Value *dead1 = unary(g, OP_RELU, x);
    unary(g, OP_EXP, dead1); /* dead chain of two */
    Value *y = unary(g, OP_NEG, x);
    graph_add_output(g, y);
    const char *names[] = {"dce"};
    ck_assert_int_eq(pass_run_list(g, names, 1, NULL), 0);
    ck_assert_int_eq(g->n_nodes, 1);
    ck_assert_int_eq(g->nodes[0]->op, OP_NEG);
    ck_assert_int_eq(g->n_inputs, 2);
    bool found_input = false, found_const = false;
    for (int i = 0; i < g->n_values; i++) {
        found_input |= g->values[i] == unused_in;
        found_const |= g->values[i] == unused_c;
    }
    ck_assert(found_input);
    ck_assert(!found_const);
    graph_free(g);
}
END_TEST

START_TEST(identity_removal) {
    diag_clear();
    Graph *g = graph_new("t");
    int64_t s[2] = {2, 3};
    Value *x = input(g, "x", DT_F32, 2, s);
    Value *r = reshape(g, x, 2, s);
    Node *tn = graph_new_node(g, OP_TRANSPOSE, NULL);
    node_add_input(g, tn, r);
    static const int64_t perm[2] = {0, 1};
    node_set_ints(g, tn, "permutation", 2, perm);
    Value *t = graph_finish(g, tn);
    Node *cn = graph_new_node(g, OP_CAST, NULL);
    node_add_input(g, cn, t);
    node_set_dtype(g, cn, "to", DT_F32);
    Value *c = graph_finish(g, cn);
    Value *t2 = unary(g, OP_TRANSPOSE, c); /* real transpose: stays */
    Value *y = unary(g, OP_RELU, t2);
    Value *id_out = unary(g, OP_IDENTITY, x); /* produces a graph output: stays */
    graph_add_output(g, y);
    graph_add_output(g, id_out);
    const char *names[] = {"identity"};
    ck_assert_int_eq(pass_run_list(g, names, 1, NULL), 0);
    ck_assert_int_eq(graph_node_count(g), 3);
    ck_assert_ptr_eq(t2->producer->inputs[0], x);
    ck_assert_ptr_eq(y->producer->inputs[0], t2);
    ck_assert_ptr_eq(g->outputs[1], id_out);
    ck_assert_int_eq(graph_verify(g, 0), 0);
    graph_free(g);
}
END_TEST

START_TEST(pipeline_runs_and_rejects) {
    diag_clear();
    ck_assert_ptr_nonnull(pass_find("fold_constants"));
    ck_assert_ptr_nonnull(pass_find("dce"));
    ck_assert_ptr_nonnull(pass_find("identity"));
    ck_assert_ptr_null(pass_find("no_such_pass"));
    ck_assert(strlen(pass_find("dce")->summary) > 0);

    Graph *g = graph_new("t");
    int64_t s = 3;
    static const float k[3] = {-1, 0, 2};
    Value *x = input(g, "x", DT_F32, 1, &s);
    Value *c = graph_add_const(g, "k", DT_F32, 1, &s, k, sizeof k);
    Value *rc = unary(g, OP_RELU, c);     /* folds to [0, 0, 2] */
    Value *idc = unary(g, OP_IDENTITY, x); /* removed */
    Node *add = graph_new_node(g, OP_ADD, NULL);
    node_add_input(g, add, idc);
    node_add_input(g, add, rc);
    Value *y = graph_finish(g, add);
    graph_add_output(g, y);
    const char *names[] = {"fold_constants", "identity", "dce"};
    ck_assert_int_eq(pass_run_list(g, names, 3, NULL), 0);
    ck_assert_int_eq(g->n_nodes, 1);
    ck_assert_ptr_eq(g->nodes[0]->inputs[0], x);
    const float *f = g->nodes[0]->inputs[1]->data;
    ck_assert(f[0] == 0 && f[1] == 0 && f[2] == 2);

    const char *bad[] = {"dce", "no_such_pass"};
    ck_assert_int_eq(pass_run_list(g, bad, 2, NULL), -1);
    ck_assert(strstr(diag_message(), "no_such_pass") != NULL);
    diag_clear();
    graph_free(g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("passes");
    TCase *tc = tcase_create("passes");
    tcase_add_test(tc, fold_shape_chain);
    tcase_add_test(tc, fold_skips_non_constant);
    tcase_add_test(tc, fold_size_limit);
    tcase_add_test(tc, dce_removes_unused);
    tcase_add_test(tc, identity_removal);
    tcase_add_test(tc, pipeline_runs_and_rejects);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
