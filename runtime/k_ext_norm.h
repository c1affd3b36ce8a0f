/* k_ext_norm.h - the RMS norm kernel (k_ext_norm.c, shaders/ext_rms_norm.comp) as a building block
 * of other families (the fused projections' prefill, k_fused_prefill.c). */
#ifndef WEBNNC_K_EXT_NORM_H
#define WEBNNC_K_EXT_NORM_H

#include "kernel.h"

/* y = (x (+ skip (+ skipBias))) / rms * scale over rows of `size` elements (x's last dims); skip
 * broadcast over x's outer dims, skip_bias / sum optional (sum: x + skip (+ skipBias)).  NULL =
 * absent.  One dispatch, one workgroup per row. */
int ext_rms_norm_rows(KernelCtx *kc, const Node *n, const KTensor *x, const KTensor *skip, const KTensor *skip_bias,
                      const KTensor *scale, uint64_t size, float eps, const KTensor *y, const KTensor *sum);

#endif
