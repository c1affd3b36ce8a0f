/* rt_test_util.c - shared fixtures of the runtime tests (rt_test_util.h). */
#include "rt_test_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

WnrtContext *rt_ctx;

void rt_setup(void) {
    diag_clear();
    if (!rt_ctx) {
        rt_ctx = wnrt_create(-1);
        if (!rt_ctx) {
            fprintf(stderr, "runtime tests: no Vulkan device: %s\n", diag_message());
            exit(1); /* a missing device is a failure, never a skip */
        }
    }
}

void rt_teardown(void) { diag_clear(); }

Value *rt_input(Graph *g, const char *name, DType dt, int rank, const int64_t *shape) {
    Dim d[WN_MAX_RANK];
    for (int i = 0; i < rank; i++) d[i] = dim_static(shape[i]);
    return graph_add_input(g, name, dt, rank, d);
}

Node *rt_node(Graph *g, OpId op, int n_in, ...) {
    Node *n = graph_new_node(g, op, NULL);
    va_list ap;
    va_start(ap, n_in);
    for (int i = 0; i < n_in; i++) node_add_input(g, n, va_arg(ap, Value *));
    va_end(ap);
    return n;
}

int rt_run(Graph *g, const void *const *inputs, void *out, uint64_t out_bytes) {
    WnrtModel *m = wnrt_load(rt_ctx, g);
    if (!m) return -1;
    int rc = 0;
    for (int i = 0; i < g->n_inputs && rc == 0; i++) {
        const Value *v = g->inputs[i];
        int64_t shape[WN_MAX_RANK];
        uint64_t n = 1;
        for (int d = 0; d < v->rank; d++) n *= (uint64_t)(shape[d] = v->shape[d].v);
        rc = wnrt_bind_input(m, v->name, inputs[i], dtype_storage_bytes(v->dtype, n), v->rank, shape);
    }
    if (rc == 0) rc = wnrt_run(m);
    if (rc == 0) rc = wnrt_read_output(m, 0, out, out_bytes);
    wnrt_free(m);
    return rc;
}

int rt_main(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (rt_ctx) wnrt_destroy(rt_ctx);
    return failed ? 1 : 0;
}
