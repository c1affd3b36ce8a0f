/* fold_constants.c - constant folding pass: evaluates (lib/eval) every node whose operands are all
 * constants, in topological order so chains fold completely, then drops the folded nodes.
 * With PassOptions.keep_quantized (the conversion pipelines), a dequantizeLinear of 4-bit constants
 * is kept whatever its size: the quantized weights are what the matmulNBits / gatherBlockQuantized
 * fusions and kernels consume (eval_fold_node alone keeps only results above 16 KiB).  Without it
 * (tests and fusion proofs evaluating a graph), everything foldable folds. */
#include "eval.h"
#include "pass.h"

static bool keeps_weights(const Node *n) {
    return n->op == OP_DEQUANTIZE_LINEAR && n->n_inputs > 0 && n->inputs[0] && dtype_bits(n->inputs[0]->dtype) == 4;
}

int pass_fold_constants(Graph *g, const PassOptions *opt) {
    for (int i = 0; i < g->n_nodes; i++)
        if (!(opt->keep_quantized && keeps_weights(g->nodes[i])) && eval_fold_node(g, g->nodes[i]) < 0) return -1;
    graph_compact(g);
    return 0;
}
