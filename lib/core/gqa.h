/* gqa.h - geometry of the groupQueryAttention extension op (ops.def), shared by its shape inference
 * (infer_gqa.c), CPU reference (lib/eval/eval_gqa.c), decomposition (passes/decompose_gqa.c) and
 * the KV-cache pass (passes/kv_cache.c), so all of them read operands and options the same way.
 * Semantics: docs/extension-ops.md (GQA section) and docs/kv-cache.md. */
#ifndef WEBNNC_GQA_H
#define WEBNNC_GQA_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

/* Operand slots, in ORT's com.microsoft GroupQueryAttention order. */
enum {
    GQA_QUERY, GQA_KEY, GQA_VALUE, GQA_PAST_KEY, GQA_PAST_VALUE, GQA_SEQLENS_K, GQA_TOTAL_SEQ,
    GQA_COS, GQA_SIN, GQA_POSITION_IDS, GQA_ATTENTION_BIAS, GQA_HEAD_SINK, GQA_K_SCALE, GQA_V_SCALE,
    GQA_Q_NORM, GQA_K_NORM, GQA_SLOTS
};
/* Outputs. */
enum { GQA_OUT, GQA_PRESENT_KEY, GQA_PRESENT_VALUE, GQA_OUTPUTS };

#define GQA_MAX_HEADS 65536

typedef struct {
    DType dt;           /* float32 or float16 (query, caches and every float operand) */
    bool packed;        /* query holds Q, K and V ([B, S, (N + 2 kvN) H]) */
    bool past;          /* pastKey/pastValue present (KV cache); false: attention over the S new
                         * keys only (no seqlensK/totalSequenceLength, one output) */
    Dim batch, seq;     /* B (may be symbolic), S (may be symbolic) */
    int64_t heads;      /* N */
    int64_t kv_heads;   /* kvN (divides N) */
    int64_t group;      /* N / kvN */
    int64_t head_size;  /* H = pastKey dim 3 (without a cache: key width / kvN) */
    Dim cap;            /* pastKey dim 2: the cache capacity C (without a cache: S, the keys) */
    int64_t capacity;   /* C when static; 0 while symbolic (an imported ONNX past length that
                         * passes/kv_cache.c has not fixed yet: not evaluable/decomposable);
                         * 0 without a cache */
    double scale;       /* option, default 1/sqrt(H) (0 also means the default, as in ORT) */
    double softcap;     /* 0 = off */
    int64_t window;     /* localWindowSize; <= 0 = off */
    bool rotary, interleaved, smooth;
    int64_t rot;        /* rotated channels per head (2 * cos dim 1); 0 without rotary */
    int64_t max_pos;    /* rows of the cos/sin caches; 0 without rotary */
    double qk_eps;      /* qkNormEpsilon (default 1e-6) */
} GqaGeom;

/* The node has a KV cache operand (pastKey or pastValue); without one it is the no-cache form. */
static inline bool gqa_has_cache(const Node *n) {
    return (n->n_inputs > GQA_PAST_KEY && n->inputs[GQA_PAST_KEY]) || (n->n_inputs > GQA_PAST_VALUE && n->inputs[GQA_PAST_VALUE]);
}

/* Reads and validates options and operand shapes/dtypes (see docs/extension-ops.md).  Returns 0,
 * or -1 with a diagnostic naming the node. */
int gqa_geometry(Graph *g, const Node *n, GqaGeom *geo);

#endif
