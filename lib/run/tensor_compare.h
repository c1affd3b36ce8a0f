/* tensor_compare.h - comparing an output tensor with its expected values (used by `webnnc run
 * --expect` and benchmarks): max abs/rel error, cosine similarity, argmax agreement over the last
 * axis, and the pass rule |a - b| <= atol + rtol * |b| per element. */
#ifndef WEBNNC_TENSOR_COMPARE_H
#define WEBNNC_TENSOR_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

typedef struct {
    double max_abs, max_rel, cosine;
    uint64_t failures;      /* elements outside atol + rtol*|b| */
    int64_t argmax_rows;    /* rows compared for argmax (0 = not logits-shaped) */
    int64_t argmax_agree;
} CompareResult;

/* Element i of a tensor as double (IR layout; 4-bit types unsupported -> NAN). */
double run_tensor_elem(DType dt, const void *data, uint64_t i);
/* Compares n elements; last_dim > 1 with a float dtype enables the argmax statistic. */
void run_tensor_compare(DType dt_a, const void *a, DType dt_b, const void *b, uint64_t n, int64_t last_dim, double atol,
                    double rtol, CompareResult *out);

#endif
