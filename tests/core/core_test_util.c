/* core_test_util.c - graph fixtures and assertion helpers shared by the lib/core tests. */
#include "core_test_util.h"

#include <stdarg.h>
#include <string.h>

Graph *tg;

void tg_setup(void) {
    diag_clear();
    tg = graph_new("test");
}

void tg_teardown(void) {
    graph_free(tg);
    tg = NULL;
    diag_clear();
}

Value *t_in(DType dt, int rank, const int64_t *shape) { return tu_input(tg, "x", dt, rank, shape); }

Value *t_in_dims(DType dt, int rank, const Dim *shape) { return graph_add_input(tg, "x", dt, rank, shape); }

Node *t_node(OpId op, int n_in, ...) {
    va_list ap;
    va_start(ap, n_in);
    Node *n = tu_node_va(tg, op, n_in, ap);
    va_end(ap);
    return n;
}

void t_out_is(Node *n, int i, DType dt, int rank, const int64_t *shape) {
    ck_assert_int_lt(i, n->n_outputs);
    const Value *v = n->outputs[i];
    ck_assert_str_eq(dtype_name(v->dtype), dtype_name(dt));
    ck_assert_int_eq(v->rank, rank);
    for (int k = 0; k < rank; k++) {
        ck_assert_msg(dim_is_static(v->shape[k]), "output %d dim %d is symbolic", i, k);
        ck_assert_msg(v->shape[k].v == shape[k], "output %d dim %d is %lld, expected %lld", i, k,
                      (long long)v->shape[k].v, (long long)shape[k]);
    }
}

void t_ok(Node *n, DType dt, int rank, const int64_t *shape) {
    int rc = graph_insert_node(tg, n);
    ck_assert_msg(rc == 0, "insert failed: %s", diag_message());
    t_out_is(n, 0, dt, rank, shape);
}

void t_err(Node *n, const char *needle) {
    int rc = graph_insert_node(tg, n);
    ck_assert_msg(rc == -1, "insert of %s unexpectedly succeeded (wanted error containing '%s')", op_name(n->op), needle);
    ck_assert_msg(diag_has_error(), "no diagnostic recorded");
    ck_assert_msg(strstr(diag_message(), needle) != NULL, "diagnostic '%s' lacks '%s'", diag_message(), needle);
    diag_clear();
}

TCase *t_case(const char *name) {
    TCase *tc = tcase_create(name);
    tcase_add_checked_fixture(tc, tg_setup, tg_teardown);
    return tc;
}
