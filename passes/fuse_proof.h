/* fuse_proof.h - matching a fusion candidate by re-decomposition, for the macro-op patterns whose
 * decomposed form is large and has many variants (groupQueryAttention, rotaryEmbedding).
 *
 * A matcher reads the candidate's operands (values of the real graph) and options off a few key
 * nodes, then proves the guess: the candidate node is built in a scratch graph (graph inputs and
 * constants mirroring the operands, the real graph's symbolic dims copied), decomposed there by the
 * op's own decompose pass (+ identity, dce; a second attempt also folds constants, for graphs that
 * were folded after decomposing), and the scratch decomposition is compared node by node with the
 * real graph backwards from the real exits: same ops, options, output slots, constants with equal
 * bytes, and every scratch input bound to the real operand it mirrors.  On success the matched real
 * nodes (the image of the scratch nodes) are in the FuseMatch and pass_fp_emit builds the real fused node;
 * anything the guess got wrong (another scale, a non-causal mask, a different rotary layout) makes
 * the comparison fail, so only exact equivalents fuse. */
#ifndef WEBNNC_FUSE_PROOF_H
#define WEBNNC_FUSE_PROOF_H

#include "fuse_match.h"

typedef struct {
    Graph *s;                          /* scratch graph */
    Node *cand;                        /* the candidate node in s */
    Value *outer[WN_MAX_INPUT_SLOTS];  /* operands in the real graph (NULL = absent) */
    Value *inner[WN_MAX_INPUT_SLOTS];  /* their mirrors in s */
    int n;
    bool overflow;                     /* more operands than WN_MAX_INPUT_SLOTS were given */
    Node **map;                        /* scratch node index -> real node */
    int n_map;
} FuseProof;

/* Starts a candidate of op `op` for real graph g.  0 or -1 (out of memory). */
int pass_fp_begin(FuseProof *p, const Graph *g, OpId op);
/* Appends the next operand (a value of the real graph, or NULL for an absent optional one). */
void pass_fp_operand(FuseProof *p, Value *real);
/* Inserts the candidate (options set by the caller on p->s / p->cand), decomposes it with the pass
 * `decompose` and compares with the real graph from exits[0..n_exits) (exit i = candidate output i,
 * NULL to skip).  1: matched, the real nodes added to m; 0: no match (no diagnostic). */
int pass_fp_prove(FuseProof *p, FuseMap *fm, const char *decompose, Value *const *exits, int n_exits, FuseMatch *m);
/* The real fused node: the candidate's op, operands and options, named after `anchor`; not inserted. */
Node *pass_fp_emit(FuseProof *p, FuseMap *fm, const Node *anchor);
void pass_fp_end(FuseProof *p);

/* Copies every option of `from` (any graph) onto `to` of graph g. */
void pass_fm_copy_attrs(Graph *g, Node *to, const Node *from);
/* The two nodes carry the same options (keys, types, values). */
bool pass_fm_same_attrs(const Node *a, const Node *b);

#endif
