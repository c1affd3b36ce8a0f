/* limits_check.h - checks a graph against a WebNN implementation's limits (impl_limits.h): every
 * node's op is listed, each operand and output has an accepted data type and rank, operands the
 * notes require to be constants are constants, graph inputs / constants / outputs have accepted
 * types, and no tensor exceeds maxTensorByteLength (limits_check.c).  Used by the legalization
 * pass (passes/legalize_limits.c) and `webnnc validate --limits`. */
#ifndef WEBNNC_LIMITS_CHECK_H
#define WEBNNC_LIMITS_CHECK_H

#include <stdbool.h>

#include "impl_limits.h"
#include "core.h"

/* The limits entry name of n's operand slot i ("a", "indices", "inputs") and output j ("output",
 * "outputs" or "output0".. as the limits file lists them). */
const char *wn_limits_operand_name(const Node *n, int i);
const char *wn_limits_output_name(const ImplLimits *l, const Node *n, int j);

/* Whether a tensor of dt/rank is accepted for op's operand (false when the op or operand is not
 * listed). */
bool wn_limits_accepts(const ImplLimits *l, const char *op, const char *operand, DType dt, int rank);

/* 0 when node n fits the limits, else -1 + one diagnostic line naming the node, the operand and the
 * limit ("node X (op): operand indices: must be a constant (notes of FILE)"). */
int wn_limits_check_node(const Graph *g, const ImplLimits *l, const Node *n);
/* Every node, then graph inputs, constants, outputs and tensor sizes.  0, or -1 + diagnostic. */
int wn_limits_check_graph(const Graph *g, const ImplLimits *l);

#endif
