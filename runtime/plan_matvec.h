/* plan_matvec.h - plan-level rewrites of matmul with a constant right operand into the
 * row-major mat-vec kernel (k_matvec.h), decided at load time (runtime/plan.c calls plan_matvec_rewrite).
 * They change the execution plan (which kernel runs a node, with which re-laid-out constant bytes),
 * never the IR: the graph stays as loaded (graph rewrites are passes, in passes/):
 *
 *   matmul(x, B)                                   B constant float [K, N] (re-laid-out once to
 *                                                  [N, K]) or transpose(constant [N, K])
 *   matmul(x, [transpose|reshape]* (dequantizeLinear(q, scale, zeroPoint)))
 *                                                  q constant (u)int4 / (u)int8 [N, K] or [K, N]
 *                                                  (the latter re-laid-out to [N, K]); scale and
 *                                                  zero point constant, blockwise along K with a
 *                                                  block size that is a multiple of 16; 4-bit
 *                                                  zero points only this product reads go paired
 *                                                  with their float16 scales, one 32-bit word
 *                                                  each, where the float16-pair kernel runs
 *                                                  (k_matvec.h sz_paired)
 *
 * Conditions: x has at most KMV_MAX_M rows (product of its leading dims, upper bounds), B is 2-D,
 * K % 16 == 0, every intermediate value has this matmul as its only consumer and is no graph
 * output, and a constant that is re-laid-out has no other consumer.  The absorbed nodes are not
 * run and get no storage.  WEBNNC_NO_FUSE=1 in the environment disables every rewrite (the
 * generic kernels then run, e.g. for comparisons). */
#ifndef WEBNNC_PLAN_MATVEC_H
#define WEBNNC_PLAN_MATVEC_H

#include "rt_model.h"

/* Transposes a row-major [rows, cols] matrix of `bits`-bit elements (4, 8, 16, 32; 4-bit packed
 * two per byte, low nibble first) into dst ([cols, rows]). */
void plan_transpose_bits(const void *src, void *dst, int bits, int64_t rows, int64_t cols);

#endif
