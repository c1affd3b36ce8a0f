/* eval.h - CPU reference evaluation of IR nodes, used to fold constant subgraphs at conversion
 * time (and as an oracle in tests).  Computes in double / int64 and rounds to the output dtype. */
#ifndef WEBNNC_EVAL_H
#define WEBNNC_EVAL_H

#include "ir.h"

/* Evaluates node n whose operands are all constants.  On success fills out_data[i] (arena memory,
 * IR layout) and out_nbytes[i] for each output and returns 0.  Returns 1 when the evaluator does not
 * handle this op/dtype combination (not an error), -1 with a diagnostic on failure. */
int eval_node(Graph *g, const Node *n, const void **out_data, uint64_t *out_nbytes);

/* If every operand of n is constant, the op is supported and the result is not too large, turns
 * n's outputs into constants and marks n dead.  Returns 1 if folded, 0 if not, -1 on error. */
int fold_node(Graph *g, Node *n);

#endif
