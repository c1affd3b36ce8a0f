/* restore_scatter.c - pass restore_scatter: the inverse of legalize_scatter.c for webnnc's own
 * runtime.  A graph legalized for a target without computed scatter indices carries the KV-cache
 * write as
 *     where(reshape(cast(reduceMax(hit, [0]), uint8)), gather(updates, argMax(hit, 0), axis), x)
 *     hit = cast(equal([cast](reshape(r, [S, 1])), iota[1, C]), int32)
 * which the runtime cannot do in place (the caches would not stay on the device) and the fusions
 * do not recognise.  Reading such a graph to run it (run, generate), this pass puts back
 *     scatterElements(x, expand(r, shape(updates)), updates, axis)
 * exactly as decompose_gqa writes it; the constant iota is checked element by element, so only
 * the legalizer's own form is matched. */
#include <string.h>

#include "decompose.h"
#include "pass.h"

static Node *made_by(const Value *v, OpId op) { return v && v->producer && v->producer->op == op ? v->producer : NULL; }

static bool is_iota_row(const Value *c, int64_t n) {
    if (!(c->flags & VF_CONST) || !c->data || c->dtype != DT_I32 || c->rank != 2 || c->shape[0].v != 1 ||
        !dim_is_static(c->shape[1]) || c->shape[1].v != n || c->nbytes < sizeof(int32_t) * (uint64_t)n)
        return false;
    const int32_t *p = c->data;
    for (int64_t i = 0; i < n; i++)
        if (p[i] != i) return false;
    return true;
}

typedef struct {
    Value *x, *r, *upd;
    int axis;
} ScatterParts;

static bool match(const Node *w, ScatterParts *m) {
    Node *reshape = made_by(w->inputs[0], OP_RESHAPE), *to_u8 = reshape ? made_by(reshape->inputs[0], OP_CAST) : NULL;
    Node *any = to_u8 ? made_by(to_u8->inputs[0], OP_REDUCE_MAX) : NULL, *gather = made_by(w->inputs[1], OP_GATHER);
    Node *pick = gather ? made_by(gather->inputs[1], OP_ARG_MAX) : NULL;
    if (!any || !pick || pick->inputs[0] != any->inputs[0]) return false;
    Node *hit = made_by(any->inputs[0], OP_CAST), *eq = hit ? made_by(hit->inputs[0], OP_EQUAL) : NULL;
    if (!eq) return false;
    Value *vec = eq->inputs[0];
    Node *vcast = made_by(vec, OP_CAST), *vshape = made_by(vcast ? vcast->inputs[0] : vec, OP_RESHAPE);
    m->x = w->inputs[2];
    m->upd = gather->inputs[0];
    m->axis = (int)node_int(gather, "axis", 0);
    if (!vshape || m->axis >= m->x->rank || !dim_is_static(m->x->shape[m->axis]) ||
        !is_iota_row(eq->inputs[1], m->x->shape[m->axis].v))
        return false;
    m->r = vshape->inputs[0];
    if (m->r->rank != m->x->rank || m->upd->rank != m->x->rank || !dim_equal(m->r->shape[m->axis], m->upd->shape[m->axis]))
        return false;
    for (int d = 0; d < m->r->rank; d++)
        if (d != m->axis && !(dim_is_static(m->r->shape[d]) && m->r->shape[d].v == 1)) return false;
    return true;
}

static bool want(const Graph *g, const Node *n, const void *ctx) {
    ScatterParts m;
    return match(n, &m);
}

static int restore(Dec *d) {
    ScatterParts m;
    if (!match(d->ext, &m)) return pass_dc_fail(d, "not a legalized scatter");
    Value *indices = pass_dc_expand(d, m.r, m.upd->rank, m.upd->shape);
    if (!indices) return -1;
    Node *s = graph_new_node(d->g, OP_SCATTER_ELEMENTS, d->ext->origin);
    node_add_input(d->g, s, m.x);
    node_add_input(d->g, s, indices);
    node_add_input(d->g, s, m.upd);
    node_set_uint(d->g, s, "axis", m.axis);
    return pass_dc_result(d, 0, graph_finish(d->g, s));
}

int pass_restore_scatter(Graph *g, const PassOptions *opt) {
    if (pass_decompose_matching(g, OP_WHERE, want, NULL, restore) < 0) return -1;
    const Pass *dce = pass_find("dce");
    return dce->run(g, opt);
}
