/* fuse_qkv.c - pass fuse_qkv: recovers qkvProjection (ORT's MatMulNBitsQkv, docs/extension-ops.md)
 * from an RMSNorm whose output is read only by projections (fuse_norm_proj.h):
 *   - two or three separate projections of the normalized input (q, k, v of the dml models): their
 *     weights are packed along n, one output per projection, in graph order; but three that are
 *     read only by one groupQueryAttention, as its query, key and value, become one packed output
 *     (q, k, v in that order: splits = [n]) that the attention reads as its packed QKV, its key and
 *     value inputs dropped: the same values, one tensor where there were three, as the webgpu
 *     models have it (H200, Qwen2-0.5B dml, timestamped decode: qkvProjection 7.27 -> 7.17 us a
 *     layer, the webgpu model's 7.14; `generate` 1490-1496 -> 1495-1496 tok/s after 128 tokens and
 *     1383-1386 -> 1388-1392 after 512, the same ids);
 *   - one projection followed by a split along the last axis (up to 3 parts): the split's sizes;
 *   - one projection (a packed QKV feeding GQA): splits = [n].  Not a projection of at least
 *     QKV_HEAD_RATIO * k columns (the final norm and the vocabulary head): the fused kernels
 *     recompute the norm per output tile / row group, and for a head of 151936 x 896 that made it
 *     slower than the norm plus matmulNBits on an H100 (prefill of 512 tokens 10.1 against 6.7 ms,
 *     decode 115 against 100 us).
 * A skipRmsNorm whose sum is used later gives outputSum.  A pair whose result feeds silu, or a pair
 * read as act(gate) * up (fuse_gate_act.h), is a gated MLP (fuse_gated_mlp.c) and is left alone, as
 * are norms whose output is used elsewhere. */
#include "fuse_gate_act.h"
#include "fuse_norm_proj.h"
#include "pass.h"

#define QKV_HEAD_RATIO 8 /* a single projection this many times wider than k is a vocabulary head */

static bool gated(FuseMap *fm, const NormProj *np) {
    for (int i = 0; i < np->count; i++) {
        if (pass_fm_consumer_op(fm, np->y[i], OP_SILU) || pass_fm_consumer_op(fm, np->y[i], OP_SIGMOID)) return true;
        FuseMatch scratch = {0};
        GateActivation act;
        if (np->count == 2 && pass_gate_product(fm, np->y[i], np->y[1 - i], &act, &scratch)) return true;
    }
    return false;
}

/* The split along the last axis that is the only reader of y, or NULL. */
static Node *last_axis_split(FuseMap *fm, Value *y, int64_t *sizes, int *count) {
    Node *sp = pass_fm_sole_consumer(fm, y);
    if (!sp || sp->op != OP_SPLIT || node_int(sp, "axis", 0) != y->rank - 1 || sp->n_outputs < 1 || sp->n_outputs > NP_MAX)
        return NULL;
    for (int i = 0; i < sp->n_outputs; i++) {
        Value *o = sp->outputs[i];
        if (!dim_is_static(o->shape[o->rank - 1])) return NULL;
        sizes[i] = o->shape[o->rank - 1].v;
    }
    *count = sp->n_outputs;
    return sp;
}

/* The groupQueryAttention that is the only reader of three separate projections, as its query, key and
 * value; order[] gets their indices in that order.  NULL when they are read otherwise. */
static Node *qkv_attention(FuseMap *fm, const NormProj *np, int *order) {
    static const int slot[3] = {GQA_QUERY, GQA_KEY, GQA_VALUE};
    if (np->count != 3) return NULL;
    Node *att = NULL;
    for (int i = 0; i < 3; i++) {
        Node *c = pass_fm_sole_consumer(fm, np->y[i]);
        if (!c || c->op != OP_GROUP_QUERY_ATTENTION || (att && c != att)) return NULL;
        att = c;
    }
    int found[3];
    for (int s = 0; s < 3; s++) {
        found[s] = -1;
        for (int i = 0; i < 3; i++)
            if (att->n_inputs > slot[s] && att->inputs[slot[s]] == np->y[i]) found[s] = i;
        if (found[s] < 0) return NULL; /* (order untouched: the three outputs keep graph order) */
    }
    for (int s = 0; s < 3; s++) order[s] = found[s];
    return att;
}

static int match(FuseMap *fm, Node *norm) {
    NormProj np;
    if ((norm->op != OP_RMS_NORM && norm->op != OP_SKIP_RMS_NORM) || !pass_np_read(fm, norm, &np) || gated(fm, &np)) return 0;
    int order[NP_MAX] = {0, 1, 2}, n_splits = np.count;
    int64_t splits[NP_MAX];
    Value *exits[NP_MAX + 1];
    for (int i = 0; i < np.count; i++) splits[i] = np.n[i], exits[i] = np.y[i];
    Node *sp = np.count == 1 ? last_axis_split(fm, np.y[0], splits, &n_splits) : NULL;
    if (np.count == 1 && !sp && np.n[0] >= QKV_HEAD_RATIO * np.k) return 0;
    for (int i = 0; sp && i < n_splits; i++) exits[i] = sp->outputs[i];
    Node *att = sp ? NULL : qkv_attention(fm, &np, order);
    Value *read[NP_MAX + 1]; /* att: the three outputs it reads now, which it stops reading, and the skip sum */
    if (att) {
        for (int i = 0; i < 3; i++) read[i] = np.y[i];
        splits[0] = np.n[0] + np.n[1] + np.n[2];
        n_splits = 1;
        exits[0] = NULL;
    }
    FuseMatch m = {0};
    pass_fm_add(&m, sp);
    Node *f = pass_np_emit(fm, &np, OP_QKV_PROJECTION, order, np.count, &m, &exits[n_splits]);
    node_set_ints(fm->g, f, "splits", n_splits, splits);
    int n_exits = n_splits + (exits[n_splits] ? 1 : 0);
    if (att) read[3] = exits[1]; /* (NULL when unused: matches no value) */
    if (!pass_fm_interior_ok(fm, &m, att ? read : exits, att ? NP_MAX + 1 : n_exits)) return 0;
    if (!att) return pass_fm_insert_commit(fm, &m, f, exits, n_exits);
    if (graph_insert_node(fm->g, f) < 0) return -1;
    att->inputs[GQA_QUERY] = f->outputs[0];
    att->inputs[GQA_KEY] = att->inputs[GQA_VALUE] = NULL;
    return pass_fm_commit(fm, &m, f, exits, n_exits) < 0 ? -1 : 1;
}

int pass_fuse_qkv(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, -1, match) < 0 ? -1 : 0;
}
