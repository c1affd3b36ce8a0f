/* fuse_rotary.c - pass fuse_rotary: recovers rotaryEmbedding from its decomposition
 * (decompose_rotary.c) and then folds rotaries that feed a groupQueryAttention into it.
 *
 * 1. Anchored at sub(mul(x1, c), mul(x2, s)) (y1 of the rotation): x1 is a slice of the (partial)
 *    rotated channels xr of the head view x4 (interleaved: of the pair view reshape(xr)); x4 is the
 *    input (4-D) or reshape(input) (3-D); c and s are reshapes of gather(cosCache|sinCache,
 *    positions) with positions = positionIds [B, S], or offset + 0..S-1 (positionIds [1]).  The guess
 *    (caches, positions, interleaved, rotary dim, heads) is proved by re-decomposition (fuse_proof.h)
 *    against the exit concat(y1, y2) [-> reshape] [-> concat tail] [-> reshape].
 * 2. groupQueryAttention(query = rotary(q), key = rotary(k), ...) without doRotary, q/k norms or
 *    positionIds, where both rotaries are 3-D, share caches, layout and positionIds [B, S], rotate
 *    2 * cacheDim channels and are used only there, becomes groupQueryAttention(q, k, ..., cos, sin,
 *    positionIds, doRotary) (the ORT-GenAI dml form: RotaryEmbedding nodes before GQA).  GQA rotates
 *    in float32: for float16 models this drops the float16 rounding of the rotated q/k. */
#include "core.h"
#include "fuse_proof.h"
#include "pass.h"

typedef struct {
    Value *x, *pos, *cos, *sin, *out;
    bool inter, partial, three_d;
    int64_t heads, rot;
} Rot;

/* c or s: through reshapes to the gather of a cache; sets *cache and returns the positions. */
static Value *table(Value *t, Value **cache) {
    for (int i = 0; i < 4 && pass_fm_prod(t, OP_RESHAPE); i++) t = t->producer->inputs[0];
    Node *ga = pass_fm_prod(t, OP_GATHER);
    if (!ga || node_int(ga, "axis", 0) != 0 || !pass_fm_is_const(pass_fm_skip(ga->inputs[0], OP_CAST, NULL))) return NULL;
    *cache = ga->inputs[0];
    return ga->inputs[1];
}

/* positions = positionIds, or add(range, cast(offset [1])): returns the positionIds operand. */
static Value *position_operand(Value *pos) {
    Node *add = pass_fm_prod(pos, OP_ADD);
    if (add) {
        Value *off = pass_fm_skip(add->inputs[1], OP_CAST, NULL);
        return off && off->rank == 1 && dim_is_static(off->shape[0]) && off->shape[0].v == 1 ? off : NULL;
    }
    return pos && pos->rank == 2 ? pos : NULL;
}

static Node *next(FuseMap *fm, Value *v, OpId op) {
    Node *n = pass_fm_sole_consumer(fm, v);
    return n && n->op == op ? n : NULL;
}

static bool read_rotary(FuseMap *fm, Node *sub, Rot *r) {
    Node *mc = pass_fm_prod(sub->inputs[0], OP_MUL), *ms = pass_fm_prod(sub->inputs[1], OP_MUL);
    if (!mc || !ms) return false;
    Node *s1 = pass_fm_prod(mc->inputs[0], OP_SLICE);
    if (!s1) return false;
    Value *xr = s1->inputs[0], *pc, *ps;
    r->inter = xr->rank == 5;
    if (r->inter) {
        Node *pairs = pass_fm_prod(xr, OP_RESHAPE);
        if (!pairs) return false;
        xr = pairs->inputs[0];
    }
    Value *x4 = xr;
    Node *part = pass_fm_prod(xr, OP_SLICE);
    r->partial = part != NULL;
    if (part) x4 = part->inputs[0];
    Node *view = pass_fm_prod(x4, OP_RESHAPE);
    r->three_d = view && view->inputs[0]->rank == 3;
    r->x = r->three_d ? view->inputs[0] : x4;
    if (x4->rank != 4 || xr->rank != 4 || !dim_is_static(xr->shape[3]) || !dim_is_static(x4->shape[r->three_d ? 2 : 1]))
        return false;
    r->rot = xr->shape[3].v;
    r->heads = x4->shape[r->three_d ? 2 : 1].v;
    if (!(pc = table(mc->inputs[1], &r->cos)) || !(ps = table(ms->inputs[1], &r->sin)) || pc != ps) return false;
    if (!(r->pos = position_operand(pc))) return false;
    /* exit: concat(y1, y2) [reshape] [concat tail] [reshape] */
    Node *cat = next(fm, sub->outputs[0], OP_CONCAT);
    if (!cat) return false;
    Value *out = cat->outputs[0];
    Node *n;
    if (r->inter && !(n = next(fm, out, OP_RESHAPE))) return false;
    if (r->inter) out = n->outputs[0];
    if (r->partial && !(n = next(fm, out, OP_CONCAT))) return false;
    if (r->partial) out = n->outputs[0];
    if (r->three_d && !(n = next(fm, out, OP_RESHAPE))) return false;
    if (r->three_d) out = n->outputs[0];
    r->out = out;
    return true;
}

static int match(FuseMap *fm, Node *sub) {
    Rot r = {0};
    if (!read_rotary(fm, sub, &r)) return 0;
    FuseProof p;
    if (pass_fp_begin(&p, fm->g, OP_ROTARY_EMBEDDING) < 0) return -1;
    pass_fp_operand(&p, r.x);
    pass_fp_operand(&p, r.pos);
    pass_fp_operand(&p, r.cos);
    pass_fp_operand(&p, r.sin);
    if (r.inter) node_set_bool(p.s, p.cand, "interleaved", true);
    if (r.three_d) node_set_uint(p.s, p.cand, "numHeads", r.heads);
    if (r.partial) node_set_uint(p.s, p.cand, "rotaryEmbeddingDim", r.rot);
    FuseMatch m = {0};
    int ok = pass_fp_prove(&p, fm, "decompose_rotary", &r.out, 1, &m);
    if (ok <= 0 || !pass_fm_interior_ok(fm, &m, &r.out, 1)) {
        pass_fp_end(&p);
        return ok < 0 ? -1 : 0;
    }
    Node *f = pass_fp_emit(&p, fm, sub);
    pass_fp_end(&p);
    return pass_fm_insert_commit(fm, &m, f, &r.out, 1);
}

/* ---- rotary into groupQueryAttention ------------------------------------------------------------- */

static Value *in(const Node *n, int i) { return i < n->n_inputs ? n->inputs[i] : NULL; }

/* The rotary producing operand `slot` of gqa, when it can move inside. */
static Node *foldable(FuseMap *fm, Node *gqa, int slot, RotaryGeom *geo) {
    Node *r = pass_fm_prod(in(gqa, slot), OP_ROTARY_EMBEDDING);
    if (!r || pass_fm_sole_consumer(fm, r->outputs[0]) != gqa || rotary_geometry(r, geo) < 0) {
        diag_clear();
        return NULL;
    }
    if (geo->four_d || geo->pos_form != 1 || geo->rot != 2 * geo->half) return NULL;
    return r;
}

static int fold(FuseMap *fm, Node *gqa) {
    if (node_bool(gqa, "doRotary", false) || in(gqa, GQA_POSITION_IDS) || in(gqa, GQA_COS) || in(gqa, GQA_Q_NORM) ||
        in(gqa, GQA_K_NORM) || !in(gqa, GQA_KEY))
        return 0;
    RotaryGeom gq, gk;
    Node *rq = foldable(fm, gqa, GQA_QUERY, &gq), *rk = foldable(fm, gqa, GQA_KEY, &gk);
    if (!rq || !rk || rq == rk) return 0;
    bool inter = node_bool(rq, "interleaved", false);
    if (inter != node_bool(rk, "interleaved", false) || rq->inputs[1] != rk->inputs[1] || rq->inputs[2] != rk->inputs[2] ||
        rq->inputs[3] != rk->inputs[3] || gq.head_size != gk.head_size || gq.rot != gk.rot)
        return 0;
    Graph *g = fm->g;
    Node *f = pass_fm_emit_begin(fm, OP_GROUP_QUERY_ATTENTION, gqa);
    for (int i = 0; i < GQA_SLOTS; i++) {
        Value *v = in(gqa, i);
        if (i == GQA_QUERY) v = rq->inputs[0];
        if (i == GQA_KEY) v = rk->inputs[0];
        if (i == GQA_COS) v = rq->inputs[2];
        if (i == GQA_SIN) v = rq->inputs[3];
        if (i == GQA_POSITION_IDS) v = rq->inputs[1];
        node_add_input(g, f, v);
    }
    pass_fm_copy_attrs(g, f, gqa);
    node_set_bool(g, f, "doRotary", true);
    node_set_bool(g, f, "rotaryInterleaved", inter);
    if (graph_insert_node(g, f) < 0) {
        diag_clear(); /* GQA refuses this rotary (e.g. cache geometry): leave both as they are */
        f->dead = true;
        return 0;
    }
    FuseMatch m = {0};
    pass_fm_add(&m, rq), pass_fm_add(&m, rk), pass_fm_add(&m, gqa);
    Value *exits[GQA_OUTPUTS] = {gqa->outputs[0], gqa->outputs[1], gqa->outputs[2]};
    return pass_fm_commit(fm, &m, f, exits, GQA_OUTPUTS) < 0 ? -1 : 1;
}

int pass_fuse_rotary(Graph *g, const PassOptions *opt) {
    (void)opt;
    if (fuse_each(g, OP_SUB, match) < 0) return -1;
    return fuse_each(g, OP_GROUP_QUERY_ATTENTION, fold) < 0 ? -1 : 0;
}
