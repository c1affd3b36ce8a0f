/* rt_test_util.c - shared fixtures of the runtime tests (rt_test_util.h). */
#include "rt_test_util.h"

#include <stdio.h>
#include <stdlib.h>

WnrtContext *rt_ctx;

static void rt_destroy_ctx(void) {
    if (rt_ctx) wnrt_destroy(rt_ctx);
    rt_ctx = NULL;
}

void rt_setup(void) {
    diag_clear();
    if (!rt_ctx) {
        rt_ctx = wnrt_create(-1);
        if (!rt_ctx) {
            fprintf(stderr, "runtime tests: no Vulkan device: %s\n", diag_message());
            exit(1); /* a missing device is a failure, never a skip */
        }
        /* Check forks a child per test (CK_FORK): the context is then made in the child, which
         * ends with exit(), so it is destroyed there too (else LeakSanitizer reports the driver's
         * objects).  Without fork this runs after rt_main has already destroyed it: a no-op. */
        atexit(rt_destroy_ctx);
        /* a run that asks for a subgroup width (tests/runtime/meson.build: lavapipe's 16 lanes) fails
         * where the device gives another, rather than testing the default width again */
        const char *want = getenv("WEBNNC_TEST_SUBGROUP_SIZE");
        uint32_t got = wnrt_context_device(rt_ctx)->subgroup_size;
        if (want && strtoul(want, NULL, 10) != got) {
            fprintf(stderr, "runtime tests: subgroups of %s lanes asked for, the device has %u\n", want, got);
            exit(1);
        }
    }
}

void rt_teardown(void) { diag_clear(); }

int rt_bind_inputs(WnrtModel *m, const Graph *g, const void *const *inputs) {
    int rc = 0;
    for (int i = 0; i < g->n_inputs && rc == 0; i++) {
        const Value *v = g->inputs[i];
        int64_t shape[WN_MAX_RANK];
        uint64_t n = 1;
        for (int d = 0; d < v->rank; d++) n *= (uint64_t)(shape[d] = v->shape[d].v);
        rc = wnrt_bind_input(m, v->name, inputs[i], dtype_storage_bytes(v->dtype, n), v->rank, shape);
    }
    return rc;
}

int rt_run(Graph *g, const void *const *inputs, void *out, uint64_t out_bytes) {
    WnrtModel *m = wnrt_load(rt_ctx, g);
    if (!m) return -1;
    int rc = rt_bind_inputs(m, g, inputs);
    if (rc == 0) rc = wnrt_run(m);
    if (rc == 0) rc = wnrt_read_output(m, 0, out, out_bytes);
    wnrt_free(m);
    return rc;
}

WnrtModel *rt_load_with_env(Graph *g, const char *name, const char *value) {
    if (value) setenv(name, value, 1);
    else unsetenv(name);
    WnrtModel *m = wnrt_load(rt_ctx, g);
    unsetenv(name);
    return m;
}

void rt_each_matvec_tpr(void (*cases)(void)) {
    const WnrtDeviceInfo *d = wnrt_context_device(rt_ctx);
    ck_assert_msg(d->subgroup_shuffle && d->subgroup_size >= 2,
                  "the device has no subgroup shuffles: the mat-vec row groups cannot be tested");
    static const char *rows[] = {NULL, "1", "2"}; /* the device's choice (CPU: 4), and the GPU's 1 and 2 */
    for (uint32_t tpr = 2; tpr <= d->subgroup_size; tpr *= 2) {
        char v[16];
        snprintf(v, sizeof v, "%u", tpr);
        setenv("WEBNNC_MATVEC_TPR", v, 1);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            if (rows[r]) setenv("WEBNNC_MATVEC_ROWS", rows[r], 1);
            cases();
            unsetenv("WEBNNC_MATVEC_ROWS");
        }
    }
    unsetenv("WEBNNC_MATVEC_TPR");
}

int rt_main(Suite *s) {
    int rc = tu_run_suite(s);
    rt_destroy_ctx();
    return rc;
}

Graph *rt_relu_chain(void) {

    Graph *g = graph_new("t");
    Dim shape[2] = {dim_symbol(g, "sequence_length", 16), dim_static(4)};
    Value *x = graph_add_input(g, "x", DT_F32, 2, shape);
    Value *y = graph_add_input(g, "y", DT_F32, 2, shape);
    Value *v = graph_finish(g, tu_node(g, OP_ADD, 2, x, y));
    for (int i = 0; i < 4; i++) v = graph_finish(g, tu_node(g, OP_RELU, 1, v));
    graph_add_output(g, v);
    return g;
}
