/* infer_internal.h - helpers shared by the shape inference files (infer*.c): dtype sets, operand
 * access, rank/axis/shape checks that report precise node diagnostics, and the per-family rule
 * family rule tables that infer.c dispatches to by OpId.  Not part of the public IR API. */
#ifndef WEBNNC_INFER_INTERNAL_H
#define WEBNNC_INFER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "op_support.h"

/* A WebNN dimension and an element count must both be < 2^31. */
#define INFER_LIMIT ((int64_t)1 << 31)

/* ---- dtype sets --------------------------------------------------------------------------- */
typedef uint32_t DTypeMask;
#define DTM(T) (1u << DT_##T)
#define DTM_FLOAT (DTM(F32) | DTM(F16))
/* The WebNN MLOperandDataType set (no 4-bit types). */
#define DTM_WEBNN (DTM_FLOAT | DTM(I32) | DTM(U32) | DTM(I64) | DTM(U64) | DTM(I8) | DTM(U8))
/* Every IR type: data movement ops also carry packed 4-bit weights (experimental in WebNN). */
#define DTM_ALL (DTM_WEBNN | DTM(I4) | DTM(U4))
#define DTM_SIGNED_NUM (DTM_FLOAT | DTM(I64) | DTM(I32) | DTM(I8))
#define DTM_WIDE_NUM (DTM_FLOAT | DTM(I32) | DTM(U32) | DTM(I64) | DTM(U64))
#define DTM_INDICES (DTM(I32) | DTM(U32) | DTM(I64))
#define DTM_QUANT (DTM(U8) | DTM(I8) | DTM(U32) | DTM(I32) | DTM(U4) | DTM(I4))

/* ---- operands ------------------------------------------------------------------------------ */
/* Operand `i`, or NULL when absent (trailing optional operands may be left out entirely). */
static inline const Value *infer_in(const Node *n, int i) { return i < n->n_inputs ? n->inputs[i] : NULL; }

static inline void infer_desc_of(TensorDesc *d, const Value *v) {
    d->dtype = v->dtype;
    d->rank = v->rank;
    for (int i = 0; i < v->rank; i++) d->shape[i] = v->shape[i];
}

/* Formats a shape as "[1, seq, 128]". */
const char *infer_shape_str(const Graph *g, int rank, const Dim *shape, char *buf, size_t len);

/* "operand 1 (name) has dtype int32, expected float32 or float16" unless dtype is in `allowed`. */
bool infer_check_dtype(const Node *n, int slot, DTypeMask allowed);
/* Operand `slot` must have the dtype of operand `ref`. */
bool infer_check_same_dtype(const Node *n, int slot, int ref);
/* Operand rank in [lo, hi]. */
bool infer_check_rank(const Node *n, int slot, int lo, int hi);
/* Operand shape must equal `shape` (dim_equal per dim). */
bool infer_check_shape(Graph *g, const Node *n, int slot, int rank, const Dim *shape);
/* Operand, when present, must be 1-D of length `len` with the dtype of operand `ref`. */
bool infer_check_vector(Graph *g, const Node *n, int slot, Dim len, int ref);

/* Reports "LEAD [shape a] MIDDLE [shape b]", e.g. "slope shape [2] cannot be broadcast to input shape [2, 4]". */
void infer_shapes_error(const Graph *g, const Node *n, const char *lead, int ra, const Dim *a, const char *middle, int rb,
                        const Dim *b);

/* "axis 3 out of range for rank 2". */
bool infer_check_axis(const Node *n, const char *what, int64_t axis, int rank);
/* Reads an axes option: unique, in range.  Absent: all axes when `all_by_default`, else none.
 * Sets mask[0..rank) and returns the count, or -1 on error.  `order` (optional) gets the list. */
int infer_read_axes(const Node *n, const char *key, int rank, bool all_by_default, bool *mask, int *order);
/* Reads an integer-array option that must have exactly `count` entries each >= `min`
 * (absent: fills `def`).  Returns false with a diagnostic. */
bool infer_read_ints(const Node *n, const char *key, int count, int64_t min, int64_t def, int64_t *out);
/* Reads a string enum option; returns the index in `values` (NULL terminated), the default
 * index 0 when absent, or -1 with a diagnostic. */
int infer_read_enum(const Node *n, const char *key, const char *const *values);
/* Requires a static dim; "dynamic dim not supported for OP WHAT". */
bool infer_need_static(const Node *n, Dim d, const char *what);

/* Unidirectional broadcast of `from` to `to` (numpy rules, `from` never grows `to`). */
bool infer_unidirectional(int rf, const Dim *from, int rt, const Dim *to);

/* ---- per-op rules --------------------------------------------------------------------------- */
/* Each fills out[] and returns the number of outputs, or -1 with a diagnostic.  Operand counts,
 * presence of required operands, input ranks <= WN_MAX_RANK and option types are checked by
 * infer_node() before these run; output dims are validated after. */
typedef int (*InferFn)(Graph *g, const Node *n, TensorDesc *out, int max_out);

/* An entry of a family's op-indexed rule table: the rule, or OP_UNSUPPORTED("reason")
 * (op_support.h).  infer.c looks an op up in the table of its ops.def family only. */
typedef struct {
    InferFn fn;
    const char *unsupported;
} InferRule;

/* The family tables: infer_FAMILY_rules in infer_FAMILY.c for each line of op_families.def. */
#define FAMILY(NAME) extern const InferRule infer_##NAME##_rules[OP_COUNT];
#include "op_families.def"
#undef FAMILY

#endif
