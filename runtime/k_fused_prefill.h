/* k_fused_prefill.h - the composed prefill of the quantized fused projections (k_fused_prefill.c:
 * norm into scratch, matmulNBits GEMM per split, gatedMlp's GEMM with its epilogue) for k_fused.c. */
#ifndef WEBNNC_K_FUSED_PREFILL_H
#define WEBNNC_K_FUSED_PREFILL_H

#include "core.h"
#include "kernel.h"

/* gatedMlp's activation (GATE_*, validated by shape inference) as the shaders' flag / spec value
 * (0 for qkvProjection). */
uint32_t ext_fused_gate_act(const Node *n);
/* Load time: checks its shaders and reserves the scratch storage for the node's largest row count
 * (qkv splits / gatedMlp from fused_splits); min_m: the fewest rows the caller records with it.
 * 0, or -1 (diagnostic). */
int ext_fused_prefill_check(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const int64_t *splits, int n_splits,
                            uint64_t min_m);
/* Records the node: 1 recorded, 0 it does not apply (WEBNNC_FUSED_PREFILL=tile, or the scratch
 * storage is too small: the caller runs the tile kernel), -1 error. */
int ext_fused_prefill_record(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *in, const KTensor *out,
                         const int64_t *splits, int n_splits);

#endif
