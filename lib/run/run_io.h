/* run_io.h - one run's inputs and outputs in the ONNX interface (run_io.c), shared by `webnnc run`
 * and webnnc_run: dynamic dims are bound at the given sizes; a KV-cache past given in the ONNX
 * interface ([.., P, ..] with P < capacity, P = 0 at prefill) fills the first P rows of a zeroed
 * cache (kv_io.h), and then every present comes back cut to the step's total length (the size of
 * the binding's total-length dim in the bound inputs, i.e. the attention_mask width).  A past
 * given at the capacity is bound as it is and the presents come back at the capacity. */
#ifndef WEBNNC_RUN_IO_H
#define WEBNNC_RUN_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "webnnc_runtime.h"

typedef struct {
    const Graph *g;
    int64_t (*shapes)[WN_MAX_RANK]; /* per graph input: the shape last bound (as given) */
    bool onnx_kv;                   /* a past came in the ONNX interface: presents are cut */
} RunIo;

/* 0, or -1 + diagnostic (out of memory). */
int run_io_init(RunIo *io, const Graph *g);
void run_io_free(RunIo *io);
/* Binds graph input i (its dtype already checked by the caller) from a dense tensor of the given
 * rank / shape; a past in the ONNX KV interface is expanded to the cache capacity.  0, or -1 +
 * diagnostic. */
int run_io_bind(RunIo *io, WnrtModel *m, int i, int rank, const int64_t *shape, const void *data, uint64_t nbytes);
/* Output i of the last run read back into a malloc'ed buffer (free it), *info its facts; a present
 * is cut to the total length when io->onnx_kv (info's shape and nbytes then those of the cut).  NULL + diagnostic on failure. */
void *run_io_read(const RunIo *io, WnrtModel *m, int i, WnrtTensorInfo *info);

#endif
