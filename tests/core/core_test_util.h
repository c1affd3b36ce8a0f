/* core_test_util.h - helpers for the lib/core Check tests: graph fixtures, building nodes from
 * literal shapes, and asserting inferred types or diagnostics. */
#ifndef WEBNNC_CORE_TEST_UTIL_H
#define WEBNNC_CORE_TEST_UTIL_H

#include <check.h>
#include <stdint.h>

#include "core.h"
#include "test_util.h"

/* Literal shape argument: S(2, 3, 4) expands to a count and an int64_t array. */
#define S(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}
#define S0 0, (int64_t[]){0}

/* A fresh graph per test (tg), freed in teardown; diagnostics cleared. */
extern Graph *tg;
void tg_setup(void);
void tg_teardown(void);

Value *t_in(DType dt, int rank, const int64_t *shape);
Value *t_in_dims(DType dt, int rank, const Dim *shape);
/* A node of `op` with the given operands (NULL = absent optional). */
Node *t_node(OpId op, int n_in, ...);
/* Inserts n; asserts success and that output `i` has dtype dt and the given static shape. */
void t_ok(Node *n, DType dt, int rank, const int64_t *shape);
void t_out_is(Node *n, int i, DType dt, int rank, const int64_t *shape);
/* Inserts n; asserts failure with a diagnostic containing `needle`. */
void t_err(Node *n, const char *needle);

/* A test case with the tg fixture (suites run with tu_run_suite, test_util.h). */
TCase *t_case(const char *name);

#endif
