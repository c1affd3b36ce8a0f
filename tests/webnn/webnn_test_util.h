/* webnn_test_util.h - helpers for the lib/webnn Check tests: constants with deterministic
 * contents and the write -> read -> write round-trip assertion (scratch folders, files, inputs and
 * nodes: test_util.h). */
#ifndef WEBNNC_WEBNN_TEST_UTIL_H
#define WEBNNC_WEBNN_TEST_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "test_util.h"
#include "webnn_io.h"

#define SHAPE(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}

/* float32 constant whose element i is (i % 13) * scale + offset (arena copy). */
Value *tu_const_f32(Graph *g, const char *name, int rank, const int64_t *shape, float scale, float offset);
/* Any-dtype constant copied from raw IR bytes. */
Value *tu_const_raw(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const void *data, uint64_t nbytes);
/* Inserts a node from tu_node (test_util.h), asserting success; returns outputs[0]. */
Value *tu_finish(Graph *g, Node *n);

/* Asserts: JSON(g) == JSON(read(write(g))), and the weights, manifest and text written from the
 * re-read graph are byte-identical to the first ones; the text form (model.webnn) read back gives
 * the same text.  Returns JSON(g) (malloc'ed). */
char *tu_assert_roundtrip(Graph *g);

#endif
