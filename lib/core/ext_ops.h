/* ext_ops.h - geometry of the webnnc extension ops (the OPF_EXT lines of ops.def) shared by shape
 * inference (infer_ext.c), the CPU reference evaluator (lib/eval/eval_ext.c) and the decomposition
 * passes (passes/decompose_*.c), so that all three read options and operand shapes the same way.
 * Each *_geometry() validates what it reads and returns 0, or -1 with a diagnostic naming the node.
 * Semantics: docs/extension-ops.md. */
#ifndef WEBNNC_EXT_OPS_H
#define WEBNNC_EXT_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

#define EXT_QUICK_GELU_ALPHA 1.702 /* com.microsoft QuickGelu default alpha */
#define EXT_RMS_NORM_EPSILON 1e-5  /* SimplifiedLayerNormalization default epsilon */
#define EXT_MAX_BLOCK_SIZE 65536   /* largest accepted quantization block */

/* matmulNBits: options and the packed layout of b. */
typedef struct {
    int64_t k, n, bits, block;
    int64_t k_blocks;     /* ceil(k / block) */
    int64_t blob;         /* bytes per block of b: block * bits / 8 */
    int64_t zp_row_bytes; /* bytes per row of packed uint8 zero points: ceil(k_blocks * bits / 8) */
} NBitsGeom;
/* Reads the options only (bits 2/4/8, block a power of two >= 16, k, n >= 1). */
int nbits_geometry(const Node *n, NBitsGeom *geo);

/* rotaryEmbedding: head layout of the input. */
typedef struct {
    bool four_d;       /* input [B, N, S, H] (else [B, S, N*H]) */
    int64_t heads;     /* N */
    int64_t head_size; /* H */
    int64_t rot;       /* rotated channels per head (even, <= H) */
    int64_t half;      /* rot / 2 = the caches' last dim */
    int pos_form;      /* 0: positionIds [1] = offset, 1: positionIds [B, S], 2: absent (caches [B, S, half]) */
} RotaryGeom;
/* Reads options and operand shapes (head, hidden and cache dims must be static). */
int rotary_geometry(const Node *n, RotaryGeom *geo);

/* gatherBlockQuantized: axes and the logical (unpacked) quantized axis. */
typedef struct {
    int64_t bits, block;
    int64_t components; /* values per stored element: 8/bits for uint8 data, else 1 */
    int gather_axis, quant_axis;
    int64_t quant_dim; /* logical size of the quantized axis (stored size * components) */
    int64_t n_blocks;  /* ceil(quant_dim / block) = scales' size on quant_axis */
} GbqGeom;
int gbq_geometry(const Node *n, GbqGeom *geo);

/* skipRmsNorm: number of outputs (1, or 2 with the input+skip+bias sum). */
int skip_rms_norm_outputs(const Node *n);

#endif
