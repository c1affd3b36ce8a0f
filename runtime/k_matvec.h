/* k_matvec.h - the row-major mat-vec kernel (shaders/matvec_rows.glsl, built as
 * matvec_rows.comp and matvec_rows_half.comp): y[m, :] = x[m, :] . W^T
 * for weights W stored [N, K] row-major (each output row reads K contiguous weights), float
 * (weights of the activation dtype) or 4/8-bit integers dequantized in registers with blockwise
 * scale and optional zero point.  Used by plan-level rewrites of matmul with a constant B
 * (plan_matvec.c) and meant for the matmulNBits extension op as well.  4-bit weights with
 * float16 activations use float16-pair arithmetic where the device has it (matvec_rows.glsl
 * says how and what it costs in precision; WEBNNC_MATVEC_HALF=0 forces exact f32 dequantization).
 * Work split per device type; WEBNNC_MATVEC_WG (32..1024) and WEBNNC_MATVEC_ROWS (1..8) override
 * it for tuning. */
#ifndef WEBNNC_K_MATVEC_H
#define WEBNNC_K_MATVEC_H

#include "kernel.h"

#define KMV_MAX_M 16 /* largest activation row count (product of x's leading dims) rewritten */

typedef struct {
    int bits;          /* 4 or 8: quantized; 16 / 32: float weights of the activation dtype */
    bool is_signed;    /* quantized values (and zero points) are signed */
    bool has_scale;    /* quantized formats: always true */
    bool has_zp;
    int64_t N, K;      /* weights: N rows of K elements; K % 16 == 0 */
    /* Quantized: scale / zero point of weight (n, k) is element
     * (n / block_n) * s_n + (k / block_k) * s_k of the scale / zero-point tensors; block_k % 16 == 0. */
    int64_t block_n, block_k, s_n, s_k;
    int zp_absent;     /* unsigned quantized values without zero points: this one (0; matmulNBits 2^(bits-1)) */
    bool exact;        /* f32 dequantization unless WEBNNC_MATVEC_HALF=1 (the float16-pair kernel's error
                          exceeds matmulNBits' 1e-3 float16 tolerance at k = 1024) */
    /* The activation rows taken from x (kmatvec_rows_record): x_rows rows from row x_row0 (x_rows 0:
     * every row of x).  A gathered row read in place (k_ext_nbits.c, plan_pick_row.c). */
    uint64_t x_row0, x_rows;
    /* 4-bit with zero points (kmatvec_pairs_scales): the scale tensor's storage holds one 32-bit word
     * per element, float16 scale | float16 -(4 + zp / 16) << 16 with zp offset to unsigned
     * (matvec_rows.glsl SZ_PAIRED), and no zero-point tensor is passed. */
    bool sz_paired;
} KMatvecRows;

/* The residual epilogue: y = (y rounded to its dtype) + res (+ res_bias[n]), in f32 in that order
 * (res: y's shape; res_bias: N elements or NULL). */
typedef struct {
    const KTensor *res, *res_bias;
} KMatvecResidual;

/* Whether the product of p (with zero points) runs the float16-pair kernel for activations act on
 * device d and so takes its scales and zero points paired (sz_paired): WEBNNC_MATVEC_PAIRED=0 never. */
bool kmatvec_pairs_scales(const WnrtDeviceInfo *d, const KMatvecRows *p, DType act);
/* Load-time check: formats, sizes and the shader variant for activation dtype act. */
int kmatvec_rows_check(KernelCtx *kc, const Node *n, DType act, const KMatvecRows *p);
/* Records the product (+ bias[N]) (+ the residual epilogue).  x: [..., K] contiguous, y: [..., N]
 * (same leading dims, or p->x_rows rows); w holds N*K weights in the layout of p (its KTensor shape
 * is not used); scale / zp / bias / res NULL when absent. */
int kmatvec_rows_record(KernelCtx *kc, const Node *n, const KMatvecRows *p, const KTensor *x, const KTensor *w,
                        const KTensor *scale, const KTensor *zp, const KTensor *bias, const KMatvecResidual *res,
                        const KTensor *y);

/* The normalized projection (shaders/matvec_rows_norm.comp): qkvProjection / gatedMlp at decode.
 * y = (v * normScale) . W^T * inv_rms(v) (+ bias), v = x (+ skip (+ skipBias)), in one dispatch
 * that also writes v to `sum`; gated: W rows [0, N/2) gate, [N/2, N) up, one output of N/2
 * columns act(gate) * up (act: `activation`, GATE_* of fused_ops.h; bias: N entries, gate then up); else up to KMV_NORM_MAX_OUT outputs of
 * cols[i] columns (consecutive weight rows). */
#define KMV_NORM_MAX_OUT 3
#define KMV_NORM_MAX_M 4 /* activation rows (it reads the weights once per row) */
typedef struct {
    const KTensor *skip, *skip_bias, *sum; /* NULL when absent */
    const KTensor *norm_scale;
    float eps;
    bool gated;
    uint32_t activation; /* gated: GateActivation (0 silu) */
    int n_out;
    const KTensor *y[KMV_NORM_MAX_OUT];
    int64_t cols[KMV_NORM_MAX_OUT];
} KMatvecNorm;

/* Load-time check of the shader for activation dtype act. */
int kmatvec_norm_check(KernelCtx *kc, const Node *n, DType act);
/* Whether the kernel takes these operands: 4/8-bit unpadded rows with k % 32 == 0, at most
 * KMV_NORM_MAX_M activation rows, 16-byte aligned vectors, the weights in one binding. */
bool kmatvec_norm_fits(KernelCtx *kc, const KMatvecRows *p, const KMatvecNorm *q, const KTensor *x, const KTensor *w);
int kmatvec_norm_record(KernelCtx *kc, const Node *n, const KMatvecRows *p, const KMatvecNorm *q, const KTensor *x,
                        const KTensor *w, const KTensor *scale, const KTensor *zp, const KTensor *bias);

/* Family for plan rewrites: inputs {x, w, scale?, zp?}, parameters (KMatvecRows) from
 * kc_node_params(). */
extern const KernelFamily kfam_matvec_rows;

#endif
