/* write_plan.h - the decisions every webnn writer shares, made once per graph: which inputs,
 * constants and outputs are written and in what order, how each constant is stored, and where
 * each weights tensor lies in model.weights.
 *
 * Order rule (deterministic, serde BTreeMap-like): inputs, consts, outputs and manifest tensors
 * are sorted by name (strcmp); nodes keep graph order.  Constant storage rule: every element
 * equal and exact through float32 (not int64/uint64/int4/uint4) -> {"kind":"scalar"}; else at most
 * WN_INLINE_MAX_ELEMENTS elements -> {"kind":"inlineBytes"}; else {"kind":"weights"}.  Weights
 * tensors with equal dtype, shape and bytes (XXH64 then memcmp) are stored once, under the ref of
 * the first of them by name; the file holds them in ascending ref order at absolute offsets
 * after the 8-byte WGWT header, each aligned to `align` (64 by default; 1 puts them back to back,
 * the contiguous layout of webnn-graph's pack-weights).
 *
 * Two ways to build a plan: wn_write_plan_build() hashes every weights constant up front (renderers
 * that need the refs but write no weights); wn_write_plan_begin() leaves the weights constants
 * unplaced, and a writer that hashes while it writes places them one by one, in p->consts order,
 * with wn_write_plan_place() - the result is the same plan, and each byte is read once. */
#ifndef WEBNNC_WRITE_PLAN_H
#define WEBNNC_WRITE_PLAN_H

#include <stdint.h>

#include "core.h"

#define WN_INLINE_MAX_ELEMENTS 8
#define WN_WEIGHTS_ALIGN 64
#define WN_WEIGHTS_HEADER 8

typedef enum { CONST_WEIGHTS, CONST_SCALAR, CONST_INLINE } ConstKind;

typedef struct {
    const Value *v;
    ConstKind kind;
    double scalar; /* CONST_SCALAR */
    int tensor;    /* CONST_WEIGHTS: index in WritePlan.tensors (-1 until placed) */
    uint64_t elements;
} PlannedConst;

typedef struct {
    const Value *v; /* the constant whose name is the ref */
    uint64_t elements;
    uint64_t offset, length; /* in model.weights; length = elements * file_elem_bytes */
    uint64_t hash;           /* XXH64 (seed 0) of the bytes as written to the file */
} PlannedTensor;

typedef struct {
    const Value **inputs;
    int n_inputs;
    PlannedConst *consts;
    int n_consts;
    PlannedTensor *tensors;
    int n_tensors;
    const Value **outputs;
    int n_outputs;
    uint64_t weights_size; /* total size of model.weights */
    uint64_t align;        /* of each tensor's offset: WN_WEIGHTS_ALIGN unless the caller sets 1 */
    int *const_index;      /* value id -> index in consts, or -1 */
    int n_values;
    int *dedup;            /* open-addressing table of tensor indices (-1: empty) */
    size_t dedup_mask;     /* its size - 1 (a power of two, at least twice the consts) */
} WritePlan;

/* 0, or -1 with a diagnostic naming the offending value. */
int wn_write_plan_build(const Graph *g, WritePlan *p);
/* The same plan with every CONST_WEIGHTS constant unplaced (tensor -1, no tensors yet,
 * weights_size = the header).  0, or -1 with a diagnostic. */
int wn_write_plan_begin(const Graph *g, WritePlan *p);
/* Offset the next new weights tensor gets (the end of the last one, aligned to p->align). */
uint64_t wn_write_plan_next_offset(const WritePlan *p);
/* Places the unplaced weights constant `c` whose file bytes hash (XXH64, seed 0) to `hash`: it
 * reuses an earlier tensor with equal dtype, shape and bytes, else it becomes a new tensor at
 * wn_write_plan_next_offset().  Returns true when a new tensor was made. */
bool wn_write_plan_place(WritePlan *p, PlannedConst *c, uint64_t hash);
void wn_write_plan_free(WritePlan *p);
/* The PlannedConst of a constant value, or NULL. */
const PlannedConst *wn_write_plan_const(const WritePlan *p, const Value *v);
/* Streams the file bytes of a tensor (4-bit unpacked) in chunks to `sink`; returns its result. */
int wn_tensor_file_bytes(const Value *v, uint64_t elements,
                      int (*sink)(void *ctx, const void *bytes, uint64_t n), void *ctx);

#endif
