/* webnn_test_util.h - helpers for the lib/webnn Check tests: scratch folders, whole-file reads,
 * constants with deterministic contents, and the write -> read -> write round-trip assertion. */
#ifndef WEBNNC_WEBNN_TEST_UTIL_H
#define WEBNNC_WEBNN_TEST_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "webnn_io.h"

#define SHAPE(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}

/* A fresh scratch folder under $TMPDIR (or /tmp); malloc'ed path. */
char *tu_tmpdir(void);
/* Removes a scratch folder and everything up to two levels below it. */
void tu_rmtree(const char *dir);
/* "dir/name" in a static rotating buffer. */
const char *tu_path(const char *dir, const char *name);
/* Whole file, NUL-terminated, malloc'ed; NULL if unreadable. */
char *tu_read_file(const char *path, size_t *len);
void tu_write_file(const char *path, const char *text);
bool tu_exists(const char *path);

/* float32 constant whose element i is (i % 13) * scale + offset (arena copy). */
Value *tu_const_f32(Graph *g, const char *name, int rank, const int64_t *shape, float scale, float offset);
/* Any-dtype constant copied from raw IR bytes. */
Value *tu_const_raw(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const void *data, uint64_t nbytes);
Value *tu_input(Graph *g, const char *name, DType dt, int rank, const int64_t *shape);
/* A node with operands (NULL = absent optional); options are set by the caller before tu_finish. */
Node *tu_node(Graph *g, OpId op, int n_in, ...);
/* Inserts, asserting success; returns outputs[0]. */
Value *tu_finish(Graph *g, Node *n);

/* Asserts: JSON(g) == JSON(read(write(g))), and the weights, manifest and text written from the
 * re-read graph are byte-identical to the first ones.  Returns JSON(g) (malloc'ed). */
char *tu_assert_roundtrip(Graph *g);

int tu_run_suite(Suite *s);

#endif
