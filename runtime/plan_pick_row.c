/* plan_pick_row.c - plan-level rewrite of a one-row gather in front of matmulNBits: the product
 * reads its activation row in place (k_ext_nbits.h KNbitsPickRow) instead of a gathered copy:
 *
 *   matmulNBits(gather(x, c, axis = rank - 2), ...)     x [1, .., 1, S, K], c one constant 0 or -1
 *
 * the vocabulary head of a decoder after passes/last_logits.c (index -1, the last position): one
 * dispatch fewer at every decode step and prefill.  Conditions as for the other rewrites
 * (plan_matvec.h): the gathered value has the head as its only consumer and is no graph output;
 * the head takes the row mat-vec (ext_nbits_pick_row_ok); indices 0 and -1 only, which every S >= 1
 * holds, so no index is ever out of range.  WEBNNC_NO_FUSE=1 disables it. */

#include "k_ext_nbits.h"
#include "kfamilies.h"
#include "rt_model.h"

/* The one index of constant c (int32 / int64), or false. */
static bool const_index(const Value *c, int64_t *index) {
    if (!(c->flags & VF_CONST) || !c->data || value_max_elements(c) != 1) return false;
    if (c->dtype == DT_I32) *index = *(const int32_t *)c->data;
    else if (c->dtype == DT_I64) *index = *(const int64_t *)c->data;
    else return false;
    return true;
}

/* Whether matmulNBits node h reads one row of a gather it can absorb; fills *g and *index. */
static bool match(const Node *h, const int *uses, const Node **g, int64_t *index) {
    const Value *a = h->n_inputs > 0 ? h->inputs[0] : NULL;
    const Node *p = a ? a->producer : NULL;
    if (!p || p->dead || p->op != OP_GATHER || p->n_inputs != 2 || p->n_outputs != 1 || uses[a->id] != 1 ||
        (a->flags & VF_OUTPUT))
        return false;
    const Value *x = p->inputs[0];
    if (!x || x->rank < 2 || x->dtype != a->dtype || !const_index(p->inputs[1], index) || (*index != 0 && *index != -1) ||
        node_int(p, "axis", 0) != x->rank - 2)
        return false;
    for (int d = 0; d < x->rank - 2; d++)
        if (!dim_is_static(x->shape[d]) || x->shape[d].v != 1) return false;
    if (!dim_is_static(x->shape[x->rank - 1]) || !ext_nbits_pick_row_ok(h, x)) return false;
    *g = p;
    return true;
}

static int visit(WnrtModel *m, const Node *h, const int *uses) {
    const Node *gather;
    int64_t index;
    if (h->op != OP_MATMUL_NBITS || !match(h, uses, &gather, &index)) return 0;
    KNbitsPickRow pick = {.index = index};
    PlanRewrite rw = {.fam = &kfam_ext_nbits, .n_inputs = h->n_inputs};
    for (int k = 0; k < h->n_inputs; k++) rw.inputs[k] = h->inputs[k];
    rw.inputs[0] = gather->inputs[0];
    if (plan_rewrite_node(m, &m->pick_plan, h->index, &rw, &pick, sizeof pick) < 0) return -1;
    plan_absorb(m, gather, h);
    return 0;
}

int plan_pick_row_rewrite(WnrtModel *m) { return plan_visit_open_nodes(m, false, visit); }
