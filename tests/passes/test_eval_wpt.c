/* test_eval_wpt.c - runs every WebNN WPT conformance case (../shared/wpt-webnn (*.json files)) through the
 * CPU reference evaluator (lib/eval) and checks the results with the WPT tolerances.  This
 * validates the evaluator and the WPT case loader against an external oracle.  The shared driver
 * (tests/common/wpt_suite.c) restores the clamp cases whose Infinity/NaN the corpus lost, prints
 * pass/fail counts per op file and fails on any failing case (the evaluator has no expected
 * failures). */
#include <stdio.h>

#include "core.h"
#include "eval.h"
#include "wpt_suite.h"

/* Evaluates every node of the case's graph in order; returns NULL or a reason for failure. */
static const char *evaluate(WptCase *c, char *why, size_t len) {
    for (int i = 0; i < c->n_inputs; i++) {
        c->inputs[i].value->data = c->inputs[i].data;
        c->inputs[i].value->nbytes = c->inputs[i].nbytes;
    }
    Graph *g = c->g;
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        const void *data[64];
        uint64_t nbytes[64];
        if (n->n_outputs > 64) return "too many outputs";
        int rc = eval_node(g, n, data, nbytes);
        if (rc != 0) {
            snprintf(why, len, "eval_node(%s) %s", op_name(n->op), rc > 0 ? "unsupported" : diag_message());
            return why;
        }
        for (int k = 0; k < n->n_outputs; k++) {
            n->outputs[k]->data = data[k];
            n->outputs[k]->nbytes = nbytes[k];
        }
    }
    for (int k = 0; k < c->n_outputs; k++) {
        int ok = wpt_compare(c, k, c->outputs[k].value->data, why, len);
        if (ok != 1) return ok < 0 ? "bad output" : why;
    }
    return NULL;
}

int main(void) { return wpt_suite_main("eval_wpt", evaluate, NULL, 0); }
