/* decompose_gqa.c - pass decompose_gqa: replaces every groupQueryAttention extension node by spec
 * WebNN ops, with the semantics of ORT's CPU kernel (docs/extension-ops.md), a symbolic sequence
 * length S, a static cache capacity C and no zero-size dims:
 *
 *   split (packed QKV) -> cast to float32 (float16 models) -> reshape [B,S,heads,H]
 *   rows[B,S] = seqlensK[B,1] - reverse(slice(iota[maxS], [S]))           (cache row of token s)
 *   q/k RMSNorm: mul, reduceMean, add, sqrt, div, mul
 *   rotary: gather(cos/sin, positions) + slice/mul/sub/add/concat (half-split or interleaved via
 *           a reshape to pairs), partial rotary keeps the tail channels
 *   transpose to [B,heads,S,H]; cast K/V to the cache dtype; scatterElements(axis 2) of K/V into
 *   the caches with indices expand(rows[B,1,S,1] -> [B,kvN,S,H]) = presentKey/presentValue
 *   grouped heads: reshape [B,kvN,1,C,H] -> expand [B,kvN,G,C,H] -> reshape [B,N,C,H]
 *   scores = matmul(Q, transpose(K)) * scale [B,N,S,C]; softcap: mul, tanh, mul; + attentionBias
 *   mask: lesserOrEqual(iota_C[1,1,1,C], rows[B,1,S,1]) (and greater(iota_C, rows - W) with a
 *         local window: W keys including the current one, logicalAnd) -> where(mask, scores, -3.0e38)
 *   smoothSoftmax/headSink: concat an extra sink logit, softmax(axis 3), slice it off; else softmax
 *   matmul with V -> transpose [B,S,N,H] -> reshape [B,S,N*H] -> cast back.
 *
 * Without pastKey/pastValue the keys are the S new tokens: rows[1, S] = slice(iota[maxS], [S]), no
 * scatterElements (K/V heads feed the attention directly), one output.
 *
 * Ops emitted: split, cast, reshape, slice, reverse, sub, mul, reduceMean, add, sqrt, div, gather,
 * concat, transpose, expand, scatterElements, matmul, tanh, lesserOrEqual, greater,
 * logicalAnd, where, softmax.  Masked cache rows may hold anything finite. */
#include <math.h>
#include <stdlib.h>

#include "decompose.h"
#include "core.h"
#include "pass.h"

#define GQA_MASKED (-3.0e38) /* finite "minus infinity" for masked scores (computed in float32) */
#define CT DT_F32            /* compute type of the attention core */

typedef struct {
    Dec *d;
    GqaGeom geo;
    Dim B, S;
    Value *rows;    /* int32 [B, S] ([1, S] without a cache): cache row of each new token */
    Value *cos, *sin; /* float32 [B, S, 1, rot/2] (rotary only) */
} Ctx;

/* ---- small emitters ------------------------------------------------------------------------ */

static Value *emit(Dec *d, Node *n) { return n ? graph_finish(d->g, n) : NULL; }

static Node *node1(Dec *d, OpId op, Value *x) {
    if (!x) return NULL;
    Node *n = graph_new_node(d->g, op, d->ext->origin);
    node_add_input(d->g, n, x);
    return n;
}

/* slice of one axis: [start, start + size) */
static Value *slice_axis(Dec *d, Value *x, int axis, int64_t start, Dim size) {
    Node *n = node1(d, OP_SLICE, x);
    if (!n) return NULL;
    int64_t starts[WN_MAX_RANK] = {0};
    Dim sizes[WN_MAX_RANK];
    for (int i = 0; i < x->rank; i++) sizes[i] = x->shape[i];
    starts[axis] = start;
    sizes[axis] = size;
    node_set_ints(d->g, n, "starts", x->rank, starts);
    node_set_dims(d->g, n, "sizes", x->rank, sizes);
    return emit(d, n);
}

static Value *slice_last(Dec *d, Value *x, int64_t start, int64_t size) {
    return x ? slice_axis(d, x, x->rank - 1, start, dim_static(size)) : NULL;
}

static Value *with_axis(Dec *d, OpId op, Value *x, const char *key, int64_t axis) {
    Node *n = node1(d, op, x);
    if (n) node_set_uint(d->g, n, key, axis);
    return emit(d, n);
}

static Value *where(Dec *d, Value *c, Value *t, Value *f) {
    if (!c || !t || !f) return NULL;
    Node *n = graph_new_node(d->g, OP_WHERE, d->ext->origin);
    node_add_input(d->g, n, c);
    node_add_input(d->g, n, t);
    node_add_input(d->g, n, f);
    return emit(d, n);
}

static Value *reshape(Ctx *c, Value *x, int rank, const Dim *shape) { return pass_dc_reshape(c->d, x, rank, shape); }

/* int32 constant 0, 1, ..., count-1 with the given shape (product == count). */
static Value *iota(Ctx *c, int rank, const int64_t *shape, int64_t count) {
    int32_t *v = malloc(sizeof *v * (size_t)count);
    if (!v) {
        pass_dc_fail(c->d, "out of memory");
        return NULL;
    }
    for (int64_t i = 0; i < count; i++) v[i] = (int32_t)i;
    Value *r = pass_dc_const(c->d, DT_I32, rank, shape, v, sizeof *v * (uint64_t)count);
    free(v);
    return r;
}

/* ---- pieces ---------------------------------------------------------------------------------- */

/* rows[b, s] = seqlensK[b] - (S - 1 - s) = past_b + s  (int32 [B, S]); without a cache
 * rows[0, s] = s ([1, S]). */
static Value *cache_rows(Ctx *c) {
    int64_t max_s = dim_max(c->S) > 0 ? dim_max(c->S) : c->geo.capacity;
    if (max_s <= 0 || max_s >= ((int64_t)1 << 31)) {
        pass_dc_fail(c->d, "the sequence length has no upper bound");
        return NULL;
    }
    Value *ramp = slice_axis(c->d, iota(c, 1, &max_s, max_s), 0, 0, c->S);
    if (!c->geo.past) return reshape(c, ramp, 2, (Dim[]){dim_static(1), c->S});
    Node *n = node1(c->d, OP_REVERSE, ramp);
    if (n) node_set_ints(c->d->g, n, "axes", 1, (int64_t[]){0});
    Value *back = reshape(c, emit(c->d, n), 2, (Dim[]){dim_static(1), c->S});
    Value *seqlens = reshape(c, pass_dc_in(c->d, GQA_SEQLENS_K), 2, (Dim[]){c->B, dim_static(1)});
    return pass_dc_binary(c->d, OP_SUB, seqlens, back);
}

/* Per-head RMSNorm over the last axis of x [B, S, heads, H] with weight operand `slot` [H]. */
static Value *rms_norm(Ctx *c, Value *x, int slot) {
    Dec *d = c->d;
    Value *w = pass_dc_cast(d, pass_dc_in(d, slot), CT);
    Value *ms = pass_dc_reduce_mean(d, pass_dc_binary(d, OP_MUL, x, x), 3);
    Value *rms = pass_dc_unary(d, OP_SQRT, pass_dc_binary(d, OP_ADD, ms, pass_dc_scalar(d, CT, c->geo.qk_eps)));
    return pass_dc_binary(d, OP_MUL, pass_dc_binary(d, OP_DIV, x, rms), w);
}

/* cos/sin rows of every token: gather(cache, positions) -> [B, S, 1, rot/2] float32. */
static Value *rotary_table(Ctx *c, int slot, Value *positions) {
    Value *t = pass_dc_gather(c->d, pass_dc_cast(c->d, pass_dc_in(c->d, slot), CT), positions, 0);
    if (!t) return NULL;
    return reshape(c, t, 4, (Dim[]){t->shape[0], c->S, dim_static(1), dim_static(c->geo.rot / 2)});
}

/* y1 = x1 c - x2 s, y2 = x2 c + x1 s, concatenated on the last axis. */
static Value *rotate_pair(Dec *d, Value *x1, Value *x2, Value *cs, Value *sn) {
    Value *y1 = pass_dc_binary(d, OP_SUB, pass_dc_binary(d, OP_MUL, x1, cs), pass_dc_binary(d, OP_MUL, x2, sn));
    Value *y2 = pass_dc_binary(d, OP_ADD, pass_dc_binary(d, OP_MUL, x2, cs), pass_dc_binary(d, OP_MUL, x1, sn));
    if (!y1 || !y2) return NULL;
    return pass_dc_concat(d, 2, (Value *[]){y1, y2}, y1->rank - 1);
}

/* Rotary embedding of x [B, S, heads, H] (float32). */
static Value *rotary(Ctx *c, Value *x, int64_t heads) {
    Dec *d = c->d;
    int64_t H = c->geo.head_size, rot = c->geo.rot, half = rot / 2;
    Value *xr = rot < H ? slice_last(d, x, 0, rot) : x, *y;
    if (c->geo.interleaved) { /* pairs (2j, 2j+1): view as [B, S, heads, half, 2] */
        Dim pairs[5] = {c->B, c->S, dim_static(heads), dim_static(half), dim_static(2)};
        Dim tab[5] = {c->cos ? c->cos->shape[0] : c->B, c->S, dim_static(1), dim_static(half), dim_static(1)};
        Value *xp = reshape(c, xr, 5, pairs);
        y = rotate_pair(d, slice_last(d, xp, 0, 1), slice_last(d, xp, 1, 1), reshape(c, c->cos, 5, tab),
                        reshape(c, c->sin, 5, tab));
        y = reshape(c, y, 4, (Dim[]){c->B, c->S, dim_static(heads), dim_static(rot)});
    } else {
        y = rotate_pair(d, slice_last(d, xr, 0, half), slice_last(d, xr, half, half), c->cos, c->sin);
    }
    if (rot < H) y = pass_dc_concat(d, 2, (Value *[]){y, slice_last(d, x, rot, H - rot)}, 3);
    return y;
}

/* [B, S, heads*H] -> float32 [B, heads, S, H] with the optional norm and rotary applied. */
static Value *to_heads(Ctx *c, Value *x, int64_t heads, int norm_slot) {
    Dec *d = c->d;
    Value *h = reshape(c, pass_dc_cast(d, x, CT), 4, (Dim[]){c->B, c->S, dim_static(heads), dim_static(c->geo.head_size)});
    if (norm_slot >= 0 && pass_dc_in(d, norm_slot)) h = rms_norm(c, h, norm_slot);
    if (norm_slot >= 0 && c->geo.rotary) h = rotary(c, h, heads);
    return pass_dc_transpose(d, h, 4, (int64_t[]){0, 2, 1, 3});
}

/* Writes new rows x [B, kvN, S, H] into the cache operand `slot` -> the present. */
static Value *write_cache(Ctx *c, Value *x, int slot) {
    Dec *d = c->d;
    Dim full[4] = {c->B, dim_static(c->geo.kv_heads), c->S, dim_static(c->geo.head_size)};
    Value *idx = pass_dc_expand(d, reshape(c, c->rows, 4, (Dim[]){c->B, dim_static(1), c->S, dim_static(1)}), 4, full);
    Value *past = pass_dc_in(d, slot), *upd = pass_dc_cast(d, x, c->geo.dt);
    if (!idx || !upd) return NULL;
    Node *n = graph_new_node(d->g, OP_SCATTER_ELEMENTS, d->ext->origin);
    node_add_input(d->g, n, past);
    node_add_input(d->g, n, idx);
    node_add_input(d->g, n, upd);
    node_set_uint(d->g, n, "axis", 2);
    return emit(d, n);
}

/* Cache [B, kvN, T, H] (T = C, or S without a cache) -> float32 [B, N, T, H] (kv head n / G serves
 * query head n). */
static Value *expand_heads(Ctx *c, Value *cache) {
    Value *x = pass_dc_cast(c->d, cache, CT);
    int64_t G = c->geo.group, KV = c->geo.kv_heads, H = c->geo.head_size;
    if (G == 1 || !x) return x;
    Dim T = x->shape[2];
    x = reshape(c, x, 5, (Dim[]){c->B, dim_static(KV), dim_static(1), T, dim_static(H)});
    x = pass_dc_expand(c->d, x, 5, (Dim[]){c->B, dim_static(KV), dim_static(G), T, dim_static(H)});
    return reshape(c, x, 4, (Dim[]){c->B, dim_static(c->geo.heads), T, dim_static(H)});
}

/* uint8 [B, 1, S, C] ([1, 1, S, S] without a cache): key j is visible to the token at cache row p
 * (j <= p, and j > p - W). */
static Value *visible(Ctx *c) {
    Dec *d = c->d;
    int64_t C = c->geo.capacity;
    if (!c->rows) return NULL;
    Value *keys = c->geo.past ? iota(c, 4, (int64_t[]){1, 1, 1, C}, C)
                              : reshape(c, c->rows, 4, (Dim[]){dim_static(1), dim_static(1), dim_static(1), c->S});
    Value *p = reshape(c, c->rows, 4, (Dim[]){c->rows->shape[0], dim_static(1), c->S, dim_static(1)});
    Value *m = pass_dc_binary(d, OP_LESSER_OR_EQUAL, keys, p);
    if (c->geo.window > 0) {
        Value *lo = pass_dc_binary(d, OP_SUB, p, pass_dc_scalar(d, DT_I32, (double)c->geo.window));
        m = pass_dc_binary(d, OP_LOGICAL_AND, m, pass_dc_binary(d, OP_GREATER, keys, lo));
    }
    return m;
}

/* softmax over the last axis, with an extra sink logit (0 for smoothSoftmax, headSink[n]). */
static Value *softmax(Ctx *c, Value *scores) {
    Dec *d = c->d;
    bool sink = c->geo.smooth || pass_dc_in(d, GQA_HEAD_SINK);
    if (!sink) return with_axis(d, OP_SOFTMAX, scores, "axis", 3);
    Value *col = pass_dc_in(d, GQA_HEAD_SINK)
                     ? reshape(c, pass_dc_cast(d, pass_dc_in(d, GQA_HEAD_SINK), CT), 4,
                               (Dim[]){dim_static(1), dim_static(c->geo.heads), dim_static(1), dim_static(1)})
                     : reshape(c, pass_dc_scalar(d, CT, 0.0), 4, (Dim[]){dim_static(1), dim_static(1), dim_static(1), dim_static(1)});
    if (!scores || !col) return NULL;
    Dim shape[4] = {scores->shape[0], scores->shape[1], scores->shape[2], dim_static(1)};
    Value *all = pass_dc_concat(d, 2, (Value *[]){scores, pass_dc_expand(d, col, 4, shape)}, 3);
    return slice_axis(d, with_axis(d, OP_SOFTMAX, all, "axis", 3), 3, 0, scores->shape[3]);
}

static Value *attention(Ctx *c, Value *q, Value *kc, Value *vc) {
    Dec *d = c->d;
    Value *s = pass_dc_binary(d, OP_MATMUL, q, pass_dc_transpose(d, expand_heads(c, kc), 4, (int64_t[]){0, 1, 3, 2}));
    s = pass_dc_binary(d, OP_MUL, s, pass_dc_scalar(d, CT, c->geo.scale));
    if (c->geo.softcap > 0) {
        s = pass_dc_unary(d, OP_TANH, pass_dc_binary(d, OP_MUL, s, pass_dc_scalar(d, CT, 1.0 / c->geo.softcap)));
        s = pass_dc_binary(d, OP_MUL, s, pass_dc_scalar(d, CT, c->geo.softcap));
    }
    if (pass_dc_in(d, GQA_ATTENTION_BIAS)) s = pass_dc_binary(d, OP_ADD, s, pass_dc_cast(d, pass_dc_in(d, GQA_ATTENTION_BIAS), CT));
    s = where(d, visible(c), s, pass_dc_scalar(d, CT, GQA_MASKED));
    Value *o = pass_dc_binary(d, OP_MATMUL, softmax(c, s), expand_heads(c, vc));
    o = pass_dc_transpose(d, o, 4, (int64_t[]){0, 2, 1, 3});
    o = reshape(c, o, 3, (Dim[]){c->B, c->S, dim_static(c->geo.heads * c->geo.head_size)});
    return pass_dc_cast(d, o, c->geo.dt);
}

static int decompose(Dec *d) {
    Ctx c = {.d = d};
    if (gqa_geometry(d->g, d->ext, &c.geo) < 0) return -1;
    if (d->ext->n_outputs != (c.geo.past ? GQA_OUTPUTS : 1)) return pass_dc_fail(d, "unexpected output count");
    if (c.geo.past && c.geo.capacity <= 0) return pass_dc_fail(d, "the KV cache capacity (pastKey dim 2) is not static: run kv_cache first");
    c.B = c.geo.batch;
    c.S = c.geo.seq;
    int64_t N = c.geo.heads, KV = c.geo.kv_heads, H = c.geo.head_size;
    Value *q = pass_dc_in(d, GQA_QUERY), *k = pass_dc_in(d, GQA_KEY), *v = pass_dc_in(d, GQA_VALUE);
    if (c.geo.packed) {
        Node *n = node1(d, OP_SPLIT, q);
        node_set_ints(d->g, n, "splits", 3, (int64_t[]){N * H, KV * H, KV * H});
        node_set_uint(d->g, n, "axis", 2);
        if (graph_insert_node(d->g, n) < 0) return -1;
        q = n->outputs[0], k = n->outputs[1], v = n->outputs[2];
    }
    c.rows = cache_rows(&c);
    if (c.geo.rotary) {
        Value *pos = pass_dc_in(d, GQA_POSITION_IDS) ? pass_dc_cast(d, pass_dc_in(d, GQA_POSITION_IDS), DT_I32) : c.rows;
        c.cos = rotary_table(&c, GQA_COS, pos);
        c.sin = rotary_table(&c, GQA_SIN, pos);
    }
    Value *qh = to_heads(&c, q, N, GQA_Q_NORM), *kh = to_heads(&c, k, KV, GQA_K_NORM), *vh = to_heads(&c, v, KV, -1);
    Value *pk = c.geo.past ? write_cache(&c, kh, GQA_PAST_KEY) : kh;
    Value *pv = c.geo.past ? write_cache(&c, vh, GQA_PAST_VALUE) : vh;
    Value *out = attention(&c, qh, pk, pv);
    if (!out || !pk || !pv) return -1;
    if (!c.geo.past) return pass_dc_result(d, GQA_OUT, out) < 0 ? -1 : 0;
    if (pass_dc_result(d, GQA_OUT, out) < 0 || pass_dc_result(d, GQA_PRESENT_KEY, pk) < 0 ||
        pass_dc_result(d, GQA_PRESENT_VALUE, pv) < 0)
        return -1;
    return 0;
}

int pass_decompose_gqa(Graph *g, const PassOptions *opt) {
    (void)opt;
    return pass_decompose_all(g, OP_GROUP_QUERY_ATTENTION, decompose);
}
