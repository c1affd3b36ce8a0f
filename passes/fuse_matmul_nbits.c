/* fuse_matmul_nbits.c - pass fuse_matmul_nbits: recovers matmulNBits (com.microsoft MatMulNBits)
 * from a blockwise dequantization of a constant weight feeding a matmul.  Anchored at matmul:
 *   w  = dequantizeLinear(q [N, kBlocks, block], scale [N, kBlocks, 1], zeroPoint [N, kBlocks, 1])
 *        q and zeroPoint constants of uint4/int4 (bits 4) or uint8/int8 (bits 8), scale a float
 *        constant with the activation's dtype
 *   -> reshape [N, kBlocks*block] -> [slice [N, K]] -> transpose [K, N] -> matmul(a, w) [+ add bias [N]]
 * The weight bytes are reused as b (signed types re-biased to unsigned: q + 2^(bits-1)), the zero
 * points packed as ORT stores them (omitted when all equal the default 2^(bits-1)).  A block that is
 * not a power of two >= 16, a per-tensor scale, or an interior value used elsewhere do not match. */
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "fuse_match.h"
#include "pass.h"

typedef struct {
    int64_t n, kb, block, k, bits;
    bool is_signed;
} Geo;

static bool bits_of(DType dt, Geo *g) {
    switch (dt) {
    case DT_U4: g->bits = 4, g->is_signed = false; return true;
    case DT_I4: g->bits = 4, g->is_signed = true; return true;
    case DT_U8: g->bits = 8, g->is_signed = false; return true;
    case DT_I8: g->bits = 8, g->is_signed = true; return true;
    default: return false;
    }
}

/* Element i of constant v as an unsigned code (signed types biased by 2^(bits-1)). */
static int64_t code_at(const Value *v, int64_t i, const Geo *g) {
    Ten t = {.dt = v->dtype, .rank = 1, .count = i + 1, .data = (void *)v->data};
    int64_t x = ten_geti(&t, i);
    return g->is_signed ? x + (1 << (g->bits - 1)) : x;
}

/* b: uint8 [N, kBlocks, block*bits/8]. */
static Value *weight_bytes(Graph *g, const Value *q, const Geo *geo) {
    int64_t shape[3] = {geo->n, geo->kb, geo->block * geo->bits / 8};
    uint64_t bytes = (uint64_t)(geo->n * geo->kb * shape[2]);
    if (!geo->is_signed) return graph_add_const(g, q->name, DT_U8, 3, shape, q->data, bytes);
    uint8_t *buf = graph_alloc(g, bytes);
    const uint8_t *src = q->data;
    uint8_t flip = geo->bits == 4 ? 0x88 : 0x80; /* + 2^(bits-1) mod 2^bits on every element */
    for (uint64_t i = 0; i < bytes; i++) buf[i] = src[i] ^ flip;
    return graph_add_const(g, q->name, DT_U8, 3, shape, buf, bytes);
}

/* Zero points packed as ORT stores them, or NULL when they all equal the default. */
static Value *zero_points(Graph *g, const Value *z, const Geo *geo) {
    int64_t count = geo->n * geo->kb, def = 1 << (geo->bits - 1);
    bool all_default = true;
    for (int64_t i = 0; i < count && all_default; i++) all_default = code_at(z, i, geo) == def;
    if (all_default) return NULL;
    int64_t per = 8 / geo->bits, row = (geo->kb + per - 1) / per;
    uint8_t *buf = graph_alloc(g, (size_t)(geo->n * row));
    for (int64_t r = 0; r < geo->n; r++)
        for (int64_t b = 0; b < geo->kb; b++)
            buf[r * row + b / per] |= (uint8_t)(code_at(z, r * geo->kb + b, geo) << ((b % per) * geo->bits));
    int64_t shape[2] = {geo->n, row};
    return graph_add_const(g, "zero_points", DT_U8, 2, shape, buf, (uint64_t)(geo->n * row));
}

static int match(FuseMap *fm, Node *mm) {
    FuseMatch m = {0};
    Value *a = mm->inputs[0], *w = mm->inputs[1];
    Node *tr = pass_fm_prod(w, OP_TRANSPOSE);
    if (!tr || !pass_fm_ints_are(tr, "permutation", 2, (const int64_t[]){1, 0})) return 0;
    Value *flat = tr->inputs[0];
    Node *sl = pass_fm_prod(flat, OP_SLICE), *rs;
    if (sl) flat = sl->inputs[0];
    if (!(rs = pass_fm_prod(flat, OP_RESHAPE))) return 0;
    Node *dq = pass_fm_prod(rs->inputs[0], OP_DEQUANTIZE_LINEAR);
    if (!dq) return 0;
    Value *q = dq->inputs[0], *s = dq->inputs[1], *z = dq->inputs[2];
    Geo geo = {0};
    if (!pass_fm_is_const(q) || !pass_fm_is_const(s) || !pass_fm_is_const(z) || q->rank != 3 || !value_is_static(q) ||
        !bits_of(q->dtype, &geo) || z->dtype != q->dtype || s->dtype != a->dtype)
        return 0;
    geo.n = q->shape[0].v, geo.kb = q->shape[1].v, geo.block = q->shape[2].v;
    int64_t sz[3] = {geo.n, geo.kb, 1};
    if (!pass_fm_shape_is(s, 3, sz) || !pass_fm_shape_is(z, 3, sz) || geo.block < 16 || (geo.block & (geo.block - 1))) return 0;
    geo.k = geo.kb * geo.block;
    if (sl) { /* slice [0, 0] .. [N, K] of the flat weight */
        Value *o = sl->outputs[0];
        if (!pass_fm_ints_are(sl, "starts", 2, (const int64_t[]){0, 0}) || !value_is_static(o) || o->shape[0].v != geo.n)
            return 0;
        geo.k = o->shape[1].v;
        if (geo.k <= (geo.kb - 1) * geo.block) return 0;
    }
    if (!pass_fm_shape_is(rs->outputs[0], 2, (const int64_t[]){geo.n, geo.kb * geo.block}) || a->rank < 1 ||
        !dim_is_static(a->shape[a->rank - 1]) || a->shape[a->rank - 1].v != geo.k || a->rank < 2)
        return 0;
    pass_fm_add(&m, dq), pass_fm_add(&m, rs), pass_fm_add(&m, sl), pass_fm_add(&m, tr), pass_fm_add(&m, mm);
    Value *out = mm->outputs[0], *bias = NULL;
    Node *add = pass_fm_sole_consumer(fm, out);
    if (add && add->op == OP_ADD) {
        Value *c = pass_fm_other(add, out);
        if (pass_fm_is_const(c) && c->dtype == a->dtype && pass_fm_shape_is(c, 1, &geo.n)) {
            bias = c;
            pass_fm_add(&m, add);
            out = add->outputs[0];
        }
    }
    if (!pass_fm_interior_ok(fm, &m, &out, 1)) return 0;
    Graph *g = fm->g;
    Node *f = pass_fm_emit_begin(fm, OP_MATMUL_NBITS, mm);
    node_add_input(g, f, a);
    node_add_input(g, f, weight_bytes(g, q, &geo));
    node_add_input(g, f, graph_add_const(g, s->name, s->dtype, 2, sz, s->data, s->nbytes));
    node_add_input(g, f, zero_points(g, z, &geo));
    node_add_input(g, f, bias);
    node_set_uint(g, f, "k", geo.k);
    node_set_uint(g, f, "n", geo.n);
    node_set_uint(g, f, "bits", geo.bits);
    node_set_uint(g, f, "blockSize", geo.block);
    return pass_fm_insert_commit(fm, &m, f, &out, 1);
}

int pass_fuse_matmul_nbits(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, OP_MATMUL, match) < 0 ? -1 : 0;
}
