/* plan_reduce.c - plan-level rewrite of a reduction followed by an element-wise epilogue into one
 * dispatch of the reduction kernel (k_reduce.h, shaders/reduce.comp):
 *
 *   cast(binary(reduce*(x), c)),  binary(reduce*(x), c)  or  cast(reduce*(x))
 *
 * binary: add, sub or mul with a one-element constant c on either side, in the reduction's dtype;
 * cast: integer -> integer or float -> float (the dtype pairs reduce.comp is built for).  The
 * ORT-GenAI attention-mask chain, reduceSum(attention_mask) - 1 -> int32 (GroupQueryAttention's
 * seqlensK), then runs as one dispatch instead of three, at every decode step.  As for the
 * mat-vec rewrites (plan_matvec.h): the graph stays as loaded, every intermediate value has the
 * next node as its only consumer and is no graph output, the absorbed nodes are not run and get
 * no storage, and WEBNNC_NO_FUSE=1 disables the rewrite. */

#include "ew_codes.h"
#include "k_reduce.h"
#include "rt_model.h"

/* The epilogue's op code of a binary op (add / sub / mul), or 0. */
static int epilogue_code(OpId op) {
    int code = kernel_binary_code(op);
    return code == EWB_ADD || code == EWB_SUB || code == EWB_MUL ? code : 0;
}

/* The producer of v when v is its only output, consumed once and no graph output. */
static const Node *sole_producer(const Value *v, const int *uses) {
    const Node *p = v->producer;
    if (!p || p->dead || p->n_outputs != 1 || uses[v->id] != 1 || (v->flags & VF_OUTPUT)) return NULL;
    return p;
}

static bool cast_supported(DType from, DType to) {
    bool fi = from == DT_I32 || from == DT_I64, ti = to == DT_I32 || to == DT_I64;
    bool ff = from == DT_F32 || from == DT_F16, tf = to == DT_F32 || to == DT_F16;
    return (fi && ti) || (ff && tf);
}

/* Matches the chain ending at node n; fills e and the constant; false if it does not apply. */
static bool match(const Node *n, const int *uses, KReduceEpilogue *e, const Value **c) {
    const Node *cur = n;
    const Value *out = n->n_outputs == 1 ? n->outputs[0] : NULL;
    if (!out) return false;
    if (n->op == OP_CAST) {
        if (n->n_inputs != 1 || !n->inputs[0] || !cast_supported(n->inputs[0]->dtype, out->dtype)) return false;
        cur = sole_producer(n->inputs[0], uses);
        if (!cur) return false;
    }
    *c = NULL;
    e->binary_op = epilogue_code(cur->op);
    if (e->binary_op) {
        if (cur->n_inputs != 2 || !cur->inputs[0] || !cur->inputs[1]) return false;
        int ci = (cur->inputs[1]->flags & VF_CONST) ? 1 : (cur->inputs[0]->flags & VF_CONST) ? 0 : -1;
        if (ci < 0) return false;
        const Value *k = cur->inputs[ci], *r = cur->inputs[1 - ci];
        if (!k->data || value_max_elements(k) != 1 || k->dtype != r->dtype ||
            value_max_elements(r) != value_max_elements(cur->outputs[0]))
            return false;
        *c = k;
        e->const_first = ci == 0;
        cur = sole_producer(r, uses);
        if (!cur) return false;
    } else if (n->op != OP_CAST) {
        return false; /* neither a binary op nor a cast: nothing to fuse */
    }
    if (!kernel_is_reduction(cur->op) || cur->n_inputs != 1 || !cur->inputs[0]) return false;
    e->reduce = cur;
    return true;
}

static int visit(WnrtModel *m, const Node *n, const int *uses) {
    KReduceEpilogue e = {0};
    const Value *c;
    if (!match(n, uses, &e, &c) || !plan_node_open(m, e.reduce)) return 0;
    PlanRewrite rw = {.fam = &kfam_reduce_epilogue, .n_inputs = c ? 2 : 1, .inputs = {e.reduce->inputs[0], c}};
    if (plan_rewrite_node(m, &m->reduce_plan, n->index, &rw, &e, sizeof e) < 0) return -1;
    plan_absorb(m, e.reduce, n);
    if (n->op == OP_CAST && e.binary_op) plan_absorb(m, n->inputs[0]->producer, n);
    return 0;
}

/* consumers first, so that a cast takes the whole chain before its binary op could take a part */
int plan_reduce_rewrite(WnrtModel *m) { return plan_visit_open_nodes(m, true, visit); }
