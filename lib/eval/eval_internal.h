/* eval_internal.h - shared plumbing of the CPU reference evaluator (inside lib/eval only): option
 * readers, the evaluator signature and the per-family op tables the dispatcher in eval.c looks ops
 * up in (the tensor view Ten is public: eval.h).
 *
 * Every evaluator has the signature of EvalFn: it reads n's constant operands, fills one
 * Ten per output (allocated by the dispatcher from the output Values' static shapes) and returns
 * 0, 1 when it does not handle this op/dtype combination, or -1 with a diagnostic. */
#ifndef WEBNNC_EVAL_INTERNAL_H
#define WEBNNC_EVAL_INTERNAL_H

#include <stdint.h>

#include "eval.h"
#include "core.h"

/* ---- attributes ------------------------------------------------------------------------- */
/* Reads an integer-array option with a bound on its length; returns its count (-1 if absent). */
int eval_attr_ints(const Node *n, const char *key, int64_t *out, int max);
/* A node's "axis"-style option resolved against a rank (negative counts from the end); -1 with a
 * diagnostic when out of range. */
int eval_attr_axis(const Node *n, const char *key, int64_t def, int rank);

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
