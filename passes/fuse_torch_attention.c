/* fuse_torch_attention.c - pass fuse_torch_attention: recovers groupQueryAttention without a KV
 * cache (docs/extension-ops.md) from the scaled-dot-product attention torch exports produce over
 * the current sequence.  Anchored at softmax (axis 3):
 *   heads(x3, n) = transpose(reshape(x3 [B, S, n*H], [B, S, n, H]), [0, 2, 1, 3])
 *   Q = rot(heads(query, N)), K = rot(heads(key, kvN)), V = heads(value, kvN)
 *       rot: nothing, the torch rotary form (fuse_torch.h) or a rotaryEmbedding node with position
 *       offset 0 (fuse_torch_rotary's output), the same caches for Q and K -> doRotary
 *   repeat(X) = reshape(expand(reshape(X, [B, kvN, 1, S, H]), [B, kvN, G, S, H]), [B, N, S, H])
 *               (absent when G = 1)
 *   logits = add(mul(matmul(Q, transpose(repeat(K), [0, 1, 3, 2])), scale) | div by 1/scale, mask)
 *   out = reshape(transpose(matmul(softmax(logits), repeat(V)), [0, 2, 1, 3]), [B, S, N*H])
 * mask: a constant [1, 1, S, S] or a prefix slice of one, whose every entry (up to the bound of S)
 * is 0 on and below the diagonal and <= -1e30 (or -inf) above it: exactly causal.  Any other mask
 * (non-causal, windowed, padding), a scale that is not one scalar, another head grouping or a value
 * used outside the block: no match. */
#include <math.h>
#include <string.h>

#include "diag.h"
#include "eval_internal.h"
#include "fuse_torch.h"
#include "gqa.h"
#include "pass.h"

#define MASKED_MAX (-1e30) /* a masked logit: exp underflows to 0 in float32 for any finite score */

typedef struct {
    FuseMatch m;
    Value *cos, *sin;
    bool rotary, interleaved;
} Att;

static bool perm_is(const Node *n, const int64_t *p) { return n && fm_ints_are(n, "permutation", 4, p); }

/* Static dim equal to v. */
static bool dim_is(Dim d, int64_t v) { return dim_is_static(d) && d.v == v; }

/* x3 [B, S, n*H] behind heads(x3, n) = h; sets n and H. */
static Value *heads_source(Att *a, Value *h, int64_t *n, int64_t *H) {
    Node *tr = fm_prod(h, OP_TRANSPOSE);
    Node *rs = tr ? fm_prod(tr->inputs[0], OP_RESHAPE) : NULL;
    if (!rs || !perm_is(tr, (const int64_t[]){0, 2, 1, 3})) return NULL;
    Value *x3 = rs->inputs[0], *x4 = rs->outputs[0];
    if (!x3 || x3->rank != 3 || x4->rank != 4 || !dim_equal(x4->shape[0], x3->shape[0]) ||
        !dim_equal(x4->shape[1], x3->shape[1]) || !dim_is_static(x4->shape[2]) || !dim_is_static(x4->shape[3]) ||
        !dim_is(x3->shape[2], x4->shape[2].v * x4->shape[3].v))
        return NULL;
    *n = x4->shape[2].v, *H = x4->shape[3].v;
    fm_add(&a->m, tr);
    fm_add(&a->m, rs);
    return x3;
}

/* rotaryEmbedding(x [B, N, S, H], positions [0], cos, sin) as fuse_torch_rotary emits it. */
static Value *rotary_node(Att *a, Node *r) {
    double offset;
    Value *x = r->inputs[0], *pos = r->n_inputs > 1 ? r->inputs[1] : NULL;
    if (r->n_inputs != 4 || !x || x->rank != 4 || !pos || pos->rank != 1 || !fm_const_scalar(pos, &offset) || offset != 0)
        return NULL;
    Value *c = r->inputs[2], *s = r->inputs[3];
    if (!c || !s || c->rank != 2 || !dim_is_static(c->shape[1])) return NULL;
    int64_t rd = node_int(r, "rotaryEmbeddingDim", 0);
    if (rd != 0 && rd != 2 * c->shape[1].v) return NULL;
    a->cos = c, a->sin = s;
    a->interleaved = node_bool(r, "interleaved", false);
    fm_add(&a->m, r);
    return x;
}

/* The heads before the rotary of a Q/K path (the value itself when there is none).  Q and K must
 * both have a rotary with the same caches, or neither. */
static Value *unrotate(FuseMap *fm, Att *a, Value *y, bool first) {
    Value *cos = a->cos, *sin = a->sin, *x = NULL;
    bool inter = a->interleaved;
    TorchRotary r;
    Node *rn = fm_prod(y, OP_ROTARY_EMBEDDING);
    if (rn) {
        x = rotary_node(a, rn);
    } else {
        int got = torch_rotary_read(fm, y, &r);
        if (got < 0) return NULL;
        if (got) {
            for (int i = 0; i < r.n; i++) fm_add(&a->m, r.nodes[i]);
            a->cos = r.cos, a->sin = r.sin, a->interleaved = false;
            x = r.x;
        }
    }
    bool rot = x != NULL;
    if (first) a->rotary = rot;
    else if (rot != a->rotary || (rot && (a->cos != cos || a->sin != sin || a->interleaved != inter))) return NULL;
    return rot ? x : y;
}

/* X [B, kvN, S, H] behind repeat(X) = x ([B, N, S, H]); x itself when not a repeat. */
static Value *unrepeat(Att *a, Value *x) {
    Node *r2 = fm_prod(x, OP_RESHAPE), *ex = r2 ? fm_prod(r2->inputs[0], OP_EXPAND) : NULL;
    Node *r1 = ex ? fm_prod(ex->inputs[0], OP_RESHAPE) : NULL;
    if (!r1) return x;
    Value *k = r1->inputs[0], *k5 = r1->outputs[0], *e5 = ex->outputs[0];
    if (!k || k->rank != 4 || k5->rank != 5 || e5->rank != 5 || x->rank != 4) return NULL;
    Dim B = k->shape[0], kv = k->shape[1], S = k->shape[2], H = k->shape[3];
    const Dim want5[5] = {B, kv, dim_static(1), S, H};
    for (int i = 0; i < 5; i++)
        if (!dim_equal(k5->shape[i], want5[i]) || (i != 2 && !dim_equal(e5->shape[i], want5[i]))) return NULL;
    if (!dim_is_static(kv) || !dim_is_static(e5->shape[2]) || !dim_is(x->shape[1], kv.v * e5->shape[2].v) ||
        !dim_equal(x->shape[0], B) || !dim_equal(x->shape[2], S) || !dim_equal(x->shape[3], H))
        return NULL;
    fm_add(&a->m, r2);
    fm_add(&a->m, ex);
    fm_add(&a->m, r1);
    return k;
}

/* The mask is exactly causal over [S, S]: a constant [1, 1, S, S] or a zero-based prefix of one. */
static bool causal_mask(Value *mask, Dim S) {
    if (!mask || mask->rank != 4 || !torch_leading_ones(mask, 2) || !dim_equal(mask->shape[2], S) ||
        !dim_equal(mask->shape[3], S))
        return false;
    Value *full = fm_is_const(mask) ? mask : torch_prefix_source(mask);
    if (!full || !fm_is_const(full) || !value_is_static(full) || full->rank != 4 || !torch_leading_ones(full, 2) ||
        !dtype_is_float(full->dtype))
        return false;
    int64_t rows = full->shape[2].v, cols = full->shape[3].v, n = dim_max(S);
    uint64_t count = value_max_elements(full);
    if (n < 1 || n > rows || n > cols || count > ((uint64_t)1 << 26) || full->nbytes < dtype_storage_bytes(full->dtype, count))
        return false;
    Ten t = {.dt = full->dtype, .rank = 1, .count = (int64_t)count, .data = (void *)full->data};
    t.shape[0] = (int64_t)count;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double x = ten_getf(&t, i * cols + j);
            if (j <= i ? x != 0.0 : !(x <= MASKED_MAX)) return false;
        }
    return true;
}

/* mul(s, scale) or div(s, 1/scale) with a constant scalar; the matmul producing s. */
static Node *scaled(Value *v, double *scale) {
    Node *n = fm_prod(v, OP_MUL), *d = n ? NULL : fm_prod(v, OP_DIV);
    double c;
    if (n) {
        for (int k = 0; k < 2; k++)
            if (fm_const_scalar(n->inputs[1 - k], &c) && fm_prod(n->inputs[k], OP_MATMUL)) {
                *scale = c;
                return n;
            }
        return NULL;
    }
    if (!d || !fm_const_scalar(d->inputs[1], &c) || c == 0 || !fm_prod(d->inputs[0], OP_MATMUL)) return NULL;
    *scale = 1.0 / c;
    return d;
}

static int match(FuseMap *fm, Node *sm) {
    Att a = {0};
    Value *logits = sm->inputs[0];
    if (node_int(sm, "axis", -1) != 3 || !logits || logits->rank != 4) return 0;
    Node *add = fm_prod(logits, OP_ADD), *sc = NULL;
    Value *mask = NULL;
    double scale = 0;
    for (int k = 0; add && k < 2 && !sc; k++)
        if ((sc = scaled(add->inputs[k], &scale))) mask = add->inputs[1 - k];
    if (!sc || !isfinite(scale) || scale <= 0) return 0;
    Node *qk = fm_prod(sc->inputs[0], OP_MATMUL) ? sc->inputs[0]->producer : sc->inputs[1]->producer;
    Node *kt = fm_prod(qk->inputs[1], OP_TRANSPOSE);
    Node *pv = fm_consumer_op(fm, sm->outputs[0], OP_MATMUL);
    if (!kt || !perm_is(kt, (const int64_t[]){0, 1, 3, 2}) || !pv || pv->inputs[0] != sm->outputs[0]) return 0;
    Node *tr = fm_sole_consumer(fm, pv->outputs[0]);
    Node *rs = tr && tr->op == OP_TRANSPOSE ? fm_sole_consumer(fm, tr->outputs[0]) : NULL;
    if (!rs || rs->op != OP_RESHAPE || !perm_is(tr, (const int64_t[]){0, 2, 1, 3})) return 0;
    fm_add(&a.m, sm), fm_add(&a.m, add), fm_add(&a.m, sc), fm_add(&a.m, qk), fm_add(&a.m, kt);
    fm_add(&a.m, pv), fm_add(&a.m, tr), fm_add(&a.m, rs);
    int64_t N, kvN, kvN2, H, Hk, Hv;
    Value *q3 = NULL, *k3 = NULL, *v3 = NULL;
    Value *qh = unrotate(fm, &a, qk->inputs[0], true);
    if (qh) q3 = heads_source(&a, qh, &N, &H);
    Value *kr = unrepeat(&a, kt->inputs[0]), *kh = kr ? unrotate(fm, &a, kr, false) : NULL;
    if (kh) k3 = heads_source(&a, kh, &kvN, &Hk);
    Value *vr = unrepeat(&a, pv->inputs[1]);
    if (vr) v3 = heads_source(&a, vr, &kvN2, &Hv);
    if (diag_has_error()) return -1;
    if (!q3 || !k3 || !v3 || H != Hk || H != Hv || kvN != kvN2 || N % kvN || N > GQA_MAX_HEADS ||
        !dim_is(logits->shape[1], N) || !dim_is(pv->inputs[1]->shape[1], N) || !dim_is(kt->inputs[0]->shape[1], N))
        return 0;
    Dim B = q3->shape[0], S = q3->shape[1];
    Value *out = rs->outputs[0];
    Dim want[3] = {B, S, dim_static(N * H)};
    if (out->rank != 3 || !dim_equal(out->shape[0], want[0]) || !dim_equal(out->shape[1], want[1]) ||
        !dim_equal(out->shape[2], want[2]))
        return 0;
    for (int i = 0; i < 2; i++)
        if (!dim_equal(k3->shape[i], q3->shape[i]) || !dim_equal(v3->shape[i], q3->shape[i])) return 0;
    if (q3->dtype != k3->dtype || q3->dtype != v3->dtype || q3->dtype != out->dtype || !dtype_is_float(q3->dtype) ||
        !causal_mask(mask, S))
        return 0;
    if (a.rotary && (a.cos->dtype != q3->dtype || a.cos->shape[1].v * 2 > H)) return 0;
    if (!fm_interior_ok(fm, &a.m, &out, 1)) return 0;
    Node *f = fm_emit_begin(fm, OP_GROUP_QUERY_ATTENTION, sm);
    Value *ops[GQA_SIN + 1] = {q3, k3, v3, NULL, NULL, NULL, NULL, a.rotary ? a.cos : NULL, a.rotary ? a.sin : NULL};
    for (int i = 0; i < (a.rotary ? GQA_SIN + 1 : GQA_VALUE + 1); i++) node_add_input(fm->g, f, ops[i]);
    node_set_uint(fm->g, f, "numHeads", N);
    node_set_uint(fm->g, f, "kvNumHeads", kvN);
    node_set_float(fm->g, f, "scale", scale);
    if (a.rotary) node_set_bool(fm->g, f, "doRotary", true);
    if (a.rotary && a.interleaved) node_set_bool(fm->g, f, "rotaryInterleaved", true);
    if (graph_insert_node(fm->g, f) < 0) return -1;
    return fm_commit(fm, &a.m, f, &out, 1) < 0 ? -1 : 1;
}

int pass_fuse_torch_attention(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, OP_SOFTMAX, match) < 0 ? -1 : 0;
}
