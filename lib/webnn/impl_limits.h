/* impl_limits.h - WebNN implementation limits: what MLContext.opSupportLimits() returned, saved as
 * JSON (../shared/webnn-limits/, one .json per browser; issue 12's --limits FILE).  Per op and operand the data types
 * and rank range accepted, plus the limits for graph inputs, constants and outputs,
 * maxTensorByteLength and preferredInputLayout.  Read by limits_read.c. */
#ifndef WEBNNC_IMPL_LIMITS_H
#define WEBNNC_IMPL_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

typedef struct {
    uint32_t data_types;   /* bit (1u << DType) per accepted type; unknown names are ignored */
    int rank_min, rank_max; /* 0 and WN_RANK_ANY when the file gives no rankRange */
} OperandSupport;

#define WN_RANK_ANY 255

typedef struct {
    const char *op;      /* "add" */
    const char *operand; /* "a" */
    OperandSupport s;
} OperandLimit;

typedef struct ImplLimits {
    OperandSupport input, constant, output; /* data_types 0: not given */
    uint64_t max_tensor_byte_length;        /* 0: not given */
    const char *preferred_input_layout;     /* "nchw", "nhwc", or NULL */
    int n_ops;
    int n_operands;
    OperandLimit *operands; /* grouped by op, in file order */
    struct Arena *arena;    /* owns the strings and the array */
    const char *src;        /* the file (or "builtin:NAME") the limits came from, for messages */
    /* Notes (limits_notes.c): rules opSupportLimits() cannot express. */
    int n_const_only;
    const char **const_only_op, **const_only_operand; /* operand must be a constant */
} ImplLimits;

/* Reads a limits file.  NULL + one diagnostic naming the file and the key on any problem (not
 * JSON, a value of the wrong type, rank range out of order, a resource limit such as
 * config-file-size, json-nesting, string-length or node-count (ops)). */
ImplLimits *wn_impl_limits_read(const char *path);
/* Same from text in memory; `src` names it in diagnostics. */
ImplLimits *wn_impl_limits_parse(const char *json, size_t len, const char *src);
void wn_impl_limits_free(ImplLimits *l);

/* Limits by name for `--limits SPEC`: NULL/"" or "chromium" = the built-in Chromium 153 CPU limits
 * and notes (data/limits/); otherwise a file path, with the notes of a sibling FILE-stem.notes.json
 * when present.  "none" is the caller's business.  NULL + diagnostic on any problem. */
ImplLimits *wn_impl_limits_load(const char *spec);
/* Adds the notes in `json` (format "webnnc-limits-notes": {"constantOperands": [{"op", "operand"}]}).
 * 0, or -1 + diagnostic naming src and the key. */
int wn_impl_limits_parse_notes(ImplLimits *l, const char *json, size_t len, const char *src);
/* Whether the notes require op's operand to be a constant. */
bool wn_impl_limits_constant_only(const ImplLimits *l, const char *op, const char *operand);

/* The entry for op/operand, or NULL when the file does not list it. */
const OperandSupport *wn_impl_limits_find(const ImplLimits *l, const char *op, const char *operand);
/* Whether a tensor of this type and rank is acceptable to s. */
bool wn_operand_supports(const OperandSupport *s, DType dt, int rank);

#endif
