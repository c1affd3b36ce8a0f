/* fuse_match.h - what the fusion passes (passes/fuse_*.c) share: a use map of the graph (how many
 * live consumers each value has and which), producer walks with a depth bound, constant checks,
 * the match record with its "every interior value is consumed only inside the match and is not a
 * graph output" check, and the rewrite that replaces a whole match by one fused node.
 *
 * A fusion pass runs fuse_each(): it calls the pattern's matcher on every live node (the anchor);
 * the matcher walks from the anchor, records the matched nodes in a FuseMatch, builds the fused
 * node with pass_fm_emit_begin/graph_insert_node and hands it to pass_fm_commit(), which rewires the uses of
 * the match's exit values to the fused node's outputs (the fused outputs take over their names),
 * marks the matched nodes dead and refreshes the use map.  At the end the node list is put back in
 * topological order and compacted. */
#ifndef WEBNNC_FUSE_MATCH_H
#define WEBNNC_FUSE_MATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

#define FM_MAX_NODES 192 /* nodes one match may cover (an attention block is ~60) */
#define FM_MAX_DEPTH 64  /* bound of every producer walk */

typedef struct {
    Graph *g;
    int n_values;
    int32_t *uses;     /* per value id: consumer slots of live nodes (+1 for a graph output) */
    int32_t *first;    /* CSR offsets into `cons` (n_values + 1) */
    Node **cons;       /* consumers, one entry per use slot */
} FuseMap;

typedef struct {
    Node *nodes[FM_MAX_NODES];
    int n;
    bool overflow;
} FuseMatch;

/* Matcher: examine `anchor`; on a match build and commit the fused node and return 1; return 0
 * when nothing matched (no diagnostic), -1 on a real error. */
typedef int (*FuseFn)(FuseMap *fm, Node *anchor);

/* Runs fn on every live node whose op is `anchor_op` (or every node for anchor_op < 0), restores
 * the topological order and compacts when anything changed.  Returns the number of fusions, or -1. */
int fuse_each(Graph *g, int anchor_op, FuseFn fn);

/* ---- the use map ------------------------------------------------------------------------------ */
int pass_fm_build(FuseMap *fm, Graph *g); /* 0 or -1 (out of memory) */
void pass_fm_free(FuseMap *fm);
int pass_fm_uses(const FuseMap *fm, const Value *v);
/* The consumers of v (one entry per use slot); sets *count. */
Node *const *pass_fm_consumers(const FuseMap *fm, const Value *v, int *count);
/* The only consumer of v when it has exactly one use and is not a graph output, else NULL. */
Node *pass_fm_sole_consumer(const FuseMap *fm, const Value *v);
/* The consumer of v with op `op` (the first one), or NULL. */
Node *pass_fm_consumer_op(const FuseMap *fm, const Value *v, OpId op);

/* ---- producer walks ---------------------------------------------------------------------------- */
/* The live producer of v when its op is `op`, else NULL. */
Node *pass_fm_prod(const Value *v, OpId op);
/* v seen through up to FM_MAX_DEPTH producers of op `through` (e.g. casts), recording them in m. */
Value *pass_fm_skip(Value *v, OpId through, FuseMatch *m);
/* The other operand of binary node n (n->inputs[0] or [1], whichever is not v); NULL if neither. */
Value *pass_fm_other(const Node *n, const Value *v);
/* True when v is reached from `from` by walking producers' first operands (depth bounded). */
bool pass_fm_reaches(const Value *from, const Value *v);

/* ---- constants --------------------------------------------------------------------------------- */
bool pass_fm_is_const(const Value *v);
/* v is a constant (any shape, at most 2^20 elements) whose elements all equal; stores the value. */
bool pass_fm_const_scalar(const Value *v, double *x);
/* Same, through a cast of a constant. */
bool pass_fm_const_scalar_cast(const Value *v, double *x);
/* |a - b| <= tol * max(1, |b|) */
bool pass_fm_near(double a, double b, double tol);
/* The producer of v when it is a binary `op` with an operand that is a scalar constant near `want`
 * (pass_fm_near with tol; for div only the divisor counts): sets *other to the other operand. */
Node *pass_fm_prod_const(const Value *v, OpId op, double want, double tol, Value **other);
/* The shape of v equals dims. */
bool pass_fm_shape_is(const Value *v, int rank, const int64_t *dims);
bool pass_fm_same_shape(const Value *a, const Value *b);
/* The integer array option `key` of n equals want[0..count). */
bool pass_fm_ints_are(const Node *n, const char *key, int count, const int64_t *want);

/* ---- the match --------------------------------------------------------------------------------- */
void pass_fm_add(FuseMatch *m, Node *n); /* once per node; sets overflow when full */
bool pass_fm_has(const FuseMatch *m, const Node *n);
/* Every output of every matched node other than the `n_exits` exits is consumed only by matched
 * nodes and is not a graph output; no matched node is dead; no overflow. */
bool pass_fm_interior_ok(const FuseMap *fm, const FuseMatch *m, Value *const *exits, int n_exits);

/* ---- rewriting --------------------------------------------------------------------------------- */
/* A new fused node of op `op` named after the anchor's ONNX origin. */
Node *pass_fm_emit_begin(FuseMap *fm, OpId op, const Node *anchor);
/* After graph_insert_node(fused) succeeded: exits[i] is replaced by fused->outputs[i] (NULL exits are
 * skipped), the fused outputs take over the exits' names, the matched nodes die, the map is rebuilt.
 * The fused node's dtype/shape must equal each exit's (checked).  0 or -1. */
int pass_fm_commit(FuseMap *fm, FuseMatch *m, Node *fused, Value *const *exits, int n_exits);
/* graph_insert_node(fused) then pass_fm_commit: 1 (a fusion, for the matcher to return) or -1. */
int pass_fm_insert_commit(FuseMap *fm, FuseMatch *m, Node *fused, Value *const *exits, int n_exits);
/* A constant copied into the graph. */
Value *pass_fm_const(Graph *g, const char *base, DType dt, int rank, const int64_t *shape, const void *data,
                uint64_t nbytes);

/* The float constant v with its elements in float type `to` (v itself when it has that type), or
 * NULL when v is not a static float constant or some element is not exactly representable in `to`
 * (NaN included).  Undoes a folded cast of a constant (e.g. a float16 norm weight that folding
 * turned into float32), so the fused op gets the weight in the dtype the origin had. */
Value *pass_fm_const_as(Graph *g, Value *v, DType to);

/* Restores a topological order of g->nodes (stable: a node moves only behind its producers) and
 * compacts the graph.  0, or -1 on a cycle. */
int pass_fm_toposort(Graph *g);

#endif
