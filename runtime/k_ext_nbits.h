/* k_ext_nbits.h - the matmulNBits kernel (k_ext_nbits.c) as a building block: y = a . dequant(b)^T
 * (+ bias) straight from ORT's packed layout, mat-vec for few activation rows, tiled GEMM for many.
 * Used by the matmulNBits family and meant for the fused projections (gatedMlp, qkvProjection). */
#ifndef WEBNNC_K_EXT_NBITS_H
#define WEBNNC_K_EXT_NBITS_H

#include "ext_ops.h"
#include "kernel.h"

/* Load-time check of the operands of a matmulNBits-shaped product: activation dtype act (f32/f16),
 * scales of act, zero points absent / uint8 / act, bias absent / act. */
int ext_nbits_check(KernelCtx *kc, const Node *n, DType act, const Value *zp);
/* Records y [M, N] = a [M, K] . dequant(b)^T + bias for geometry geo; zp / bias NULL when absent. */
int ext_nbits_record(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *a, const KTensor *b,
                     const KTensor *scales, const KTensor *zp, const KTensor *bias, const KTensor *y);

#endif
