/* eval.h - what lib/eval offers the floors above (its one public header): CPU reference evaluation
 * of IR nodes, used to fold constant subgraphs at conversion time (and as an oracle in tests), and
 * the static tensor view Ten with element access in any dtype by the WebNN cast rules.  Computes in
 * double / int64 and rounds to the output dtype. */
#ifndef WEBNNC_EVAL_H
#define WEBNNC_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

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
int64_t ten_wrap_int(DType dt, int64_t v);
/* Converts between double and IEEE half precision (round to nearest even, saturating to inf). */
uint16_t ten_f64_to_f16(double v);
double ten_f16_to_f64(uint16_t h);
/* Rounds a double to the nearest float32 / float16 value (as a double). */
double ten_round_to_dtype(DType dt, double v);

/* ---- index arithmetic ------------------------------------------------------------------- */
void ten_strides(const Ten *t, int64_t *strides); /* row-major element strides */
/* Strides of `t` broadcast (numpy, right-aligned) to an output of rank `rank`: 0 on dims where t
 * has size 1 or no dimension. */
void ten_bcast_strides(const Ten *t, int rank, const int64_t *out_shape, int64_t *strides);
/* Decomposes linear index i of `shape` into coordinates. */
void ten_unravel(int64_t i, int rank, const int64_t *shape, int64_t *coord);
/* Offset of coordinates under strides. */
int64_t ten_dot_strides(int rank, const int64_t *coord, const int64_t *strides);


/* Evaluates node n whose operands are all constants.  On success fills out_data[i] (arena memory,
 * IR layout) and out_nbytes[i] for each output and returns 0.  Returns 1 when the evaluator does not
 * handle this op/dtype combination (not an error), -1 with a diagnostic on failure. */
int eval_node(Graph *g, const Node *n, const void **out_data, uint64_t *out_nbytes);

/* If every operand of n is constant, the op is supported and the result is not too large, turns
 * n's outputs into constants and marks n dead.  Returns 1 if folded, 0 if not, -1 on error. */
int eval_fold_node(Graph *g, Node *n);

#endif
