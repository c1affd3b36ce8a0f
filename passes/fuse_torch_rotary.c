/* fuse_torch_rotary.c - pass fuse_torch_rotary: recovers rotaryEmbedding from the form torch exports
 * produce (fuse_torch.h): add(mul(x, cos4), mul(concat(neg(slice(x, D/2..D)), slice(x, 0..D/2)), sin4))
 * with cos4/sin4 = reshape(table [.., S, D]) to [1, 1, S, D].  The fused node is
 * rotaryEmbedding(x [B, N, S, D], positionIds = [0] (offset form: position = s), cosCache,
 * sinCache [maxPos, D/2]) with the caches evaluated from the tables at every row up to their upper
 * bound: a constant table is checked to have equal halves and its first half taken; a run-time table
 * cos/sin(concat(f, f)), f = transpose(matmul(invFreq, positions)), is evaluated as
 * cos((float)(invFreq[i] * positions[p])) (the float32 product the matmul computes).  A run-time
 * table whose angles f [B, S, D/2] are not constant (positions from a position_ids input) becomes
 * rotaryEmbedding(x, cos(f), sin(f)) without positionIds: each token's own angles, exact for any
 * positions.  Tables sliced from another row than 0, other layouts, interleaved pairs, partial
 * rotation, float16: no match. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "fuse_torch.h"
#include "pass.h"

#define MAX_TABLE_ELEMS ((uint64_t)1 << 26)

/* A static float32 constant with all its bytes: a view of its elements. */
static bool const_f32(const Value *v, Ten *t) {
    if (!pass_fm_is_const(v) || !value_is_static(v) || v->dtype != DT_F32) return false;
    uint64_t count = value_max_elements(v);
    if (count < 1 || count > MAX_TABLE_ELEMS || v->nbytes < dtype_storage_bytes(v->dtype, count)) return false;
    *t = (Ten){.dt = v->dtype, .rank = 1, .count = (int64_t)count, .data = (void *)v->data};
    t->shape[0] = (int64_t)count;
    return true;
}

bool pass_torch_leading_ones(const Value *v, int keep) {
    for (int i = 0; i < v->rank - keep; i++)
        if (!dim_is_static(v->shape[i]) || v->shape[i].v != 1) return false;
    return v->rank >= keep;
}

Value *pass_torch_prefix_source(Value *v) {
    Node *sl = pass_fm_prod(v, OP_SLICE);
    if (!sl) return NULL;
    Value *src = sl->inputs[0];
    const int64_t *starts, *strides;
    if (!src || src->rank != v->rank || node_ints(sl, "starts", &starts) != src->rank) return NULL;
    for (int i = 0; i < src->rank; i++)
        if (starts[i] != 0) return NULL;
    int ns = node_ints(sl, "strides", &strides);
    for (int i = 0; i < ns; i++)
        if (strides[i] != 1) return NULL;
    return src;
}

/* The table [.., S, D] behind a [1, 1, S, D] view (reshapes only add or drop unit axes). */
static Value *table_of(Value *v4, Dim S, int64_t D) {
    if (!v4 || v4->rank != 4 || !pass_torch_leading_ones(v4, 2) || !dim_equal(v4->shape[2], S) ||
        !dim_is_static(v4->shape[3]) || v4->shape[3].v != D)
        return NULL;
    Value *t = v4;
    for (int d = 0; d < 8 && pass_fm_prod(t, OP_RESHAPE); d++) t = t->producer->inputs[0];
    if (!t || t->rank < 2 || !pass_torch_leading_ones(t, 2) || !dim_equal(t->shape[t->rank - 2], S) ||
        !dim_is_static(t->shape[t->rank - 1]) || t->shape[t->rank - 1].v != D)
        return NULL;
    return t;
}

/* A run-time table's angles: E = concat(f, f, last axis), f = transpose(matmul(invFreq [1, D/2, 1],
 * positions [1, 1, S]), [0, 2, 1]), positions a constant or a prefix of one.  Sets the float32
 * inverse frequencies and positions (views) and the row count M. */
static bool angles_of(Value *E, int64_t D, Ten *inv, Ten *pos, int64_t *M) {
    Node *cat = pass_fm_prod(E, OP_CONCAT);
    if (!cat || cat->n_inputs != 2 || cat->inputs[0] != cat->inputs[1] || E->rank != 3 ||
        node_int(cat, "axis", -1) != 2)
        return false;
    Node *tr = pass_fm_prod(cat->inputs[0], OP_TRANSPOSE);
    if (!tr || !pass_fm_ints_are(tr, "permutation", 3, (const int64_t[]){0, 2, 1})) return false;
    Node *mm = pass_fm_prod(tr->inputs[0], OP_MATMUL);
    if (!mm || mm->n_inputs != 2) return false;
    Value *f = mm->inputs[0], *p = mm->inputs[1];
    if (!pass_fm_shape_is(f, 3, (const int64_t[]){1, D / 2, 1}) || !const_f32(f, inv)) return false;
    if (!p || p->rank != 3 || !pass_torch_leading_ones(p, 1)) return false;
    Value *full = pass_fm_is_const(p) ? p : pass_torch_prefix_source(p);
    if (!full || !const_f32(full, pos) || full->rank != 3 || !pass_torch_leading_ones(full, 1)) return false;
    *M = full->shape[2].v;
    return true;
}

/* A constant created once per graph and tag (the caches of a table shared by many rotaries). */
static Value *tagged_const(Graph *g, const char *tag) {
    for (int i = 0; i < g->n_values; i++) {
        Value *v = g->values[i];
        if (v && (v->flags & VF_CONST) && v->origin && strcmp(v->origin, tag) == 0) return v;
    }
    return NULL;
}

/* The [M, D/2] cache of table t (cos when is_cos, else sin), or NULL when t is not a known form. */
static Value *cache_of(FuseMap *fm, Value *t, int64_t D, bool is_cos) {
    char tag[300];
    snprintf(tag, sizeof tag, "torch_rotary:%s:%.200s", is_cos ? "cos" : "sin", t->name);
    Value *have = tagged_const(fm->g, tag);
    if (have) return have;
    int64_t half = D / 2, M = 0;
    Ten src, inv, pos;
    Node *fn = pass_fm_prod(t, is_cos ? OP_COS : OP_SIN);
    Value *full = fn ? NULL : (pass_fm_is_const(t) ? t : pass_torch_prefix_source(t));
    if (fn) {
        if (t->rank != 3 || !angles_of(fn->inputs[0], D, &inv, &pos, &M)) return NULL;
    } else {
        if (!full || !const_f32(full, &src) || !pass_torch_leading_ones(full, 2) || full->rank != t->rank ||
            full->shape[full->rank - 1].v != D)
            return NULL;
        M = full->shape[full->rank - 2].v;
    }
    if (M < 1 || (uint64_t)M * (uint64_t)half > MAX_TABLE_ELEMS) return NULL;
    float *c = graph_alloc(fm->g, sizeof *c * (size_t)(M * half));
    if (!c) return NULL;
    for (int64_t p = 0; p < M; p++)
        for (int64_t i = 0; i < half; i++) {
            if (fn) {
                float a = (float)(ten_getf(&inv, i) * ten_getf(&pos, p)); /* exact product, rounded once */
                c[p * half + i] = (float)(is_cos ? cos((double)a) : sin((double)a));
                continue;
            }
            double lo = ten_getf(&src, p * D + i), hi = ten_getf(&src, p * D + i + half);
            if (lo != hi) return NULL; /* not a rotate_half table */
            c[p * half + i] = (float)lo;
        }
    int64_t shape[2] = {M, half};
    Value *v = graph_add_const(fm->g, is_cos ? "rotary_cos_cache" : "rotary_sin_cache", DT_F32, 2, shape, c,
                               sizeof *c * (uint64_t)(M * half));
    if (v) v->origin = graph_strdup(fm->g, tag);
    return v;
}

/* slice of x [B, N, S, D] along the last axis: [start, start + half), every other axis whole. */
static bool half_slice(const Node *sl, const Value *x, int64_t start, int64_t half) {
    if (!sl || sl->inputs[0] != x || sl->outputs[0]->rank != 4) return false;
    const int64_t *starts, *strides;
    if (node_ints(sl, "starts", &starts) != 4 || starts[0] || starts[1] || starts[2] || starts[3] != start) return false;
    int ns = node_ints(sl, "strides", &strides);
    for (int i = 0; i < ns; i++)
        if (strides[i] != 1) return false;
    const Value *o = sl->outputs[0];
    for (int i = 0; i < 3; i++)
        if (!dim_equal(o->shape[i], x->shape[i])) return false;
    return dim_is_static(o->shape[3]) && o->shape[3].v == half;
}

/* mul(concat(neg(slice(x, hi)), slice(x, lo)), sin4): sets x and sin4. */
static Node *rotated_half(Node *mul, Value **x, Value **sin4) {
    for (int k = 0; k < 2; k++) {
        Node *cat = pass_fm_prod(mul->inputs[k], OP_CONCAT);
        if (!cat || cat->n_inputs != 2 || node_int(cat, "axis", -1) != 3) continue;
        Node *neg = pass_fm_prod(cat->inputs[0], OP_NEG), *lo = pass_fm_prod(cat->inputs[1], OP_SLICE);
        Node *hi = neg ? pass_fm_prod(neg->inputs[0], OP_SLICE) : NULL;
        if (!hi || !lo || hi->inputs[0] != lo->inputs[0]) continue;
        *x = lo->inputs[0];
        *sin4 = mul->inputs[1 - k];
        return cat;
    }
    return NULL;
}

/* The angles f [B, S, D/2] of a run-time table cos(concat(f, f)) read by x [B, N, S, D] whose
 * angles are not constant (the per-token form), else NULL. */
static Value *per_token_angles(Node *fc, const Value *x, int64_t half) {
    Node *cat = fc ? pass_fm_prod(fc->inputs[0], OP_CONCAT) : NULL;
    if (!cat || cat->n_inputs != 2 || cat->inputs[0] != cat->inputs[1] || node_int(cat, "axis", -1) != 2) return NULL;
    Value *f = cat->inputs[0];
    if (!f || f->rank != 3 || f->dtype != DT_F32 || !dim_equal(f->shape[0], x->shape[0]) ||
        !dim_equal(f->shape[1], x->shape[2]) || !dim_is_static(f->shape[2]) || f->shape[2].v != half)
        return NULL;
    return f;
}

/* op(angles) for op cos or sin: an existing live one, else a new node. */
static Value *angles_fn(FuseMap *fm, Value *angles, OpId op) {
    Node *have = pass_fm_consumer_op(fm, angles, op);
    if (have) return have->outputs[0];
    Node *n = graph_new_node(fm->g, op, "torch_rotary_per_token");
    node_add_input(fm->g, n, angles);
    return graph_finish(fm->g, n);
}

int pass_torch_rotary_per_token(FuseMap *fm, Value *angles, Value **cos, Value **sin) {
    *cos = angles_fn(fm, angles, OP_COS);
    *sin = *cos ? angles_fn(fm, angles, OP_SIN) : NULL;
    return *cos && *sin ? 0 : -1;
}

int pass_torch_rotary_read(FuseMap *fm, Value *y, TorchRotary *r) {
    *r = (TorchRotary){0};
    Node *add = pass_fm_prod(y, OP_ADD);
    if (!add || add->n_inputs != 2 || y->dtype != DT_F32) return 0;
    for (int k = 0; k < 2; k++) {
        Node *m1 = pass_fm_prod(add->inputs[k], OP_MUL), *m2 = pass_fm_prod(add->inputs[1 - k], OP_MUL);
        Value *x = NULL, *sin4 = NULL;
        Node *cat = m2 && m1 && m1 != m2 ? rotated_half(m2, &x, &sin4) : NULL;
        if (!cat || x->rank != 4 || !dim_is_static(x->shape[3]) || x->shape[3].v < 2 || x->shape[3].v % 2 ||
            !pass_fm_same_shape(x, y))
            continue;
        int64_t D = x->shape[3].v, half = D / 2;
        Node *neg = cat->inputs[0]->producer, *hi = neg->inputs[0]->producer, *lo = cat->inputs[1]->producer;
        if (!half_slice(hi, x, half, half) || !half_slice(lo, x, 0, half)) continue;
        Value *cos4 = m1->inputs[0] == x ? m1->inputs[1] : m1->inputs[1] == x ? m1->inputs[0] : NULL;
        Value *tc = table_of(cos4, x->shape[2], D), *ts = table_of(sin4, x->shape[2], D);
        if (!tc || !ts) continue;
        /* a run-time table: cos and sin must read the same angles */
        Node *fc = pass_fm_prod(tc, OP_COS), *fs = pass_fm_prod(ts, OP_SIN);
        if ((fc || fs) && (!fc || !fs || fc->inputs[0] != fs->inputs[0])) continue;
        Value *cc = cache_of(fm, tc, D, true), *sc = cc ? cache_of(fm, ts, D, false) : NULL;
        if (diag_has_error()) return -1;
        if (cc && sc && cc->shape[0].v != sc->shape[0].v) continue;
        r->angles = cc && sc ? NULL : per_token_angles(fc, x, half);
        if (!(cc && sc) && !r->angles) continue;
        r->x = x, r->cos = r->angles ? NULL : cc, r->sin = r->angles ? NULL : sc;
        Node *nodes[TORCH_ROTARY_NODES] = {add, m1, m2, cat, neg, hi, lo};
        memcpy(r->nodes, nodes, sizeof nodes);
        r->n = TORCH_ROTARY_NODES;
        return 1;
    }
    return diag_has_error() ? -1 : 0;
}

static int match(FuseMap *fm, Node *add) {
    TorchRotary r;
    int got = pass_torch_rotary_read(fm, add->outputs[0], &r);
    if (got <= 0) return got;
    FuseMatch m = {0};
    for (int i = 0; i < r.n; i++) pass_fm_add(&m, r.nodes[i]);
    Value *exit = add->outputs[0];
    if (!pass_fm_interior_ok(fm, &m, &exit, 1)) return 0;
    Value *offset = r.angles ? NULL : tagged_const(fm->g, "torch_rotary:offset0");
    if (r.angles && pass_torch_rotary_per_token(fm, r.angles, &r.cos, &r.sin) < 0) return -1;
    if (!offset && !r.angles) {
        int64_t zero = 0, one = 1;
        offset = pass_fm_const(fm->g, "rotary_position_offset", DT_I64, 1, &one, &zero, sizeof zero);
        if (!offset) return -1;
        offset->origin = "torch_rotary:offset0";
    }
    Node *f = pass_fm_emit_begin(fm, OP_ROTARY_EMBEDDING, add);
    node_add_input(fm->g, f, r.x);
    node_add_input(fm->g, f, offset);
    node_add_input(fm->g, f, r.cos);
    node_add_input(fm->g, f, r.sin);
    return pass_fm_insert_commit(fm, &m, f, &exit, 1);
}

int pass_fuse_torch_rotary(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, OP_ADD, match) < 0 ? -1 : 0;
}
