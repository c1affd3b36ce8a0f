/* k_strided.h - launcher of the generic strided N-d shaders (strided.glsl): unary, binary,
 * where, cast and copy.  The caller describes the iteration shape and, per operand, element
 * strides (0 = broadcast, negative = reversed) and the element offset of coordinate 0.  The
 * launcher collapses dims, splits the work over rows of the outermost dim so that every
 * binding stays within maxStorageBufferRange, fills push constants and dispatches. */
#ifndef WEBNNC_K_STRIDED_H
#define WEBNNC_K_STRIDED_H

#include "kernel.h"

#define KS_MAX_OPS 4

typedef struct {
    int rank;
    int64_t shape[WN_MAX_RANK];
    int n_ops;                         /* inputs then the output (the last operand) */
    const KTensor *t[KS_MAX_OPS];
    int64_t stride[KS_MAX_OPS][WN_MAX_RANK];
    int64_t start[KS_MAX_OPS];         /* element offset of coordinate 0 */
    float alpha, beta;
    bool use_extra;    /* kernels with <= 2 operands: extra[] travels in the unused st2 slot */
    int32_t extra[6];
} StridedOp;

/* Operand k with numpy broadcast strides against op->shape (start 0). */
void kstrided_operand(StridedOp *op, int k, const KTensor *t);
/* Operand k = t with its own contiguous strides (t has op->rank dims). */
void kstrided_operand_dense(StridedOp *op, int k, const KTensor *t);
int kstrided_run(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec, StridedOp *op);

#endif
