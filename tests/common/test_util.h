/* test_util.h - helpers shared by the Check unit tests of every module: running a suite, scratch
 * folders, whole-file reads and writes, and graph inputs/nodes built from literal shapes.  Module
 * helpers (core_test_util.h, rt_test_util.h, webnn_test_util.h, onnx_test_util.h) build on these. */
#ifndef WEBNNC_TEST_UTIL_H
#define WEBNNC_TEST_UTIL_H

#include <check.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

/* Runs every test of s (CK_NORMAL output), frees the runner; returns the process exit status
 * (0 when all passed, 1 otherwise). */
int tu_run_suite(Suite *s);

/* A fresh scratch folder under $TMPDIR (or /tmp); malloc'ed path.  Fails the test when it cannot
 * be made. */
char *tu_tmpdir(void);
/* Removes a scratch folder and everything below it (folders made unreadable or unwritable by a
 * test are opened up first; at most 16 levels). */
void tu_rmtree(const char *dir);
/* A scratch-folder fixture: tu_scratch is a fresh tu_tmpdir() per test (diagnostics cleared),
 * removed in teardown. */
extern char *tu_scratch;
void tu_scratch_setup(void);
void tu_scratch_teardown(void);
/* "dir/name" in a static rotating buffer (four calls may be alive at once). */
const char *tu_path(const char *dir, const char *name);
/* Whole file, NUL-terminated, malloc'ed; NULL if unreadable (or read short).  *len (if len) gets
 * the size. */
char *tu_read_file(const char *path, size_t *len);
/* Writes len bytes (or a text) to path; fails the test on any error. */
void tu_write_bytes(const char *path, const void *data, size_t len);
void tu_write_file(const char *path, const char *text);
bool tu_exists(const char *path);

/* A graph input with a static shape. */
Value *tu_input(Graph *g, const char *name, DType dt, int rank, const int64_t *shape);
/* A node of `op` with n_in operands (Value *, NULL = absent optional), not yet inserted: options
 * are set by the caller, then graph_insert_node. */
Node *tu_node(Graph *g, OpId op, int n_in, ...);
Node *tu_node_va(Graph *g, OpId op, int n_in, va_list operands);

#endif
