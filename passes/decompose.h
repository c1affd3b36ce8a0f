/* decompose.h - what the decomposition passes (passes/decompose_*.c) share: a builder context that
 * emits spec-op nodes for one extension-op node, and the driver that runs a builder on every node
 * of one op, splices the new nodes in at the extension node's position (keeping the node list in
 * topological order), rewires the uses, hands over the output names and marks the old node dead. */
#ifndef WEBNNC_DECOMPOSE_H
#define WEBNNC_DECOMPOSE_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

typedef struct {
    Graph *g;
    Node *ext;               /* the extension node being replaced */
    Value *repl[WN_MAX_RANK]; /* replacement of ext->outputs[i] (set with pass_dc_result) */
} Dec;

/* Builds the spec-op subgraph for d->ext and calls pass_dc_result for each output; 0 or -1. */
typedef int (*DecomposeFn)(Dec *d);

/* Runs fn on every live node whose op is `op`; compacts the graph when anything changed. */
int pass_decompose_all(Graph *g, OpId op, DecomposeFn fn);
/* Same for the nodes of `op` that want(g, node, ctx) selects. */
typedef bool (*DecomposeWant)(const Graph *g, const Node *n, const void *ctx);
int pass_decompose_matching(Graph *g, OpId op, DecomposeWant want, const void *ctx, DecomposeFn fn);

/* Records v as the replacement of output `slot` (dtype and shape must match); 0 or -1. */
int pass_dc_result(Dec *d, int slot, Value *v);

/* ---- emitting (every helper returns NULL with a diagnostic after an earlier failure) ---- */
Value *pass_dc_unary(Dec *d, OpId op, Value *x);
Value *pass_dc_binary(Dec *d, OpId op, Value *a, Value *b);
Value *pass_dc_cast(Dec *d, Value *x, DType dt);                 /* no-op when x already has dt */
Value *pass_dc_reshape(Dec *d, Value *x, int rank, const Dim *shape); /* constant -> constant view */
Value *pass_dc_transpose(Dec *d, Value *x, int rank, const int64_t *perm);
Value *pass_dc_slice_last(Dec *d, Value *x, int64_t start, int64_t size); /* slice of the last axis */
Value *pass_dc_concat(Dec *d, int count, Value *const *xs, int axis);
Value *pass_dc_dequantize(Dec *d, Value *q, Value *scale, Value *zero_point);
Value *pass_dc_gather(Dec *d, Value *x, Value *indices, int axis);
Value *pass_dc_reduce_mean(Dec *d, Value *x, int from_axis); /* axes from_axis..rank-1, kept */
Value *pass_dc_expand(Dec *d, Value *x, int rank, const Dim *shape);
Value *pass_dc_slice(Dec *d, Value *x, int axis, int64_t start, int64_t size);
/* Constant of dtype dt (uint8/uint4) and static `shape` unpacked from the `bits`-bit values of the
 * uint8 constant `packed` (low bits first): logical element e comes from packed element
 * (e / row_elems) * row_stride + e % row_elems (rows of packed data may be padded). */
Value *pass_dc_unpack(Dec *d, const Value *packed, int64_t bits, DType dt, int rank, const int64_t *shape,
                 int64_t row_elems, int64_t row_stride);
/* Constant of `shape` filled with value. */
Value *pass_dc_filled(Dec *d, DType dt, int rank, const int64_t *shape, double value);
/* The bytes of constant c seen as dtype dt with `shape` (no copy; c must be large enough). */
Value *pass_dc_view(Dec *d, const Value *c, DType dt, int rank, const int64_t *shape);
/* Rank-0 constant holding x in dtype dt. */
Value *pass_dc_scalar(Dec *d, DType dt, double x);
/* Constant copied into the graph (static shape). */
Value *pass_dc_const(Dec *d, DType dt, int rank, const int64_t *shape, const void *data, uint64_t nbytes);
/* The operand of d->ext at slot i, or NULL when absent. */
Value *pass_dc_in(const Dec *d, int i);
/* Reports "node X (op): MESSAGE" and returns -1. */
int pass_dc_fail(const Dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
