/* eval_internal.h - shared plumbing of the CPU reference evaluator: a static tensor view (Ten),
 * element access in any dtype with the WebNN cast rules, index arithmetic (strides, numpy
 * broadcasting) and the per-family entry points called by the dispatcher in eval.c.
 *
 * Every family function has the signature of EvalFn: it reads n's constant operands, fills one
 * Ten per output (allocated by the dispatcher from the output Values' static shapes) and returns
 * 0, 1 when it does not handle this op/dtype combination, or -1 with a diagnostic. */
#ifndef WEBNNC_EVAL_INTERNAL_H
#define WEBNNC_EVAL_INTERNAL_H

#include <stdint.h>

#include "ir.h"

/* A static tensor: dtype, shape, element count and its bytes in IR layout. */
typedef struct {
    DType dt;
    int rank;
    int64_t shape[WN_MAX_RANK];
    int64_t count;
    void *data; /* const for operands; written only for outputs */
} Ten;

/* Fills t from a constant (or already evaluated) value; -1 with a diagnostic when the value has a
 * symbolic shape or too few bytes. */
int ten_from_value(const Node *n, const Value *v, Ten *t);

/* ---- element access (eval_tensor.c) ----------------------------------------------------- */
double ten_getf(const Ten *t, int64_t i);  /* any dtype, as a double */
int64_t ten_geti(const Ten *t, int64_t i); /* integer dtypes exactly (uint64 as its bit pattern);
                                              floats truncated toward zero, saturated */
/* Writes a double with the WebNN cast rules: float outputs round to nearest even (f16 saturates
 * to inf), integer outputs truncate toward zero and wrap to the type's width (NaN -> 0). */
void ten_setf(Ten *t, int64_t i, double v);
/* Writes an integer: integer outputs wrap to the type's width, float outputs round to nearest. */
void ten_seti(Ten *t, int64_t i, int64_t v);
/* Copies element si of s to element di of d (same dtype). */
void ten_copy_elem(Ten *d, int64_t di, const Ten *s, int64_t si);
/* Element as a double, reading uint64 as unsigned. */
double ten_value_as_double(DType dt, int64_t bits);
bool ten_is_unsigned64(const Ten *t);
/* Wraps a 64-bit integer to the width and signedness of an integer dtype. */
int64_t wrap_int(DType dt, int64_t v);
/* Converts between double and IEEE half precision (round to nearest even, saturating to inf). */
uint16_t f64_to_f16(double v);
double f16_to_f64(uint16_t h);
/* Rounds a double to the nearest float32 / float16 value (as a double). */
double round_to_dtype(DType dt, double v);

/* ---- index arithmetic ------------------------------------------------------------------- */
void ten_strides(const Ten *t, int64_t *strides); /* row-major element strides */
/* Strides of `t` broadcast (numpy, right-aligned) to an output of rank `rank`: 0 on dims where t
 * has size 1 or no dimension. */
void ten_bcast_strides(const Ten *t, int rank, const int64_t *out_shape, int64_t *strides);
/* Decomposes linear index i of `shape` into coordinates. */
void unravel(int64_t i, int rank, const int64_t *shape, int64_t *coord);
/* Offset of coordinates under strides. */
int64_t dot_strides(int rank, const int64_t *coord, const int64_t *strides);

/* ---- attributes ------------------------------------------------------------------------- */
/* Reads an integer-array option with a bound on its length; returns its count (-1 if absent). */
int attr_ints(const Node *n, const char *key, int64_t *out, int max);
/* A node's "axis"-style option resolved against a rank (negative counts from the end); -1 with a
 * diagnostic when out of range. */
int attr_axis(const Node *n, const char *key, int64_t def, int rank);

/* ---- family entry points ---------------------------------------------------------------- */
typedef int (*EvalFn)(Graph *g, const Node *n, const Ten *in, Ten *out);

int eval_eltwise(Graph *g, const Node *n, const Ten *in, Ten *out);  /* unary, binary, compare,
                                                                          logical, clamp, prelu, where */
int eval_reduce(Graph *g, const Node *n, const Ten *in, Ten *out);   /* reduce*, argMin/Max */
int eval_shape(Graph *g, const Node *n, const Ten *in, Ten *out);    /* data movement, cast,
                                                                          triangular, cumulativeSum */
int eval_gather(Graph *g, const Node *n, const Ten *in, Ten *out);   /* gather*, scatter* */
int eval_nn(Graph *g, const Node *n, const Ten *in, Ten *out);       /* matmul gemm softmax norms */
int eval_conv(Graph *g, const Node *n, const Ten *in, Ten *out);     /* conv, pools, resample */
int eval_rnn(Graph *g, const Node *n, const Ten *in, Ten *out);      /* gru(Cell), lstm(Cell) */
int eval_quant(Graph *g, const Node *n, const Ten *in, Ten *out);    /* (de)quantizeLinear */
int eval_gqa(Graph *g, const Node *n, const Ten *in, Ten *out);      /* groupQueryAttention */
int eval_ext(Graph *g, const Node *n, const Ten *in, Ten *out);      /* extension ops (ORT contrib) */
int eval_fused(Graph *g, const Node *n, const Ten *in, Ten *out);    /* fusion-only ext ops */

/* A unary element-wise op or activation applied to one value; options (alpha, ...) are read
 * from n's attributes, so an unrelated node yields the op's defaults. */
double eval_unary_value(const Node *n, OpId op, double x);

/* Reports "cannot evaluate: WHAT" for node n; returns -1. */
int eval_fail(const Node *n, const char *what);

/* Scratch buffer of `count` doubles from the graph arena (count already validated). */
double *eval_scratch(Graph *g, int64_t count);

#endif
