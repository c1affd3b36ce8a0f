/* rt_test_util.h - fixtures for the runtime tests: one shared Vulkan context (lavapipe in CI),
 * graph building shortcuts and a run-one-graph helper. */
#ifndef RT_TEST_UTIL_H
#define RT_TEST_UTIL_H

#include <check.h>

#include "diag.h"
#include "ir.h"
#include "webnnc_runtime.h"

extern WnrtContext *rt_ctx;
void rt_setup(void);    /* creates rt_ctx once, clears diagnostics */
void rt_teardown(void);

Value *rt_input(Graph *g, const char *name, DType dt, int rank, const int64_t *shape);
Node *rt_node(Graph *g, OpId op, int n_in, ...);
/* Loads g, binds inputs[i] (graph input order, static shapes), runs, reads output 0 into out.
 * Returns 0 or -1 (diag message available). */
int rt_run(Graph *g, const void *const *inputs, void *out, uint64_t out_bytes);
/* Runs a suite; returns the process exit status. */
int rt_main(Suite *s);

#endif
