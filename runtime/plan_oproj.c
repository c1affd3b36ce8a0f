/* plan_oproj.c - plan-level rewrite that lets decode attention take the output projection after it:
 *
 *   o = groupQueryAttention(...);  y = matmulNBits(o, ...);  qkvProjection / gatedMlp(y, skip, ...)
 *
 * becomes, wherever the attention decodes one token of one batch row (k_oproj_fold.h): one dispatch
 * for attention, o_proj and the skip sum (shaders/ext_gqa_dec_oproj.comp writes y + skip into y's
 * storage), none for o_proj, and the projection reading that sum as its input (plan_residual.c's
 * pair).  Each decode layer then has one dependent dispatch fewer.  Other recordings (prefill) run
 * the attention as it is and matmulNBits + projection as plan_residual.c's pair.  Conditions: those
 * of plan_residual.c's pair (whether or not it would pay there), o has the matmulNBits as its only
 * consumer and is no graph output, the attention node is open, and ext_gqa_oproj_ok.  Runs before
 * plan_residual_rewrite.  WEBNNC_NO_FUSE=1 or WEBNNC_OPROJ_FOLD=0 disables it. */

#include "core.h"
#include "k_oproj_fold.h"
#include "rt_model.h"

static int visit(WnrtModel *m, const Node *n, const int *uses) {
    int slot;
    const Node *p = plan_residual_producer(m, n, uses, &slot);
    const Value *o = p ? p->inputs[0] : NULL;
    const Node *a = o ? o->producer : NULL;
    if (!a || a->op != OP_GROUP_QUERY_ATTENTION || o->producer_slot != GQA_OUT || uses[o->id] != 1 || (o->flags & VF_OUTPUT) ||
        !plan_node_open(m, a) || !ext_gqa_oproj_ok(&m->dev->info, a, p))
        return 0;
    OprojFold params = {.oproj = p};
    PlanRewrite attn = {.fam = &kfam_gqa_oproj, .n_inputs = OPROJ_INPUTS, .label = WNRT_REWRITE_TAKES_OPROJ};
    for (int k = 0; k < GQA_SLOTS && k < a->n_inputs; k++) attn.inputs[k] = a->inputs[k];
    attn.inputs[OPROJ_W] = p->inputs[1];
    attn.inputs[OPROJ_SCALES] = p->inputs[2];
    attn.inputs[OPROJ_ZP] = p->n_inputs > 3 ? p->inputs[3] : NULL;
    attn.inputs[OPROJ_RES] = n->inputs[slot == FP_INPUT ? FP_SKIP : FP_INPUT];
    attn.inputs[OPROJ_RES_BIAS] = n->n_inputs > FP_SKIP_BIAS ? n->inputs[FP_SKIP_BIAS] : NULL;
    attn.inputs[OPROJ_Y] = p->outputs[0];
    return plan_residual_pair(m, &m->oproj_plan, n, p, slot, &kfam_ext_nbits_oproj, &params, sizeof params) < 0 ||
                   plan_rewrite_node(m, &m->oproj_plan, a->index, &attn, &params, sizeof params) < 0
               ? -1
               : 0;
}

int plan_oproj_rewrite(WnrtModel *m) { return plan_visit_open_nodes(m, false, visit); }
