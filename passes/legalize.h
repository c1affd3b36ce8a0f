/* legalize.h - the parts of pass legalize_limits (passes/legalize_limits.c): rewrites that make a
 * spec-op graph fit a WebNN implementation's limits (impl_limits.h).  Each returns 0, or -1 with a
 * one-line diagnostic naming the node, the operand and the limit when it cannot. */
#ifndef WEBNNC_LEGALIZE_H
#define WEBNNC_LEGALIZE_H

#include "webnn.h"
#include "core.h"

/* uint4 values the target does not take (constants and what data-movement ops make of them) become
 * int4 (values and zero points shifted by -8), uint8, or int8, whichever all their uses accept
 * (legalize_4bit.c). */
int pass_legalize_4bit(Graph *g, const ImplLimits *l);
/* Nodes the target refuses with int64 but takes with int32 are computed in int32 between casts
 * (legalize_int64.c). */
int pass_legalize_int64(Graph *g, const ImplLimits *l);
/* Element-wise nodes (static shapes) of a rank above the target's range are computed on flat
 * [N] tensors (legalize_rank.c). */
int pass_legalize_rank(Graph *g, const ImplLimits *l);
/* scatterElements whose computed indices the target refuses (the KV-cache write) become
 * equal/argMax/gather/where over the scatter axis (legalize_scatter.c). */
int pass_legalize_scatter(Graph *g, const ImplLimits *l);

#endif
