/* fuse_torch_attention.c - pass fuse_torch_attention: recovers groupQueryAttention without a KV
 * cache (docs/extension-ops.md) from the scaled-dot-product attention torch exports produce over
 * the current sequence.  Anchored at softmax (axis 3):
 *   heads(x3, n) = transpose(norm?(reshape(x3 [B, S, n*H], [B, S, n, H])), [0, 2, 1, 3])
 *       norm: rmsNorm over H (Qwen3's q/k norms; on Q and K or on neither)
 *   Q = rot(heads(query, N)), K = rot(heads(key, kvN)), V = heads(value, kvN)
 *       rot: nothing, the torch rotary form with static tables (fuse_torch.h) or a rotaryEmbedding
 *       node with position offset 0 (fuse_torch_rotary's output), the same caches for Q and K ->
 *       doRotary (and the norms -> qNormWeight/kNormWeight); or a per-token rotaryEmbedding (caches
 *       computed from a position_ids input) -> kept as rotaryEmbedding of the [B, S, n*H] operands
 *       (after the norm, which then stays outside too)
 *   repeat(X) = reshape(expand(reshape(X, [B, kvN, 1, S, H]), [B, kvN, G, S, H]), [B, N, S, H])
 *               (absent when G = 1; torch.repeat_interleave and transformers' repeat_kv both export so)
 *   K^T = transpose(repeat(K), [0, 1, 3, 2]), or SDPA's 3-D reshape/transpose/reshape of it (B = 1)
 *   logits = add(mul(matmul(Q, K^T), scale) | div by 1/scale | matmul(mul(Q, c), mul(K^T, c)), mask)
 *   out = reshape(transpose(matmul(softmax(logits), repeat(V)), [0, 2, 1, 3]), [B, S, N*H])
 * mask: a constant (or a prefix slice of one, behind unit-axis reshapes) broadcast as [.., S, S],
 * whose every entry (up to the bound of S) is 0 on and below the diagonal and <= -1e30 (or -inf)
 * above it: exactly causal.  Any other mask (non-causal, windowed, padding, computed at run time), a
 * scale that is not one scalar, another head grouping or a value used outside the block: no match. */
#include <math.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "fuse_torch.h"
#include "pass.h"

#define MASKED_MAX (-1e30) /* a masked logit: exp underflows to 0 in float32 for any finite score */

/* One Q/K/V path: the heads value h [B, n, S, H] read back to its projection x3 [B, S, n*H]. */
typedef struct {
    Value *x3;        /* the projection output */
    Node *rs, *tr;    /* reshape to [B, S, n, H] and transpose to [B, n, S, H] */
    Node *norm;       /* rmsNorm over H between them (q/k norms), or NULL */
    Node *rot;        /* per-token rotaryEmbedding after the transpose, or NULL */
    int64_t n, H;
} Path;

typedef struct {
    FuseMatch m;
    Value *cos, *sin;  /* static caches (absorbed: doRotary) or per-token [B, S, half] caches */
    bool rotary, per_token, interleaved;
} Att;

static bool perm_is(const Node *n, const int64_t *p) { return n && pass_fm_ints_are(n, "permutation", 4, p); }

/* Static dim equal to v. */
static bool dim_is(Dim d, int64_t v) { return dim_is_static(d) && d.v == v; }

/* heads(x3, n) = h, with an optional rmsNorm over H (axis 3) before the transpose: fills the path. */
static bool heads_source(Value *h, Path *p) {
    Node *tr = pass_fm_prod(h, OP_TRANSPOSE);
    if (!tr || !perm_is(tr, (const int64_t[]){0, 2, 1, 3})) return false;
    Node *norm = pass_fm_prod(tr->inputs[0], OP_RMS_NORM);
    Node *rs = pass_fm_prod(norm ? norm->inputs[0] : tr->inputs[0], OP_RESHAPE);
    if (!rs) return false;
    Value *x3 = rs->inputs[0], *x4 = rs->outputs[0];
    if (!x3 || x3->rank != 3 || x4->rank != 4 || !dim_equal(x4->shape[0], x3->shape[0]) ||
        !dim_equal(x4->shape[1], x3->shape[1]) || !dim_is_static(x4->shape[2]) || !dim_is_static(x4->shape[3]) ||
        !dim_is(x3->shape[2], x4->shape[2].v * x4->shape[3].v))
        return false;
    p->n = x4->shape[2].v, p->H = x4->shape[3].v;
    if (norm) {
        Value *w = norm->inputs[1];
        if (node_int(norm, "axis", -1) != 3 || !w || w->rank != 1 || !dim_is(w->shape[0], p->H) || w->dtype != x3->dtype)
            return false;
    }
    p->x3 = x3, p->rs = rs, p->tr = tr, p->norm = norm;
    return true;
}

/* rotaryEmbedding(x [B, N, S, H], positions [0], cos, sin) as fuse_torch_rotary emits it for
 * static caches: absorbed into the attention (doRotary). */
static Value *rotary_node(Att *a, Node *r) {
    double offset;
    Value *x = r->inputs[0], *pos = r->n_inputs > 1 ? r->inputs[1] : NULL;
    if (r->n_inputs != 4 || !x || x->rank != 4 || !pos || pos->rank != 1 || !pass_fm_const_scalar(pos, &offset) || offset != 0)
        return NULL;
    Value *c = r->inputs[2], *s = r->inputs[3];
    if (!c || !s || c->rank != 2 || !dim_is_static(c->shape[0]) || !dim_is_static(c->shape[1])) return NULL;
    int64_t rd = node_int(r, "rotaryEmbeddingDim", 0);
    if (rd != 0 && rd != 2 * c->shape[1].v) return NULL;
    a->cos = c, a->sin = s;
    a->interleaved = node_bool(r, "interleaved", false);
    pass_fm_add(&a->m, r);
    return x;
}

/* rotaryEmbedding(x [B, N, S, H], cos, sin) with per-token caches [B, S, half] (no positionIds):
 * kept as a rotation of the attention's operand (the caches are values, not the static tables
 * groupQueryAttention takes). */
static Value *per_token_node(Att *a, Node *r, Path *p) {
    Value *x = r->inputs[0], *c = r->n_inputs == 4 ? r->inputs[2] : NULL, *s = c ? r->inputs[3] : NULL;
    if (!c || !s || r->inputs[1] || !x || x->rank != 4 || c->rank != 3 || node_int(r, "rotaryEmbeddingDim", 0) != 0 ||
        node_bool(r, "interleaved", false) || node_int(r, "numHeads", 0) != 0 || node_float(r, "scale", 1.0) != 1.0)
        return NULL;
    a->cos = c, a->sin = s;
    p->rot = r;
    return x;
}

/* The heads before the rotation of a Q/K path (the value itself when there is none).  Q and K must
 * both have a rotation of the same kind with the same caches, or neither. */
static bool read_qk(FuseMap *fm, Att *a, Value *y, bool first, Path *p) {
    Value *cos = a->cos, *sin = a->sin, *x = NULL;
    bool inter = a->interleaved, was_pt = a->per_token;
    TorchRotary r;
    Node *rn = pass_fm_prod(y, OP_ROTARY_EMBEDDING);
    a->per_token = false;
    if (rn) {
        x = rn->n_inputs > 1 && !rn->inputs[1] ? per_token_node(a, rn, p) : rotary_node(a, rn);
        a->per_token = x && p->rot;
        if (!x) return false;
    } else {
        int got = pass_torch_rotary_read(fm, y, &r);
        if (got < 0 || (got && r.angles)) return false; /* per-token tables: fuse_torch_rotary first */
        if (got) {
            for (int i = 0; i < r.n; i++) pass_fm_add(&a->m, r.nodes[i]);
            a->cos = r.cos, a->sin = r.sin, a->interleaved = false;
            x = r.x;
        }
    }
    bool rot = x != NULL && !a->per_token;
    if (first) {
        a->rotary = rot;
    } else if (rot != a->rotary || a->per_token != was_pt ||
               ((rot || a->per_token) && (a->cos != cos || a->sin != sin || a->interleaved != inter))) {
        return false;
    }
    return heads_source(x ? x : y, p);
}

/* X [B, kvN, S, H] behind repeat(X) = x ([B, N, S, H]); x itself when not a repeat. */
static Value *unrepeat(Att *a, Value *x) {
    Node *r2 = pass_fm_prod(x, OP_RESHAPE), *ex = r2 ? pass_fm_prod(r2->inputs[0], OP_EXPAND) : NULL;
    Node *r1 = ex ? pass_fm_prod(ex->inputs[0], OP_RESHAPE) : NULL;
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
    pass_fm_add(&a->m, r2);
    pass_fm_add(&a->m, ex);
    pass_fm_add(&a->m, r1);
    return k;
}

/* K [B, N, S, H] behind K^T [B, N, H, S]: transpose(K, [0, 1, 3, 2]), or the 3-D form of torch's SDPA
 * lowering reshape(transpose(reshape(K, [N, S, H]), [0, 2, 1]), [1, N, H, S]) (B = 1). */
static Value *untranspose(Att *a, Value *kt) {
    Node *t = pass_fm_prod(kt, OP_TRANSPOSE);
    if (t) {
        if (!perm_is(t, (const int64_t[]){0, 1, 3, 2})) return NULL;
        pass_fm_add(&a->m, t);
        return t->inputs[0];
    }
    Node *r2 = pass_fm_prod(kt, OP_RESHAPE), *t3 = r2 ? pass_fm_prod(r2->inputs[0], OP_TRANSPOSE) : NULL;
    Node *r1 = t3 ? pass_fm_prod(t3->inputs[0], OP_RESHAPE) : NULL;
    if (!r1 || !pass_fm_ints_are(t3, "permutation", 3, (const int64_t[]){0, 2, 1})) return NULL;
    Value *k = r1->inputs[0], *k3 = r1->outputs[0];
    if (!k || k->rank != 4 || k3->rank != 3 || kt->rank != 4 || !dim_is(k->shape[0], 1)) return NULL;
    for (int i = 0; i < 3; i++)
        if (!dim_equal(k3->shape[i], k->shape[i + 1])) return NULL;
    if (!dim_equal(kt->shape[0], k->shape[0]) || !dim_equal(kt->shape[1], k->shape[1]) ||
        !dim_equal(kt->shape[2], k->shape[3]) || !dim_equal(kt->shape[3], k->shape[2]))
        return NULL;
    pass_fm_add(&a->m, r2), pass_fm_add(&a->m, t3), pass_fm_add(&a->m, r1);
    return k;
}

/* The mask broadcast over the [B, N, S, S] logits is exactly causal: its last two axes are [S, S]
 * and every other is 1, it is a float constant or a zero-based prefix slice of one (behind reshapes
 * that only add unit axes), and every entry up to the bound of S is 0 on and below the diagonal and
 * <= -1e30 (or -inf) above it. */
static bool causal_mask(Value *mask, Dim S) {
    Value *v = mask;
    for (int depth = 0; v; depth++) {
        if (v->rank < 2 || v->rank > 4 || !pass_torch_leading_ones(v, 2) || !dim_equal(v->shape[v->rank - 2], S) ||
            !dim_equal(v->shape[v->rank - 1], S))
            return false;
        if (depth == 4 || !pass_fm_prod(v, OP_RESHAPE)) break;
        v = v->producer->inputs[0];
    }
    Value *full = v && pass_fm_is_const(v) ? v : pass_torch_prefix_source(v);
    if (!full || !pass_fm_is_const(full) || !value_is_static(full) || full->rank < 2 || !pass_torch_leading_ones(full, 2) ||
        !dtype_is_float(full->dtype))
        return false;
    int64_t rows = full->shape[full->rank - 2].v, cols = full->shape[full->rank - 1].v, n = dim_max(S);
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

/* x scaled by a constant scalar c: mul(x, c) / mul(c, x) / div(x, 1/c); the node, or NULL. */
static Node *scaled_by(Value *v, double *c, Value **x) {
    Node *n = pass_fm_prod(v, OP_MUL), *d = n ? NULL : pass_fm_prod(v, OP_DIV);
    if (n) {
        for (int k = 0; k < 2; k++)
            if (pass_fm_const_scalar(n->inputs[1 - k], c)) {
                *x = n->inputs[k];
                return n;
            }
        return NULL;
    }
    if (!d || !pass_fm_const_scalar(d->inputs[1], c) || *c == 0) return NULL;
    *c = 1.0 / *c, *x = d->inputs[0];
    return d;
}

/* The scaled scores s = Q K^T * scale: mul(matmul(Q, K^T), scale) (or div), or SDPA's
 * matmul(mul(Q, c1), mul(K^T, c2)) with scale = c1 c2.  Sets q, kt, scale; returns the matmul. */
static Node *scores(Att *a, Value *s, Value **q, Value **kt, double *scale) {
    Value *inner;
    Node *sc = scaled_by(s, scale, &inner), *mm = sc ? pass_fm_prod(inner, OP_MATMUL) : NULL;
    if (mm) {
        pass_fm_add(&a->m, sc);
        *q = mm->inputs[0], *kt = mm->inputs[1];
    } else if ((mm = pass_fm_prod(s, OP_MATMUL))) {
        double c1, c2;
        Node *m1 = scaled_by(mm->inputs[0], &c1, q), *m2 = m1 ? scaled_by(mm->inputs[1], &c2, kt) : NULL;
        if (!m2 || !(c1 > 0) || !(c2 > 0)) return NULL;
        pass_fm_add(&a->m, m1), pass_fm_add(&a->m, m2);
        *scale = c1 * c2;
    } else {
        return NULL;
    }
    pass_fm_add(&a->m, mm);
    return isfinite(*scale) && *scale > 0 ? mm : NULL;
}

static void add_path(Att *a, const Path *p) {
    pass_fm_add(&a->m, p->tr);
    if (p->rot) pass_fm_add(&a->m, p->rot);
    if (p->norm && a->per_token) return; /* norm and reshape stay: the norm precedes the rotation */
    if (p->norm) pass_fm_add(&a->m, p->norm);
    pass_fm_add(&a->m, p->rs);
}

/* A per-token rotated path's operand: rotaryEmbedding over [B, S, n*H] (after the norm, reshaped
 * back, where there is one). */
static Value *rotated_operand(FuseMap *fm, const Att *a, const Path *p) {
    Value *src = p->x3;
    if (p->norm) {
        Node *r = graph_new_node(fm->g, OP_RESHAPE, p->rs->origin);
        node_add_input(fm->g, r, p->norm->outputs[0]);
        node_set_dims(fm->g, r, "newShape", 3, p->x3->shape);
        if (!(src = graph_finish(fm->g, r))) return NULL;
    }
    Node *rot = graph_new_node(fm->g, OP_ROTARY_EMBEDDING, p->rot->origin);
    Value *ops[4] = {src, NULL, a->cos, a->sin};
    for (int i = 0; i < 4; i++) node_add_input(fm->g, rot, ops[i]);
    node_set_uint(fm->g, rot, "numHeads", p->n);
    return graph_finish(fm->g, rot);
}

/* The checks of the three paths against each other and the output; the norms' epsilon. */
static bool paths_agree(const Att *a, const Path *q, const Path *k, const Path *v, const Value *out, double *eps) {
    if (q->H != k->H || q->H != v->H || k->n != v->n || q->n % k->n || q->n > GQA_MAX_HEADS || v->norm) return false;
    *eps = q->norm ? node_float(q->norm, "epsilon", 1e-5) : 0;
    if (!a->per_token && (!q->norm != !k->norm || (k->norm && node_float(k->norm, "epsilon", 1e-5) != *eps))) return false;
    Dim want[3] = {q->x3->shape[0], q->x3->shape[1], dim_static(q->n * q->H)};
    for (int i = 0; i < 3; i++)
        if (out->rank != 3 || !dim_equal(out->shape[i], want[i])) return false;
    for (int i = 0; i < 2; i++)
        if (!dim_equal(k->x3->shape[i], q->x3->shape[i]) || !dim_equal(v->x3->shape[i], q->x3->shape[i])) return false;
    DType dt = q->x3->dtype;
    if (k->x3->dtype != dt || v->x3->dtype != dt || out->dtype != dt || !dtype_is_float(dt)) return false;
    if (a->rotary) return a->cos->dtype == dt && a->cos->shape[1].v * 2 <= q->H;
    if (a->per_token) {
        const Value *c = a->cos;
        return c->dtype == dt && dim_equal(c->shape[0], want[0]) && dim_equal(c->shape[1], want[1]) &&
               dim_is_static(c->shape[2]) && c->shape[2].v * 2 <= q->H;
    }
    return true;
}

static int match(FuseMap *fm, Node *sm) {
    Att a = {0};
    Value *logits = sm->inputs[0];
    if (node_int(sm, "axis", -1) != 3 || !logits || logits->rank != 4) return 0;
    Node *add = pass_fm_prod(logits, OP_ADD), *qk = NULL;
    Value *mask = NULL, *qv = NULL, *ktv = NULL;
    double scale = 0, eps = 0;
    for (int k = 0; add && k < 2 && !qk; k++) {
        a.m.n = 0;
        if ((qk = scores(&a, add->inputs[k], &qv, &ktv, &scale))) mask = add->inputs[1 - k];
    }
    Node *pv = qk ? pass_fm_consumer_op(fm, sm->outputs[0], OP_MATMUL) : NULL;
    if (!pv || pv->inputs[0] != sm->outputs[0]) return 0;
    Node *tr = pass_fm_sole_consumer(fm, pv->outputs[0]);
    Node *rs = tr && tr->op == OP_TRANSPOSE ? pass_fm_sole_consumer(fm, tr->outputs[0]) : NULL;
    if (!rs || rs->op != OP_RESHAPE || !perm_is(tr, (const int64_t[]){0, 2, 1, 3})) return 0;
    pass_fm_add(&a.m, sm), pass_fm_add(&a.m, add), pass_fm_add(&a.m, pv), pass_fm_add(&a.m, tr), pass_fm_add(&a.m, rs);
    Path q = {0}, k = {0}, v = {0};
    Value *kr = untranspose(&a, ktv), *kh = kr ? unrepeat(&a, kr) : NULL, *vh = unrepeat(&a, pv->inputs[1]);
    bool ok = read_qk(fm, &a, qv, true, &q) && kh && read_qk(fm, &a, kh, false, &k) && vh && heads_source(vh, &v);
    if (diag_has_error()) return -1;
    Value *out = rs->outputs[0];
    if (!ok || !paths_agree(&a, &q, &k, &v, out, &eps) || !dim_is(logits->shape[1], q.n) ||
        !dim_is(pv->inputs[1]->shape[1], q.n) || !dim_is(kr->shape[1], q.n) || !causal_mask(mask, q.x3->shape[1]))
        return 0;
    add_path(&a, &q), add_path(&a, &k), add_path(&a, &v);
    if (!pass_fm_interior_ok(fm, &a.m, &out, 1)) return 0;
    Value *ops[GQA_SLOTS] = {[GQA_QUERY] = q.x3, [GQA_KEY] = k.x3, [GQA_VALUE] = v.x3};
    if (a.per_token && (!(ops[GQA_QUERY] = rotated_operand(fm, &a, &q)) || !(ops[GQA_KEY] = rotated_operand(fm, &a, &k))))
        return -1;
    if (a.rotary) ops[GQA_COS] = a.cos, ops[GQA_SIN] = a.sin;
    bool norms = q.norm && !a.per_token;
    if (norms) ops[GQA_Q_NORM] = q.norm->inputs[1], ops[GQA_K_NORM] = k.norm->inputs[1];
    int last = GQA_SLOTS - 1;
    while (!ops[last]) last--;
    Node *f = pass_fm_emit_begin(fm, OP_GROUP_QUERY_ATTENTION, sm);
    for (int i = 0; i <= last; i++) node_add_input(fm->g, f, ops[i]);
    node_set_uint(fm->g, f, "numHeads", q.n);
    node_set_uint(fm->g, f, "kvNumHeads", k.n);
    node_set_float(fm->g, f, "scale", scale);
    if (a.rotary) node_set_bool(fm->g, f, "doRotary", true);
    if (a.rotary && a.interleaved) node_set_bool(fm->g, f, "rotaryInterleaved", true);
    if (norms) node_set_float(fm->g, f, "qkNormEpsilon", eps);
    return pass_fm_insert_commit(fm, &a.m, f, &out, 1);
}

int pass_fuse_torch_attention(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, OP_SOFTMAX, match) < 0 ? -1 : 0;
}
