/* kshape.c - shape/stride helpers shared by kernel families (kernel.h): contiguous strides,
 * numpy broadcast strides and dimension collapsing for the strided kernels. */
#include "kernel.h"

void kshape_strides(int rank, const int64_t *shape, int64_t *strides) {
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d];
    }
}

void kshape_broadcast_strides(int out_rank, const int64_t *out_shape, int in_rank, const int64_t *in_shape,
                              int64_t *strides) {
    int64_t own[WN_MAX_RANK];
    kshape_strides(in_rank, in_shape, own);
    for (int d = 0; d < out_rank; d++) {
        int k = d - (out_rank - in_rank);
        strides[d] = (k < 0 || (in_shape[k] == 1 && out_shape[d] != 1)) ? 0 : own[k];
    }
}

uint64_t kshape_numel(int rank, const int64_t *shape) {
    uint64_t n = 1;
    for (int d = 0; d < rank; d++) n *= (uint64_t)shape[d];
    return n;
}

int kshape_collapse(int rank, int64_t *shape, int n_ops, int64_t (*strides)[WN_MAX_RANK]) {
    int out = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1) continue; /* size-1 dims index nothing */
        bool merge = out > 0;
        for (int k = 0; k < n_ops && merge; k++) merge = strides[k][out - 1] == strides[k][d] * shape[d];
        if (merge) {
            shape[out - 1] *= shape[d];
            for (int k = 0; k < n_ops; k++) strides[k][out - 1] = strides[k][d];
        } else {
            shape[out] = shape[d];
            for (int k = 0; k < n_ops; k++) strides[k][out] = strides[k][d];
            out++;
        }
    }
    if (out == 0) {
        shape[0] = 1;
        for (int k = 0; k < n_ops; k++) strides[k][0] = 0;
        out = 1;
    }
    return out;
}
