/* import_internal.h - what the ONNX op handlers (ops_*.c) share with the importer (onnx_import.c):
 * the per-node context, the handler table declared from onnx_ops.def, attribute getters, input
 * accessors, and helpers that emit IR nodes (each emitted node whose operands are all constant is
 * folded right away, so Shape -> Gather -> Concat chains become constants) and read constant
 * operands (shapes, axes, pads) that WebNN needs as options. */
#ifndef WEBNNC_IMPORT_INTERNAL_H
#define WEBNNC_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"
#include "onnx_import.h"
#include "onnx_model.h"

/* Most entries any axis list, shape or pads list may hold (2 * WN_MAX_RANK for pads). */
#define IMP_MAX_INTS (2 * WN_MAX_RANK)

typedef struct PrefixShadows PrefixShadows;

/* One ONNX node being imported. */
typedef struct OnnxCtx {
    Graph *g;
    OnnxModel *m;
    const Onnx__NodeProto *node;
    const char *origin; /* ONNX node name, or "OpType_<index>" when unnamed */
    const char *domain; /* "ai.onnx", "com.microsoft", ... (display form) */
    int64_t opset;      /* the model's opset import for the node's domain */
    int n_in;
    Value **in;         /* resolved inputs; NULL = absent optional input */
    int n_out;          /* declared outputs (trailing empty names dropped) */
    Value **out;        /* filled by the handler; NULL for outputs whose name is empty */
    PrefixShadows *pf;  /* constant folding through symbolic dims (prefix_fold.c), or NULL */
} OnnxCtx;

typedef int (*OnnxHandler)(OnnxCtx *c);

/* Handler prototypes, one per line of onnx_ops.def. */
#define ONNX_OP(TYPE, DOMAIN, MIN_OPSET, HANDLER) int HANDLER(OnnxCtx *c);
#include "onnx_ops.def"
#undef ONNX_OP

/* ---- attributes (ops_attrs.c) --------------------------------------------------------------
 * Absent -> the default.  An attribute of the wrong type records a diagnostic naming the node
 * (the importer checks diag_has_error() after each handler). */
const Onnx__AttributeProto *onnx_attr_find(const OnnxCtx *c, const char *name);
int64_t onnx_attr_int(const OnnxCtx *c, const char *name, int64_t def);
double onnx_attr_float(const OnnxCtx *c, const char *name, double def);
/* NUL-terminated copy in the graph arena, or def. */
const char *onnx_attr_string(const OnnxCtx *c, const char *name, const char *def);
/* Count (<= max, else error and -1) copied into out; -1 when absent (no error). */
int onnx_attr_ints(const OnnxCtx *c, const char *name, int64_t *out, int max);
int onnx_attr_floats(const OnnxCtx *c, const char *name, double *out, int max);

/* ---- inputs, outputs, errors (ops_common.c) ------------------------------------------------- */
/* Input i or NULL when absent/empty.  A symbolic shape value (shape_expr.c) is materialized as
 * graph data first (and stays so for the rest of this node); use onnx_in_raw() to see it as is. */
Value *onnx_in_opt(const OnnxCtx *c, int i);
/* Input i as bound, possibly a symbolic shape value; NULL when absent. */
Value *onnx_in_raw(const OnnxCtx *c, int i);
/* Input i; records "node X (Op): missing required input i" and returns NULL when absent. */
Value *onnx_in_req(const OnnxCtx *c, int i);
/* Records an error prefixed with "node NAME (OpType): ". Returns -1. */
int onnx_imp_error(const OnnxCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets output i (ignored when the node does not name it). Returns 0. */
int onnx_imp_set_out(OnnxCtx *c, int i, Value *v);
/* Sets output 0 to v; returns 0, or -1 when v is NULL (an error was recorded). */
int onnx_imp_result(OnnxCtx *c, Value *v);
/* True when output i is named (requested) by the node. */
bool onnx_imp_wants_out(const OnnxCtx *c, int i);

/* ONNX TensorProto.DataType -> IR dtype (bool -> uint8, bfloat16 -> float32); DT_INVALID if none. */
DType onnx_elem_dtype(int onnx_code);

/* Normalizes an axis in [-rank, rank-1] to [0, rank-1]; error naming the node on range failure. */
int onnx_imp_axis(const OnnxCtx *c, int64_t axis, int rank, int64_t *out);
/* Normalizes a list of axes (no duplicates allowed). */
int onnx_imp_axes(const OnnxCtx *c, int64_t *axes, int n, int rank);

/* ---- reading constant operands (ops_common.c) ----------------------------------------------- */
/* Integer constant (int64/int32/uint8..) of rank <= 1 into out (at most max entries).
 * Returns the count, or -1 with "node X (Op): WHAT must be a constant ..." */
int onnx_imp_const_ints(const OnnxCtx *c, const Value *v, const char *what, int64_t *out, int max);
/* Single-element numeric constant as double. */
int onnx_imp_const_scalar(const OnnxCtx *c, const Value *v, const char *what, double *out);
/* Reads element i of a constant as double / int64 (any dtype; i must be in range). */
double onnx_const_elem_f64(const Value *v, uint64_t i);
int64_t onnx_const_elem_i64(const Value *v, uint64_t i);
/* Stores x as element i of a buffer of dtype dt (WebNN cast rules, as the evaluator). */
void onnx_store_elem_f64(DType dt, void *buf, uint64_t i, double x);

/* ---- emitting (ops_common.c) ----------------------------------------------------------------- */
Node *onnx_imp_node(OnnxCtx *c, OpId op);
/* Inserts n (shape inference), folds it when all operands are constant, rejects zero-size
 * outputs.  Returns 0 or -1. */
int onnx_imp_insert(OnnxCtx *c, Node *n);
/* onnx_imp_insert, then outputs[0] (NULL on error). */
Value *onnx_imp_finish(OnnxCtx *c, Node *n);
Value *onnx_emit_unary(OnnxCtx *c, OpId op, Value *x);
Value *onnx_emit_binary(OnnxCtx *c, OpId op, Value *a, Value *b);
Value *onnx_emit_cast(OnnxCtx *c, Value *x, DType dt);
/* Reshape; a constant input with a static new shape becomes a new constant sharing its bytes. */
Value *onnx_emit_reshape(OnnxCtx *c, Value *x, int rank, const Dim *shape);
Value *onnx_emit_transpose(OnnxCtx *c, Value *x, const int64_t *perm);
/* Reduction over axes (normalized) with keepDimensions. */
Value *onnx_emit_reduce(OnnxCtx *c, OpId op, Value *x, int n_axes, const int64_t *axes, bool keep);
/* Scalar constant (rank 0) of dtype dt holding x. */
Value *onnx_const_scalar(OnnxCtx *c, DType dt, double x);
/* Constant with a static shape and zero-filled arena bytes to fill in (returned via *data). */
Value *onnx_const_new(OnnxCtx *c, DType dt, int rank, const int64_t *shape, void **data);
/* 1-D int64 constant. */
Value *onnx_const_i64(OnnxCtx *c, int n, const int64_t *vals);
/* Product of n dims. */
Dim onnx_dims_product_of(OnnxCtx *c, const Dim *dims, int n);
/* Product of dims [from, to) of x. */
Dim onnx_dims_product(OnnxCtx *c, const Value *x, int from, int to);
/* Checked element count of a static shape; -1 (with error) if it overflows 2^31 elements. */
int64_t onnx_imp_elements(const OnnxCtx *c, int rank, const int64_t *shape);

/* ScatterND (nd) / ScatterElements with a reduction attribute (ops_scatter_reduce.c): 0 when the
 * reduction is "none" (nothing emitted), 1 when lowered (outputs set), -1 on error. */
int onnx_scatter_reduce(OnnxCtx *c, bool nd);

/* ---- shape expressions (shape_expr.c) ---------------------------------------------------------
 * A *symbolic shape value* is a Value outside the graph (id -1, no producer, not constant) whose
 * `symval` holds its elements (rank 0 or 1) as Dims; Shape/Size of tensors with symbolic dims make
 * them and onnx_sx_try() propagates them through shape arithmetic.  Never a node operand: onnx_in_opt/in_req
 * and graph outputs materialize them. */
bool onnx_sx_is_symbolic(const Value *v);
/* A shape value of dtype dt; a constant when every element is static.  NULL with an error. */
Value *onnx_sx_new(OnnxCtx *c, DType dt, int rank, int n, const Dim *vals);
/* When an input is a symbolic shape value and the node is shape arithmetic that can be evaluated
 * on Dims, sets the outputs and returns 1; 0 when not applicable; -1 on error. */
int onnx_sx_try(OnnxCtx *c);
/* v as graph data (constant / computed from symbolic dims); cached per value.  NULL with an error. */
Value *onnx_sx_materialize(Graph *g, const char *origin, Value *v);
/* max(a, b) (want_max) or min(a, b) when decidable from the bounds (symbols are >= 1). */
bool onnx_sx_dim_extreme(Graph *g, bool want_max, Dim a, Dim b, Dim *out);
/* Integer operand (constant or symbolic shape value) of rank <= 1 as Dims; count or -1 (error). */
int onnx_imp_shape_dims(OnnxCtx *c, const Value *v, const char *what, Dim *out, int max);

/* ---- folding through symbolic dims (prefix_fold.c) -------------------------------------------- */
PrefixShadows *onnx_pf_new(void);
void onnx_pf_free(PrefixShadows *pf);
/* Before inserting n: 1 when n may get a twin at the upper bounds (its operands are constants or
 * shadowed and its op keeps in-range indices); otherwise replaces shadowed operands by their
 * materialized slices and returns 0; -1 on error. */
int onnx_pf_prepare(PrefixShadows *pf, Graph *g, Node *n);
/* After inserting n (not folded): evaluates its twin; a static result makes n's output a constant,
 * a dynamic one records the twin's constant as its shadow.  0, or -1 on error. */
int onnx_pf_twin(PrefixShadows *pf, Graph *g, Node *n);
/* v, or slice(shadow, 0, v's dims) when v has a shadow (cached).  NULL on error. */
Value *onnx_pf_materialize(PrefixShadows *pf, Graph *g, Value *v);

#endif
