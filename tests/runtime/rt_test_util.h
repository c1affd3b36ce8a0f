/* rt_test_util.h - fixtures for the runtime tests: one shared Vulkan context (lavapipe in CI),
 * a run-one-graph helper; graphs are built with tu_input/tu_node (test_util.h). */
#ifndef RT_TEST_UTIL_H
#define RT_TEST_UTIL_H

#include <check.h>

#include "core.h"
#include "test_util.h"
#include "webnnc_runtime.h"

extern WnrtContext *rt_ctx;
void rt_setup(void);    /* creates rt_ctx once, clears diagnostics */
void rt_teardown(void);

/* Binds inputs[i] to graph input i of m (static shapes).  Returns 0 or -1 (diag message). */
int rt_bind_inputs(WnrtModel *m, const Graph *g, const void *const *inputs);
/* wnrt_load(rt_ctx, g) with environment variable `name` set to `value` during the load (NULL:
 * unset), unset afterwards: load-time switches such as WEBNNC_NO_FUSE and WEBNNC_REPLAY. */
WnrtModel *rt_load_with_env(Graph *g, const char *name, const char *value);
/* Loads g, binds inputs[i] (graph input order, static shapes), runs, reads output 0 into out.
 * Returns 0 or -1 (diag message available). */
int rt_run(Graph *g, const void *const *inputs, void *out, uint64_t out_bytes);
/* x, y [sequence_length <= 16, 4] -> add(x, y) -> relu x4 -> output: nodes 0 (add) .. 4 (relus). */
Graph *rt_relu_chain(void);
/* Runs cases() for every row-group width of the row mat-vec kernel (shaders/matvec_rows.glsl
 * CLUSTER: WEBNNC_MATVEC_TPR = 2, 4, .. the device's subgroup size), each with the device's rows
 * per group and with 1 and 2 (WEBNNC_MATVEC_ROWS), then unsets both.  GPUs take these for tall
 * weights and short rows; CPU devices never do by default.  Fails the test on a device without
 * subgroup shuffles. */
void rt_each_matvec_tpr(void (*cases)(void));
/* Runs a suite; returns the process exit status. */
int rt_main(Suite *s);

#endif
