/* fused_ops.h - the fusion-only extension ops (ops.def: silu, qkvProjection, gatedMlp) described as
 * compositions of existing ops, shared by their shape inference (infer_fused.c) and CPU reference
 * (lib/eval/eval_fused.c): a normalized projection is rmsNorm (or skipRmsNorm with the sum output)
 * over the last axis followed by matmulNBits (bits > 0) or matmul (+ add bias, bits 0).
 * fused_parts() builds those component nodes on the stack, pointing at the fused node's operands, so
 * that validation and evaluation reuse the component ops' own rules.  Semantics:
 * docs/extension-ops.md. */
#ifndef WEBNNC_FUSED_OPS_H
#define WEBNNC_FUSED_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

/* Operand slots of qkvProjection and gatedMlp. */
enum { FP_INPUT, FP_SKIP, FP_SKIP_BIAS, FP_NORM_SCALE, FP_WEIGHT, FP_SCALES, FP_ZERO_POINTS, FP_BIAS, FP_SLOTS };

#define FP_MAX_SPLITS 3

/* gatedMlp's `activation` of the gate half (kernels pass the value on as a shader constant). */
typedef enum { GATE_SILU, GATE_GELU, GATE_GELU_TANH, GATE_ACTIVATION_COUNT } GateActivation;
extern const char *const gate_activation_names[GATE_ACTIVATION_COUNT]; /* "silu", "gelu", "geluTanh" */

typedef struct {
    Node norm;             /* rmsNorm(input, normScale) or skipRmsNorm(input, skip, normScale, skipBias) */
    Value *norm_in[4];
    Attr norm_attrs[3];
    Node proj;             /* matmulNBits(normed, weight, scales, zeroPoints, bias) or matmul(normed, weight) */
    Value *proj_in[5];
    Attr proj_attrs[4];
    bool skip, output_sum, nbits;
    int64_t k, n;
    int n_splits;          /* qkvProjection: 1..3 (gatedMlp: 2 halves) */
    GateActivation activation; /* gatedMlp */
    int64_t splits[FP_MAX_SPLITS];
} FusedParts;

/* Reads and checks options and operand presence of a qkvProjection/gatedMlp node and fills p.
 * `normed` stands for the normalized input (a Value with the input's dtype and shape) and becomes
 * operand 0 of p->proj.  0, or -1 with a diagnostic naming n. */
int fused_parts(const Node *n, Value *normed, FusedParts *p);
/* gatedMlp's activation option (silu when absent), or -1 with a diagnostic for an unknown name. */
int fused_activation(const Node *n);
/* The node's RMS norm epsilon (1e-6 when absent). */
double fused_epsilon(const Node *n);
/* The activation applied to one gate value in double: silu, 0.5 g (1 + erf(g / sqrt 2)) or
 * 0.5 g (1 + tanh(sqrt(2 / pi) (g + 0.044715 g^3))). */
double gate_activation_apply(GateActivation act, double g);
/* Number of outputs of a qkvProjection/gatedMlp node (splits + sum), or -1. */
int fused_output_count(const Node *n);

#endif
