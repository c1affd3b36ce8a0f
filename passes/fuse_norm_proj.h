/* fuse_norm_proj.h - what fuse_qkv.c and fuse_gated_mlp.c share: reading an RMSNorm (rmsNorm over
 * the last axis in float32, or skipRmsNorm) whose output feeds only projections of one kind
 * (matmulNBits with constant weights and equal k/bits/blockSize, or matmul by a constant [k, n]
 * matrix with an optional constant bias add), and emitting the normalized-projection node
 * (qkvProjection / gatedMlp, docs/extension-ops.md) with the projections' weights packed along n in
 * a chosen order (ORT's MatMulNBitsQkv / MatMulNBitsMlp). */
#ifndef WEBNNC_FUSE_NORM_PROJ_H
#define WEBNNC_FUSE_NORM_PROJ_H

#include "fuse_match.h"

#define NP_MAX 3

typedef struct {
    Node *norm;              /* rmsNorm or skipRmsNorm */
    Value *h;                /* its normalized output */
    int count;               /* projections reading h */
    Node *proj[NP_MAX];      /* matmulNBits or matmul */
    Node *bias_add[NP_MAX];  /* matmul form: add(y, bias) or NULL */
    Value *bias[NP_MAX];     /* matmul form: the bias constant or NULL */
    Value *y[NP_MAX];        /* projection results (after the bias) */
    int64_t n[NP_MAX];
    bool nbits;
    int64_t k, bits, block;
} NormProj;

/* Fills np when `norm` is an RMSNorm whose output is read only by 1..NP_MAX projections of one kind. */
bool pass_np_read(FuseMap *fm, Node *norm, NormProj *np);
/* The fused node of op `op` (qkvProjection or gatedMlp), projections packed in order[0..count),
 * options epsilon/k/n/bits/blockSize/outputSum set (the caller adds splits), not inserted; the norm,
 * projections and bias adds are added to m; *sum_exit gets the skip sum used outside (or NULL). */
Node *pass_np_emit(FuseMap *fm, const NormProj *np, OpId op, const int *order, int count, FuseMatch *m, Value **sum_exit);

#endif
