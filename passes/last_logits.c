/* last_logits.c - pass last_logits: a decoder that only needs the next token's logits computes the
 * vocabulary head for the last position only.  From the graph output `logits` it walks back over
 * row-wise nodes (element-wise ops and casts whose other operand is a constant that does not vary
 * along the sequence: final-logit soft-capping, scaling) to the head, a matmul / matmulNBits whose
 * activation has rank 3 ([batch, sequence, hidden]), and gathers index -1 of the sequence axis in
 * front of it (WebNN gather: negative indices count from the end), so the head runs on one row and
 * `logits` becomes [batch, 1, vocab].  Not in the conversion pipeline: `webnnc generate` and
 * `profile` apply it to the graph they run (a 512-token prefill of a 151936-token vocabulary
 * otherwise computes and stores 512 rows of logits for one pick).  A graph without such a head is
 * left as it is (the pass reports nothing and changes nothing). */
#include <stdio.h>
#include <string.h>

#include "fuse_match.h"
#include "pass.h"

#define MAX_CHAIN 16

/* Whether n maps each sequence row of its activation operand to the same row of its output. */
static bool row_wise(const Node *n, Value **act) {
    switch (n->op) {
    case OP_CAST:
    case OP_TANH:
    case OP_NEG:
        *act = n->inputs[0];
        return n->n_inputs == 1;
    case OP_MUL:
    case OP_DIV:
    case OP_ADD:
    case OP_SUB: {
        if (n->n_inputs != 2) return false;
        int c = pass_fm_is_const(n->inputs[1]) ? 1 : pass_fm_is_const(n->inputs[0]) ? 0 : -1;
        if (c < 0) return false;
        const Value *k = n->inputs[c];
        for (int d = 0; d + 1 < k->rank; d++) /* broadcast over every axis but the vocabulary */
            if (!dim_is_static(k->shape[d]) || k->shape[d].v != 1) return false;
        *act = n->inputs[1 - c];
        return true;
    }
    default:
        return false;
    }
}

static bool is_head(const Node *n) {
    if (n->op != OP_MATMUL_NBITS && n->op != OP_MATMUL) return false;
    const Value *a = n->inputs[0];
    if (a->rank != 3 || (n->op == OP_MATMUL && !pass_fm_is_const(n->inputs[1]))) return false;
    return !(dim_is_static(a->shape[1]) && a->shape[1].v == 1); /* one row already */
}

/* Shape inference again for a node whose operand changed. */
static int reinfer(Graph *g, Node *n) {
    TensorDesc out[4];
    int count = infer_node(g, n, out, 4);
    if (count != n->n_outputs) return -1;
    for (int i = 0; i < count; i++) {
        n->outputs[i]->rank = out[i].rank;
        memcpy(n->outputs[i]->shape, out[i].shape, sizeof out[i].shape);
    }
    return 0;
}

int pass_last_logits(Graph *g, const PassOptions *opt) {
    (void)opt;
    Value *logits = NULL;
    for (int i = 0; i < g->n_outputs; i++)
        if (strcmp(g->outputs[i]->name, "logits") == 0) logits = g->outputs[i];
    if (!logits || logits->rank != 3) return 0;
    FuseMap fm = {0};
    if (pass_fm_build(&fm, g) < 0) return -1;
    Node *chain[MAX_CHAIN];
    int n_chain = 0;
    Value *v = logits;
    Node *head = NULL;
    while (v->producer && n_chain < MAX_CHAIN) {
        Node *p = v->producer;
        if (p->n_outputs != 1 || (v != logits && pass_fm_uses(&fm, v) != 1)) break;
        if (is_head(p)) {
            head = p;
            break;
        }
        Value *act;
        if (!row_wise(p, &act) || act->rank != 3) break;
        chain[n_chain++] = p;
        v = act;
    }
    pass_fm_free(&fm);
    if (!head) return 0;
    Value *rows = head->inputs[0];
    int32_t last = -1;
    char base[96];
    snprintf(base, sizeof base, "%s_last_row", head->id ? head->id : "logits");
    Value *index = graph_add_const_copy(g, base, DT_I32, 1, (int64_t[]){1}, &last, sizeof last);
    Node *gather = graph_new_node(g, OP_GATHER, head->origin);
    node_add_input(g, gather, rows);
    node_add_input(g, gather, index);
    node_set_uint(g, gather, "axis", 1);
    Value *row = index ? graph_finish(g, gather) : NULL;
    if (!row) return -1;
    head->inputs[0] = row;
    if (reinfer(g, head) < 0) return -1;
    for (int i = n_chain - 1; i >= 0; i--)
        if (reinfer(g, chain[i]) < 0) return -1;
    return pass_fm_toposort(g); /* the gather was appended: place it before the head */
}
