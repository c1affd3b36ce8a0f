/* eval_internal.h - shared plumbing of the CPU reference evaluator: a static tensor view (Ten),
 * element access in any dtype with the WebNN cast rules, index arithmetic (strides, numpy
 * broadcasting) and the per-family op tables the dispatcher in eval.c looks ops up in.
 *
 * Every evaluator has the signature of EvalFn: it reads n's constant operands, fills one
 * Ten per output (allocated by the dispatcher from the output Values' static shapes) and returns
 * 0, 1 when it does not handle this op/dtype combination, or -1 with a diagnostic. */
#ifndef WEBNNC_EVAL_INTERNAL_H
#define WEBNNC_EVAL_INTERNAL_H

#include <stdint.h>

#include "ir.h"
#include "op_support.h"

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

/* ---- per-op evaluators --------------------------------------------------------------- */
typedef int (*EvalFn)(Graph *g, const Node *n, const Ten *in, Ten *out);

/* An entry of a family's op-indexed table: the evaluator, or OP_UNSUPPORTED("reason")
 * (op_support.h).  eval.c looks an op up in the table of its ops.def family only. */
typedef struct {
    EvalFn fn;
    const char *unsupported;
} EvalOp;

/* The family tables: eval_FAMILY_ops in eval_FAMILY.c for each line of op_families.def. */
#define FAMILY(NAME) extern const EvalOp eval_##NAME##_ops[OP_COUNT];
#include "op_families.def"
#undef FAMILY

/* Operand i when present with data, else NULL. */
static inline const Ten *eval_opt_in(const Node *n, const Ten *in, int i) {
    return n->n_inputs > i && in[i].data ? &in[i] : NULL;
}
/* Operand 0 is present and float, and the op has one output. */
static inline bool eval_float_operand(const Node *n, const Ten *in) {
    return n->n_inputs >= 1 && n->n_outputs == 1 && in[0].data && dtype_is_float(in[0].dt);
}
/* Operand 0 is present, and the op has one output of operand 0's dtype. */
static inline bool eval_same_type_operand(const Node *n, const Ten *in, const Ten *out) {
    return n->n_inputs >= 1 && n->n_outputs == 1 && in[0].data && in[0].dt == out[0].dt;
}
/* Same rank and dims. */
bool ten_same_shape(const Ten *a, const Ten *b);

/* A unary element-wise op or activation applied to one value; options (alpha, ...) are read
 * from n's attributes, so an unrelated node yields the op's defaults. */
double eval_unary_value(const Node *n, OpId op, double x);

/* Reports "cannot evaluate: WHAT" for node n; returns -1. */
int eval_fail(const Node *n, const char *what);

/* Scratch buffer of `count` doubles from the graph arena (count already validated). */
double *eval_scratch(Graph *g, int64_t count);

#endif
