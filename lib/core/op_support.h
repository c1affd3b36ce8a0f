/* op_support.h - how a layer records, for every op of ops.def, either its implementation or an
 * explicit "unsupported: reason" mark, and how the op coverage test asks it.
 *
 * Shape inference and the evaluator keep one op-indexed table per op family (op_families.def)
 * in the family's file (infer_FAMILY.c, eval_FAMILY.c); an entry is {function} or
 * OP_UNSUPPORTED("reason").  The layer looks an op up in its own family's table only, so an op
 * filed in another family's table is reported as misplaced, and an op in neither is missing:
 * both fail tests/core/test_op_coverage.c instead of falling through silently. */
#ifndef WEBNNC_OP_SUPPORT_H
#define WEBNNC_OP_SUPPORT_H

#include "ir.h"

typedef enum {
    OPSUP_MISSING,     /* no entry: a bug (the coverage test fails) */
    OPSUP_HANDLED,     /* the layer has a function for the op */
    OPSUP_UNSUPPORTED, /* explicitly not handled; *reason says why */
    OPSUP_MISPLACED,   /* an entry sits in another family's table than ops.def names */
    OPSUP_NOT_APPLICABLE, /* the layer does not concern this op (e.g. element-wise shader codes) */
} OpSupport;

/* A table entry that says why the layer does not handle the op. */
#define OP_UNSUPPORTED(why) {.fn = 0, .unsupported = (why)}

/* Defines `OpSupport NAME(OpId op, const char **reason)` over TABLES, an array [OPFAM_COUNT] of
 * op-indexed tables of entries {fn, unsupported}.  *reason (may be NULL) gets the unsupported
 * reason or the family the op is misplaced in. */
#define DEFINE_OP_SUPPORT(NAME, TABLES)                                                          \
    OpSupport NAME(OpId op, const char **reason) {                                               \
        const OpInfo *info = op_info(op);                                                        \
        if (!info) return OPSUP_MISSING;                                                         \
        for (int f = 0; f < OPFAM_COUNT; f++) {                                                  \
            if (f == (int)info->family || (!TABLES[f][op].fn && !TABLES[f][op].unsupported))     \
                continue;                                                                        \
            if (reason) *reason = op_family_name((OpFamily)f);                                   \
            return OPSUP_MISPLACED;                                                              \
        }                                                                                        \
        if (TABLES[info->family][op].fn) return OPSUP_HANDLED;                                   \
        const char *why = TABLES[info->family][op].unsupported;                                  \
        if (!why || !*why) return OPSUP_MISSING;                                                 \
        if (reason) *reason = why;                                                               \
        return OPSUP_UNSUPPORTED;                                                                \
    }

/* The layers' answers (lib/core/infer.c, lib/eval/eval.c). */
OpSupport infer_support(OpId op, const char **reason);
OpSupport eval_support(OpId op, const char **reason);

#endif
