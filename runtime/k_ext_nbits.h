/* k_ext_nbits.h - the matmulNBits kernel (k_ext_nbits.c) as a building block: y = a . dequant(b)^T
 * (+ bias) straight from ORT's packed layout, mat-vec for few activation rows, tiled GEMM for many
 * (also gated: gatedMlp's act(gate) * up in the GEMM's epilogue).  Used by the matmulNBits family
 * and the composed prefill of the fused projections (k_fused_prefill.c). */
#ifndef WEBNNC_K_EXT_NBITS_H
#define WEBNNC_K_EXT_NBITS_H

#include "core.h"
#include "k_matvec.h"
#include "kernel.h"

/* Load-time check of the operands of a matmulNBits-shaped product: activation dtype act (f32/f16),
 * scales of act, zero points absent / uint8 / act, bias absent / act. */
int ext_nbits_check(KernelCtx *kc, const Node *n, DType act, const Value *zp);
/* Records y [M, N] = a [M, K] . dequant(b)^T + bias for geometry geo; zp / bias NULL when absent.
 * Split-K partial sums go to the scratch storage past its first scratch_used bytes (the caller's). */
int ext_nbits_record(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *a, const KTensor *b,
                     const KTensor *scales, const KTensor *zp, const KTensor *bias, const KTensor *y, uint64_t scratch_used);
/* gatedMlp's prefill product with its epilogue in one GEMM (shaders/nbits_gemm.glsl gated mode):
 * y [M, n / 2] = act(gate + bias[:n/2]) * (up + bias[n/2:]) with gate = a . dequant(b[:n/2])^T and
 * up = a . dequant(b[n/2:])^T (geo->n = n, the packed [gate | up] rows), f32, with gate and up
 * rounded to the activation type first (the bits of ext_nbits_record into [M, n] and then
 * shaders/ext_gate_mul.comp); act is GATE_* (lib/core/fused_ops.h).  1 recorded, 0 it does not apply (fewer than
 * ext_nbits_gated_min_m rows: the caller runs ext_nbits_record and its own epilogue), -1 error. */
int ext_nbits_record_gated(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *a, const KTensor *b,
                           const KTensor *scales, const KTensor *zp, const KTensor *bias, const KTensor *y, uint32_t act);
/* The fewest activation rows from which ext_nbits_record_gated records (UINT64_MAX: never): the
 * GEMM's (the mat-vecs of few rows have no gated form), not where ext_nbits_record would split K
 * (the activation is not linear in the partial sums), and only where a gate row and its up row
 * fit one binding of the device.  Depends on the geometry and the device only beyond that. */
uint64_t ext_nbits_gated_min_m(const KernelCtx *kc, const NBitsGeom *geo, DType act);
/* Scratch bytes ext_nbits_record's split-K needs for up to max_m activation rows (0: none). */
uint64_t ext_nbits_scratch_need(const NBitsGeom *geo, uint64_t max_m);
/* matmulNBits' layout as the row mat-vec's (k_matvec.h) where that kernel takes it: 4/8-bit
 * rows not padded, k % 32 == 0, zero points absent or uint8 rows as long as the scale rows.
 * Fills *p and returns true when it applies (WEBNNC_NBITS_GENERIC=1: never). */
bool ext_nbits_rows_layout(const NBitsGeom *geo, bool has_zp, DType zp_dtype, KMatvecRows *p);

/* The plan rewrite of plan_pick_row.c: matmulNBits node n reads its one activation row in place,
 * row `index` (0, or -1: the last) along the second-to-last axis of the rewrite's input 0, x
 * [1, .., 1, S, K] (the gather it absorbed), on the row mat-vec.  kc_node_params() of the node. */
typedef struct {
    int64_t index;
} KNbitsPickRow;
/* Whether node n (matmulNBits) can take that rewrite with x as its activations' source: the row
 * mat-vec's layout and an activation row of whole 16-byte vectors. */
bool ext_nbits_pick_row_ok(const Node *n, const Value *x);

/* The plan rewrite of plan_residual.c: a matmulNBits node whose output is the input of a quantized
 * qkvProjection / gatedMlp with a skip adds that skip (+ skipBias) in its epilogue, and the
 * projection reads the sum as its input (kfam_fused_folded), wherever ext_residual_folds(M) holds for
 * the M activation rows of the recording: both then run on the row mat-vec (matmulNBits' ones,
 * the normalized projection's KMV_NORM_MAX_M).  Elsewhere both run as they are. */
#define EXT_RESIDUAL_MAX_M 4
static inline bool ext_residual_folds(uint64_t M) { return M >= 1 && M <= EXT_RESIDUAL_MAX_M; }
/* Whether matmulNBits node n can take it: the row mat-vec's layout. */
bool ext_nbits_residual_ok(const Node *n);
/* Its family: inputs 0-4 the node's, 5 the skip (the output's shape), 6 the skip bias ([N]) or absent. */
extern const KernelFamily kfam_ext_nbits_residual;
/* The projection's family: the node's operands, the skip not read where the residual folds (k_fused.c). */
extern const KernelFamily kfam_fused_folded;

#endif
