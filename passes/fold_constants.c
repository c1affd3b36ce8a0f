/* fold_constants.c - constant folding pass: evaluates (lib/eval) every node whose operands are all
 * constants, in topological order so chains fold completely, then drops the folded nodes. */
#include "eval.h"
#include "pass.h"

int pass_fold_constants(Graph *g, const PassOptions *opt) {
    (void)opt;
    for (int i = 0; i < g->n_nodes; i++)
        if (fold_node(g, g->nodes[i]) < 0) return -1;
    graph_compact(g);
    return 0;
}
