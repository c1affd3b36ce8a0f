/* fuse_torch.h - what the torch-export fusion passes share (fuse_torch_rotary.c,
 * fuse_torch_attention.c): the reader of the torch rotary form
 *   y = x * cos + rotate_half(x) * sin,  rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2])
 * on x [B, N, S, D] with cos/sin tables [S, D] (halves equal, rows = positions 0..S-1) that are
 * either constants sliced from row 0 (after prefix folding) or computed at run time as
 * cos/sin(concat(f, f)) with f = transpose(matmul(invFreq [1, D/2, 1], positions [1, 1, S])),
 * positions sliced from row 0 of a constant.  The tables are turned into the [maxPos, D/2] caches of
 * rotaryEmbedding / groupQueryAttention (constants, shared by every rotary reading the same table).
 * A run-time table cos/sin(concat(f, f)) whose angles f [B, S, D/2] are not constant (positions from a
 * position_ids input) is read as per-token: rotaryEmbedding without positionIds takes cos(f) and
 * sin(f) themselves as its [B, S, D/2] caches (exact: each token's own angles). */
#ifndef WEBNNC_FUSE_TORCH_H
#define WEBNNC_FUSE_TORCH_H

#include "fuse_match.h"

#define TORCH_ROTARY_NODES 7 /* add, 2 mul, concat, neg, 2 slices */

typedef struct {
    Value *x;                        /* the rotated input [B, N, S, D] */
    Value *cos, *sin;                /* float32 caches [maxPos, D/2] (constants in the graph); NULL
                                      * for a per-token table */
    Value *angles;                   /* per-token table: f [B, S, D/2] of cos/sin(concat(f, f)) */
    Node *nodes[TORCH_ROTARY_NODES]; /* the rotation nodes (not the tables, which may be shared) */
    int n;
} TorchRotary;

/* Reads the torch rotary form whose result is y.  1: read (caches created or reused), 0: not this
 * form (no diagnostic), -1: error. */
int pass_torch_rotary_read(FuseMap *fm, Value *y, TorchRotary *r);
/* The per-token caches cos(angles) and sin(angles) (nodes created once per angles value and reused).
 * 0, or -1 on error. */
int pass_torch_rotary_per_token(FuseMap *fm, Value *angles, Value **cos, Value **sin);

/* The source of slice(src, starts all 0, strides 1) = v (a prefix along every axis), else NULL. */
Value *pass_torch_prefix_source(Value *v);
/* Every dim of v but the last `keep` is static 1 (and rank >= keep). */
bool pass_torch_leading_ones(const Value *v, int keep);

#endif
