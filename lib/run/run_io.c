/* run_io.c - binding a run's inputs and reading its outputs in the ONNX KV interface (run_io.h),
 * moved from cli/cmd_run.c so that webnnc_run takes the same tensors as `webnnc run`. */
#include "run_io.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "kv_io.h"

int run_io_init(RunIo *io, const Graph *g) {
    io->g = g;
    io->onnx_kv = false;
    io->shapes = calloc(g->n_inputs > 0 ? (size_t)g->n_inputs : 1, sizeof *io->shapes);
    if (!io->shapes) diag_error("out of memory");
    return io->shapes ? 0 : -1;
}

void run_io_free(RunIo *io) {
    free(io->shapes);
    io->shapes = NULL;
}

int run_io_bind(RunIo *io, WnrtModel *m, int i, int rank, const int64_t *shape, const void *data, uint64_t nbytes) {
    const Value *v = io->g->inputs[i];
    if (rank < 0 || rank > WN_MAX_RANK) {
        diag_error("input %s: rank %d", value_display_name(v), rank);
        return -1;
    }
    const KvBinding *kv = run_kv_binding_of(io->g, v, false);
    void *cache = NULL;
    int64_t bound[WN_MAX_RANK] = {0};
    memcpy(bound, shape, (size_t)rank * sizeof *bound);
    memset(io->shapes[i], 0, sizeof io->shapes[i]);
    memcpy(io->shapes[i], shape, (size_t)rank * sizeof *shape);
    if (kv && rank == v->rank && shape[kv->axis] != kv->capacity) {
        if (!(data = cache = run_kv_expand_past(kv, v, v->dtype, rank, shape, data, &nbytes))) return -1;
        bound[kv->axis] = kv->capacity;
        io->onnx_kv = true;
    }
    int rc = wnrt_bind_input(m, v->name, data, nbytes, rank, bound);
    free(cache);
    return rc < 0 ? -1 : 0;
}

void *run_io_read(const RunIo *io, WnrtModel *m, int i, WnrtTensorInfo *info) {
    void *buf = NULL;
    if (wnrt_output_info(m, i, info) < 0 || !(buf = malloc(info->nbytes ? (size_t)info->nbytes : 1)) ||
        wnrt_read_output(m, i, buf, info->nbytes) < 0) {
        if (!diag_has_error()) diag_error("out of memory");
        free(buf);
        return NULL;
    }
    const KvBinding *kv = io->onnx_kv ? run_kv_binding_of(io->g, io->g->outputs[i], true) : NULL;
    int64_t total = kv ? run_kv_total_length(io->g, kv, io->shapes) : 0;
    if (kv && (total < 0 || run_kv_cut_present(kv, info->dtype, info->rank, info->shape, buf, total) < 0)) {
        free(buf);
        return NULL;
    }
    if (kv) { /* the bytes of the cut present */
        uint64_t numel = 1;
        for (int d = 0; d < info->rank; d++) numel *= (uint64_t)info->shape[d];
        info->nbytes = dtype_storage_bytes(info->dtype, numel);
    }
    return buf;
}
