/* fuse_norm_proj.c - reading an RMSNorm followed by projections and emitting the packed
 * normalized-projection node (fuse_norm_proj.h). */
#include <string.h>

#include "core.h"
#include "fuse_norm_proj.h"

static Value *in(const Node *n, int i) { return i < n->n_inputs ? n->inputs[i] : NULL; }

static bool norm_ok(const Node *norm) {
    Value *x = in(norm, 0);
    if (!x || x->rank < 1 || !dim_is_static(x->shape[x->rank - 1])) return false;
    int64_t k = x->shape[x->rank - 1].v;
    if (norm->op == OP_RMS_NORM) {
        Value *s = in(norm, 1);
        return node_int(norm, "axis", -1) == x->rank - 1 && (node_int(norm, "stashType", 1) == 1 || x->dtype == DT_F32) &&
               s && s->dtype == x->dtype && pass_fm_shape_is(s, 1, &k);
    }
    if (norm->op != OP_SKIP_RMS_NORM) return false;
    Value *skip = in(norm, 1), *s = in(norm, 2), *b = in(norm, 3);
    return skip && pass_fm_same_shape(skip, x) && skip->dtype == x->dtype && s && s->dtype == x->dtype && pass_fm_shape_is(s, 1, &k) &&
           (!b || pass_fm_shape_is(b, 1, &k));
}

/* One projection reading h: fills slot i of np (kind and geometry must agree with slot 0). */
static bool projection(FuseMap *fm, NormProj *np, Node *p, int i) {
    Value *h = np->h;
    if (p->n_inputs < 2 || p->inputs[0] != h || p->inputs[1] == h) return false;
    bool nbits = p->op == OP_MATMUL_NBITS;
    if (i > 0 && nbits != np->nbits) return false;
    np->nbits = nbits;
    np->proj[i] = p;
    if (nbits) {
        NBitsGeom geo;
        Value *b = in(p, 1), *s = in(p, 2), *z = in(p, 3), *bias = in(p, 4);
        if (nbits_geometry(p, &geo) < 0 || !pass_fm_is_const(b) || !pass_fm_is_const(s) || (z && (!pass_fm_is_const(z) || z->dtype != DT_U8)) ||
            (bias && !pass_fm_is_const(bias)) || s->dtype != h->dtype || geo.k != h->shape[h->rank - 1].v)
            return false;
        if (b->nbytes != (uint64_t)(geo.n * geo.k_blocks * geo.blob) || value_max_elements(s) != (uint64_t)(geo.n * geo.k_blocks) ||
            (z && z->nbytes != (uint64_t)(geo.n * geo.zp_row_bytes)) || (bias && value_max_elements(bias) != (uint64_t)geo.n))
            return false;
        if (i > 0 && (geo.k != np->k || geo.bits != np->bits || geo.block != np->block)) return false;
        np->k = geo.k, np->bits = geo.bits, np->block = geo.block, np->n[i] = geo.n;
        np->y[i] = p->outputs[0];
        return true;
    }
    Value *w = in(p, 1);
    if (p->op != OP_MATMUL || !pass_fm_is_const(w) || w->rank != 2 || !value_is_static(w) || w->dtype != h->dtype ||
        w->shape[0].v != h->shape[h->rank - 1].v)
        return false;
    np->k = w->shape[0].v, np->n[i] = w->shape[1].v, np->y[i] = p->outputs[0];
    Node *add = pass_fm_sole_consumer(fm, p->outputs[0]);
    Value *c = add && add->op == OP_ADD ? pass_fm_other(add, p->outputs[0]) : NULL;
    if (c && pass_fm_is_const(c) && c->dtype == h->dtype && pass_fm_shape_is(c, 1, &np->n[i])) {
        np->bias_add[i] = add, np->bias[i] = c, np->y[i] = add->outputs[0];
    }
    return true;
}

bool pass_np_read(FuseMap *fm, Node *norm, NormProj *np) {
    memset(np, 0, sizeof *np);
    if (norm->dead || !norm_ok(norm)) return false;
    np->norm = norm;
    np->h = norm->outputs[0];
    int c;
    Node *const *cs = pass_fm_consumers(fm, np->h, &c);
    if (c < 1 || c > NP_MAX || (np->h->flags & VF_OUTPUT) || pass_fm_uses(fm, np->h) != c) return false;
    for (int i = 0; i < c; i++) {
        for (int j = 0; j < i; j++)
            if (cs[j] == cs[i]) return false;
        if (!projection(fm, np, cs[i], i)) return false;
    }
    np->count = c;
    return true;
}

/* ---- packing along n -------------------------------------------------------------------------- */

/* Concatenation of per-projection byte blocks (NULL blocks filled with `fill`). */
static Value *pack_rows(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const Value *const *parts,
                        const uint64_t *sizes, int count, uint8_t fill) {
    uint64_t total = 0;
    for (int i = 0; i < count; i++) total += sizes[i];
    if (count == 1 && parts[0] && parts[0]->nbytes == total) return graph_add_const(g, parts[0]->name, dt, rank, shape, parts[0]->data, total);
    uint8_t *buf = graph_alloc(g, (size_t)total + 1);
    uint64_t at = 0;
    for (int i = 0; i < count; i++) {
        if (parts[i]) memcpy(buf + at, parts[i]->data, (size_t)sizes[i]);
        else memset(buf + at, fill, (size_t)sizes[i]);
        at += sizes[i];
    }
    return graph_add_const(g, name, dt, rank, shape, buf, total);
}

/* Float [k, n_i] matrices side by side: [k, sum n]. */
static Value *pack_columns(Graph *g, const NormProj *np, const int *order, int count, int64_t n_total) {
    const Value *w0 = in(np->proj[order[0]], 1);
    if (count == 1) return (Value *)w0;
    size_t es = (size_t)dtype_bits(w0->dtype) / 8, row = (size_t)n_total * es;
    uint8_t *buf = graph_alloc(g, row * (size_t)np->k);
    size_t col = 0;
    for (int i = 0; i < count; i++) {
        const Value *w = in(np->proj[order[i]], 1);
        size_t width = (size_t)np->n[order[i]] * es;
        for (int64_t r = 0; r < np->k; r++) memcpy(buf + (size_t)r * row + col, (const uint8_t *)w->data + (size_t)r * width, width);
        col += width;
    }
    return graph_add_const(g, "packed_weight", w0->dtype, 2, (const int64_t[]){np->k, n_total}, buf, row * (size_t)np->k);
}

Node *pass_np_emit(FuseMap *fm, const NormProj *np, OpId op, const int *order, int count, FuseMatch *m, Value **sum_exit) {
    Graph *g = fm->g;
    Node *norm = np->norm;
    bool skip = norm->op == OP_SKIP_RMS_NORM;
    int64_t n_total = 0;
    for (int i = 0; i < count; i++) n_total += np->n[order[i]];
    const Value *ws[NP_MAX], *ss[NP_MAX], *zs[NP_MAX], *bs[NP_MAX];
    uint64_t wsz[NP_MAX], ssz[NP_MAX], zsz[NP_MAX], bsz[NP_MAX];
    bool any_z = false, any_b = false;
    int64_t kb = (np->k + np->block - 1) / (np->block ? np->block : 1);
    int64_t blob = np->block * np->bits / 8, zrow = (kb * np->bits + 7) / 8;
    size_t fes = (size_t)dtype_bits(np->h->dtype) / 8;
    for (int i = 0; i < count; i++) {
        Node *p = np->proj[order[i]];
        int64_t n = np->n[order[i]];
        ws[i] = np->nbits ? in(p, 1) : NULL, ss[i] = np->nbits ? in(p, 2) : NULL, zs[i] = np->nbits ? in(p, 3) : NULL;
        bs[i] = np->nbits ? in(p, 4) : np->bias[order[i]];
        wsz[i] = (uint64_t)(n * kb * blob), ssz[i] = (uint64_t)(n * kb) * fes, zsz[i] = (uint64_t)(n * zrow);
        bsz[i] = (uint64_t)n * fes;
        any_z |= zs[i] != NULL, any_b |= bs[i] != NULL;
        pass_fm_add(m, p);
        pass_fm_add(m, np->bias_add[order[i]]);
    }
    pass_fm_add(m, norm);
    Node *f = pass_fm_emit_begin(fm, op, np->proj[order[0]]);
    node_add_input(g, f, in(norm, 0));
    node_add_input(g, f, skip ? in(norm, 1) : NULL);
    node_add_input(g, f, skip ? in(norm, 3) : NULL);
    node_add_input(g, f, in(norm, skip ? 2 : 1));
    if (np->nbits) {
        uint8_t zfill = np->bits == 4 ? 0x88 : np->bits == 8 ? 0x80 : 0xAA; /* 2^(bits-1) in every field */
        node_add_input(g, f, pack_rows(g, "packed_weight", DT_U8, 3, (const int64_t[]){n_total, kb, blob}, ws, wsz, count, 0));
        node_add_input(g, f, pack_rows(g, "packed_scales", np->h->dtype, 2, (const int64_t[]){n_total, kb}, ss, ssz, count, 0));
        node_add_input(g, f, any_z ? pack_rows(g, "packed_zero_points", DT_U8, 2, (const int64_t[]){n_total, zrow}, zs, zsz, count, zfill) : NULL);
    } else {
        node_add_input(g, f, pack_columns(g, np, order, count, n_total));
        node_add_input(g, f, NULL);
        node_add_input(g, f, NULL);
    }
    node_add_input(g, f, any_b ? pack_rows(g, "packed_bias", np->h->dtype, 1, &n_total, bs, bsz, count, 0) : NULL);
    node_set_float(g, f, "epsilon", node_float(norm, "epsilon", EXT_RMS_NORM_EPSILON));
    node_set_uint(g, f, "k", np->k);
    node_set_uint(g, f, "n", n_total);
    if (np->nbits) {
        node_set_uint(g, f, "bits", np->bits);
        node_set_uint(g, f, "blockSize", np->block);
    }
    *sum_exit = skip && norm->n_outputs > 1 && pass_fm_uses(fm, norm->outputs[1]) > 0 ? norm->outputs[1] : NULL;
    if (*sum_exit) node_set_bool(g, f, "outputSum", true);
    return f;
}
