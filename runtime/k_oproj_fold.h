/* k_oproj_fold.h - the output projection taken over by decode attention (runtime/plan_oproj.c):
 *
 *   o = groupQueryAttention(...);  y = matmulNBits(o, W, scales, zp?);  projection(y, r, ...)
 *
 * where the attention decodes one token of one batch row: the attention's dispatch
 * (shaders/ext_gqa_dec_oproj.comp, k_gqa.c) also multiplies each head's output by its columns of W,
 * sums the heads' products per row in a 64-bit fixed-point accumulator (integer atomics: the same
 * result whatever order the heads arrive in), and the head that completes a row writes y + r
 * (+ skipBias) as plan_residual.c's epilogue does; matmulNBits records nothing; the projection reads
 * that sum as its input (kfam_fused_folded).  Other recordings (prefill) run the three as
 * plan_residual.c's pair and the attention as it is. */
#ifndef WEBNNC_K_OPROJ_FOLD_H
#define WEBNNC_K_OPROJ_FOLD_H

#include "core.h"
#include "kernel.h"

/* The rewritten groupQueryAttention's inputs: its GQA_SLOTS operand slots, then W's weights, scales and
 * zero points, the residual r, its bias (skipBias) and y (written by the attention: plan.c gives it
 * storage from the attention on). */
enum { OPROJ_W = GQA_SLOTS, OPROJ_SCALES, OPROJ_ZP, OPROJ_RES, OPROJ_RES_BIAS, OPROJ_Y, OPROJ_INPUTS };
/* Counter words of o_proj's accumulators per row: a 64-bit fixed-point sum and a 64-bit float spill
 * (shaders/gqa_dec_fused.glsl oproj_finish). */
#define OPROJ_ACC_WORDS 4
/* kc_node_params of the rewritten attention: the matmulNBits it takes over. */
typedef struct {
    const Node *oproj;
} OprojFold;

/* Whether attention node gqa can take matmulNBits node oproj (reading its output) on device dev:
 * int64 atomics; the attention's one-dispatch decode kernel with one workgroup per head for every
 * decode recording; at most 64 heads of a multiple of 32 channels up to 128; W 4-bit in the row
 * mat-vec's layout (uint8 or no zero points, scales of the activation type) with k = heads x head
 * size, blocks of 32 or more, no bias, at most 64 x the workgroup's invocations rows.
 * WEBNNC_OPROJ_FOLD=0: never. */
bool ext_gqa_oproj_ok(const WnrtDeviceInfo *dev, const Node *gqa, const Node *oproj);
/* The attention's family (the inputs above). */
extern const KernelFamily kfam_gqa_oproj;
/* The matmulNBits' family: the inputs of kfam_ext_nbits_residual; nothing recorded for one
 * activation row (the attention wrote its output), else as kfam_ext_nbits_residual. */
extern const KernelFamily kfam_ext_nbits_oproj;

#endif
