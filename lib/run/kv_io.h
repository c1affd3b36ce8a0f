/* kv_io.h - maps ONNX-interface KV-cache tensors (ORT-GenAI's concatenating interface: a past of
 * length P, 0 at prefill, and presents of the total length) onto the graph's fixed-capacity caches
 * (Graph.kv, docs/kv-cache.md) and back, for `webnnc run` and `webnnc generate`. */
#ifndef WEBNNC_KV_IO_H
#define WEBNNC_KV_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

/* The binding whose past (present == false) or present (present == true) is v; NULL if none. */
const KvBinding *run_kv_binding_of(const Graph *g, const Value *v, bool present);

/* Zero-filled cache of `past`'s static shape holding t's rows (shape equal to the past's except
 * P <= C on the binding's axis) at the start of the axis.  Returns malloc'ed bytes and *nbytes, or
 * NULL + diagnostic naming the tensor (rank, dtype, sizes, P > C). */
void *run_kv_expand_past(const KvBinding *b, const Value *past, DType dt, int rank, const int64_t *shape, const void *data,
                     uint64_t *nbytes);

/* Keeps the first `rows` rows of the binding's axis of a cache (shape[axis] == C) in place: data
 * becomes the ONNX-interface present, shape[axis] = rows.  0 or -1 + diagnostic (rows outside 1..C). */
int run_kv_cut_present(const KvBinding *b, DType dt, int rank, int64_t *shape, void *data, int64_t rows);

/* The size the binding's total-length dim has in this step's input shapes (shapes[i] for
 * g->inputs[i]); -1 + diagnostic when no input carries that dim. */
int64_t run_kv_total_length(const Graph *g, const KvBinding *b, int64_t (*shapes)[WN_MAX_RANK]);

#endif
