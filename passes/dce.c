/* dce.c - dead code elimination: walks the nodes backwards from the graph outputs and removes
 * nodes none of whose outputs is used; graph_compact then drops constants nothing reads.  Graph
 * inputs are always kept (they are the graph's interface). */
#include <stdlib.h>

#include "core.h"
#include "pass.h"

int pass_dce(Graph *g, const PassOptions *opt) {
    (void)opt;
    unsigned char *used = calloc((size_t)g->n_values + 1, 1);
    if (!used) {
        diag_error("out of memory in dce");
        return -1;
    }
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i]->id >= 0 && g->outputs[i]->id < g->n_values) used[g->outputs[i]->id] = 1;
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        Node *n = g->nodes[i];
        if (n->dead) continue;
        bool live = false;
        for (int k = 0; k < n->n_outputs && !live; k++) {
            int id = n->outputs[k]->id;
            live = (id >= 0 && id < g->n_values && used[id]) || (n->outputs[k]->flags & VF_OUTPUT);
        }
        if (!live) {
            n->dead = true;
            continue;
        }
        for (int k = 0; k < n->n_inputs; k++) {
            const Value *v = n->inputs[k];
            if (v && v->id >= 0 && v->id < g->n_values) used[v->id] = 1;
        }
    }
    free(used);
    graph_compact(g);
    return 0;
}
