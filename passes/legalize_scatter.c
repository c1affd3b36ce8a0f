/* legalize_scatter.c - scatterElements with computed indices, for targets that take only constant
 * indices (Chromium 153: "scatterElements only supports constant indices"; the KV-cache write of
 * decompose_gqa is such a scatter).  When the indices are the same along every axis but the scatter
 * axis (an expand of a [1,..,S,..,1] vector r, or such a tensor itself), the scatter
 *     out = scatterElements(x, indices, updates, axis)          x: C rows on axis, updates: S rows
 * becomes, exactly (no arithmetic on the data):
 *     hit[S, C] = equal(reshape(r, [S, 1]), iota[1, C])          row c is written by update row j
 *     j[C]     = argMax(cast(hit, int32), axis 0)                which j (0 where none)
 *     any[C]   = reduceMax(cast(hit, int32), axes [0])
 *     out      = where(reshape(any, [1,..,C,..,1]), gather(updates, j, axis), x)
 * Indices are taken as rows 0..C-1 (no negative indices, as the KV write has).  Other computed
 * scatter indices cannot be legalized: the conversion stops naming the node. */
#include <stdlib.h>

#include "decompose.h"
#include "core.h"
#include "legalize.h"
#include "webnn.h"

/* The [1,..,S,..,1] vector the indices are broadcast from, or NULL. */
static Value *row_vector(Value *idx, const Value *upd, int axis) {
    Value *r = idx->producer && idx->producer->op == OP_EXPAND ? idx->producer->inputs[0] : idx;
    if (r->rank != idx->rank || !dim_equal(r->shape[axis], upd->shape[axis])) return NULL;
    for (int d = 0; d < r->rank; d++)
        if (d != axis && !(dim_is_static(r->shape[d]) && r->shape[d].v == 1)) return NULL;
    return r;
}

static bool refused(const Graph *g, const Node *n, const void *ctx) {
    const ImplLimits *l = ctx;
    const Value *idx = n->inputs[1];
    return !(idx->flags & VF_CONST) && (wn_impl_limits_constant_only(l, op_name(n->op), "indices") ||
                                        !wn_limits_accepts(l, op_name(n->op), "indices", idx->dtype, idx->rank));
}

static Value *reduce_axis0(Dec *d, OpId op, Value *x) {
    if (!x) return NULL;
    Node *n = graph_new_node(d->g, op, d->ext->origin);
    node_add_input(d->g, n, x);
    if (op == OP_ARG_MAX) {
        node_set_uint(d->g, n, "axis", 0);
        node_set_dtype(d->g, n, "outputDataType", DT_I32);
    } else
        node_set_ints(d->g, n, "axes", 1, (const int64_t[]){0});
    node_set_bool(d->g, n, "keepDimensions", false);
    return graph_finish(d->g, n);
}

static int rewrite(Dec *d) {
    Value *x = pass_dc_in(d, 0), *idx = pass_dc_in(d, 1), *upd = pass_dc_in(d, 2);
    int axis = (int)node_int(d->ext, "axis", 0);
    Value *r = row_vector(idx, upd, axis);
    if (!r)
        return pass_dc_fail(d, "operand indices (%s): computed scatter indices that differ along the other axes cannot be "
                          "legalized for a target that takes only constant indices", value_display_name(idx));
    if (!dim_is_static(x->shape[axis])) return pass_dc_fail(d, "operand input: the scatter axis %d is not static", axis);
    int64_t c = x->shape[axis].v;
    int32_t *iota = malloc(sizeof *iota * (size_t)c);
    if (!iota) return pass_dc_fail(d, "out of memory");
    for (int64_t i = 0; i < c; i++) iota[i] = (int32_t)i;
    Value *rows = pass_dc_const(d, DT_I32, 2, (const int64_t[]){1, c}, iota, sizeof *iota * (uint64_t)c);
    free(iota);
    Value *vec = pass_dc_cast(d, pass_dc_reshape(d, r, 2, (Dim[]){upd->shape[axis], dim_static(1)}), DT_I32);
    Value *hit = pass_dc_cast(d, pass_dc_binary(d, OP_EQUAL, vec, rows), DT_I32);
    Value *pick = reduce_axis0(d, OP_ARG_MAX, hit), *any = reduce_axis0(d, OP_REDUCE_MAX, hit);
    Dim mshape[WN_MAX_RANK];
    for (int i = 0; i < x->rank; i++) mshape[i] = dim_static(i == axis ? c : 1);
    Value *mask = pass_dc_reshape(d, pass_dc_cast(d, any, DT_U8), x->rank, mshape);
    Value *moved = pass_dc_gather(d, upd, pick, axis);
    if (!mask || !moved) return -1;
    Node *w = graph_new_node(d->g, OP_WHERE, d->ext->origin);
    node_add_input(d->g, w, mask);
    node_add_input(d->g, w, moved);
    node_add_input(d->g, w, x);
    return pass_dc_result(d, 0, graph_finish(d->g, w));
}

int pass_legalize_scatter(Graph *g, const ImplLimits *l) {
    return pass_decompose_matching(g, OP_SCATTER_ELEMENTS, refused, l, rewrite);
}
