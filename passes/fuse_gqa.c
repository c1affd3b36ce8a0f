/* fuse_gqa.c - pass fuse_gqa: recovers groupQueryAttention from its decomposition (decompose_gqa.c)
 * by reading the operands and options off key nodes and proving the guess by re-decomposition
 * (fuse_proof.h).  Anchored at softmax (axis 3):
 *   scores  = matmul(Q, transpose(expandHeads(presentK)))  * scale  [softcap: mul, tanh, mul] [+ bias]
 *   logits  = where(lesserOrEqual(iota, rows) [logicalAnd greater(iota, rows - W)], scores, -3e38)
 *             [concat an extra sink column (headSink, or 0 for smoothSoftmax) ... slice after softmax]
 *   out     = reshape(transpose(matmul(softmax(logits), expandHeads(presentV)))) [cast]
 *   present = scatterElements(past, expand(rows), cast?(transpose(heads(k|v))))
 * query/key/value are the rank-3 values the head reshapes start from (one split of a packed query);
 * seqlensK is what rows = reshape(seqlensK) - reverse(iota) reads; the rotary tables (gather of a
 * cos/sin cache by rows or by positionIds), the q/k RMSNorm weights and epsilon are found on the
 * query/key paths (a norm weight whose cast to float32 was folded goes back to the query's dtype).  totalSequenceLength, which the decomposition does not read, becomes a constant
 * holding the cache capacity.  A different scale, a non-causal mask, another window, an interior
 * value used elsewhere: the proof fails and nothing fuses. */
#include "fuse_proof.h"
#include "core.h"
#include "pass.h"

#define WALK 48 /* bound of the first-operand walks along a head path */

typedef struct {
    Value *q, *k, *v, *past_k, *past_v, *seqlens, *cos, *sin, *pos, *bias, *sink, *qn, *kn;
    Value *out, *pres_k, *pres_v;
    double scale, softcap, qk_eps;
    int64_t window;
    bool smooth, rotary, interleaved, packed;
    Value *rows;
} Gqa;

static Value *skip_cast(Value *v) { return pass_fm_skip(v, OP_CAST, NULL); }

/* Through reshape/expand/cast producers to the scatterElements that wrote a present. */
static Node *present_of(Value *v) {
    for (int d = 0; d < 8 && v; d++) {
        if (pass_fm_prod(v, OP_SCATTER_ELEMENTS)) return v->producer;
        Node *p = v->producer;
        if (!p || p->dead || (p->op != OP_RESHAPE && p->op != OP_EXPAND && p->op != OP_CAST)) return NULL;
        v = p->inputs[0];
    }
    return NULL;
}

/* The (rank-3) source of a head tensor, walking first operands; collects rotary tables and the
 * RMSNorm weight met on the way. */
static Value *head_source(Gqa *a, Value *x, Value **norm) {
    for (int d = 0; d < WALK && x; d++) {
        Node *p = x->producer;
        if (!p || p->dead || p->n_inputs < 1) return NULL;
        if (p->op == OP_RESHAPE && skip_cast(p->inputs[0]) && skip_cast(p->inputs[0])->rank == 3) return skip_cast(p->inputs[0]);
        if (p->op == OP_MUL && pass_fm_prod(p->inputs[0], OP_DIV) && norm) { /* mul(div(x, sqrt(ms + eps)), w) */
            Node *sq = pass_fm_prod(p->inputs[0]->producer->inputs[1], OP_SQRT);
            Node *add = sq ? pass_fm_prod(sq->inputs[0], OP_ADD) : NULL;
            if (!add || !pass_fm_const_scalar(add->inputs[1], &a->qk_eps)) return NULL;
            *norm = skip_cast(p->inputs[1]);
        }
        if (p->op == OP_SUB && !a->cos && pass_fm_prod(p->inputs[0], OP_MUL) && pass_fm_prod(p->inputs[1], OP_MUL)) {
            Node *mc = p->inputs[0]->producer, *ms = p->inputs[1]->producer;
            Value *c = mc->inputs[1], *s = ms->inputs[1];
            a->interleaved = mc->inputs[0]->rank == 5;
            for (int i = 0; i < 4 && pass_fm_prod(c, OP_RESHAPE); i++) c = c->producer->inputs[0];
            for (int i = 0; i < 4 && pass_fm_prod(s, OP_RESHAPE); i++) s = s->producer->inputs[0];
            Node *gc = pass_fm_prod(c, OP_GATHER), *gs = pass_fm_prod(s, OP_GATHER);
            if (!gc || !gs || gc->inputs[1] != gs->inputs[1]) return NULL;
            a->rotary = true;
            a->cos = skip_cast(gc->inputs[0]), a->sin = skip_cast(gs->inputs[0]);
            a->pos = gc->inputs[1] == a->rows ? NULL : skip_cast(gc->inputs[1]);
        }
        x = p->inputs[0];
    }
    return NULL;
}

/* scores path: [add(s, bias)] <- [mul(tanh(mul(s, 1/c)), c)] <- mul(matmul(Q, KT), scale). */
static Node *scores(Gqa *a, Value *s) {
    Node *add = pass_fm_prod(s, OP_ADD);
    if (add) a->bias = skip_cast(add->inputs[1]), s = add->inputs[0];
    Node *cap = pass_fm_prod(s, OP_MUL);
    if (cap && pass_fm_prod(cap->inputs[0], OP_TANH)) {
        if (!pass_fm_const_scalar(cap->inputs[1], &a->softcap)) return NULL;
        Node *inner = pass_fm_prod(cap->inputs[0]->producer->inputs[0], OP_MUL);
        if (!inner) return NULL;
        s = inner->inputs[0];
    }
    Node *sc = pass_fm_prod(s, OP_MUL);
    if (!sc || !pass_fm_const_scalar(sc->inputs[1], &a->scale)) return NULL;
    return pass_fm_prod(sc->inputs[0], OP_MATMUL);
}

static bool mask(Gqa *a, Value *m) {
    Node *and = pass_fm_prod(m, OP_LOGICAL_AND);
    if (and) {
        Node *gt = pass_fm_prod(and->inputs[1], OP_GREATER), *lo = gt ? pass_fm_prod(gt->inputs[1], OP_SUB) : NULL;
        double w;
        if (!lo || !pass_fm_const_scalar(lo->inputs[1], &w) || w < 1 || w > INT32_MAX) return false;
        a->window = (int64_t)w;
        m = and->inputs[0];
    }
    Node *le = pass_fm_prod(m, OP_LESSER_OR_EQUAL);
    return le && pass_fm_prod(le->inputs[1], OP_RESHAPE) && pass_fm_prod(le->inputs[1]->producer->inputs[0], OP_SUB);
}

/* The sink column of concat(logits, expand(col)): headSink operand or smoothSoftmax. */
static bool sink(FuseMap *fm, Gqa *a, Node *cat, int64_t heads) {
    Node *ex = pass_fm_prod(cat->inputs[1], OP_EXPAND);
    if (!ex) return false;
    Value *col = ex->inputs[0];
    double zero;
    if (pass_fm_prod(col, OP_RESHAPE)) a->sink = skip_cast(col->producer->inputs[0]);
    else if (pass_fm_is_const(col) && value_max_elements(col) == 1 && pass_fm_const_scalar(col, &zero) && zero == 0.0 && heads != 1)
        a->smooth = true;
    else if (pass_fm_is_const(col) && value_max_elements(col) == (uint64_t)heads)
        a->sink = pass_fm_const(fm->g, col->name, col->dtype, 1, &heads, col->data, col->nbytes);
    else if (pass_fm_is_const(col) && value_max_elements(col) == 1)
        a->smooth = true; /* one head: the proof tells smoothSoftmax from a zero headSink apart */
    else
        return false;
    return true;
}

/* out = [cast](reshape(transpose(pv))). */
static Value *output_of(FuseMap *fm, Node *pv) {
    Node *tr = pass_fm_sole_consumer(fm, pv->outputs[0]);
    Node *rs = tr && tr->op == OP_TRANSPOSE ? pass_fm_sole_consumer(fm, tr->outputs[0]) : NULL;
    if (!rs || rs->op != OP_RESHAPE) return NULL;
    Node *cast = pass_fm_sole_consumer(fm, rs->outputs[0]);
    return cast && cast->op == OP_CAST && rs->outputs[0]->dtype == DT_F32 ? cast->outputs[0] : rs->outputs[0];
}

static bool read_pattern(FuseMap *fm, Node *sm, Gqa *a) {
    Value *logits = sm->inputs[0], *probs = sm->outputs[0];
    if (node_int(sm, "axis", -1) != 3 || !logits || logits->rank != 4) return false;
    Node *cat = pass_fm_prod(logits, OP_CONCAT);
    if (cat) {
        Node *sl = pass_fm_sole_consumer(fm, probs);
        if (cat->n_inputs != 2 || !sl || sl->op != OP_SLICE) return false;
        logits = cat->inputs[0], probs = sl->outputs[0];
    }
    Node *wh = pass_fm_prod(logits, OP_WHERE), *pv = pass_fm_consumer_op(fm, probs, OP_MATMUL);
    Node *qk = wh ? scores(a, wh->inputs[1]) : NULL;
    if (!qk || !pv || pv->inputs[0] != probs) return false;
    Node *kt = pass_fm_prod(qk->inputs[1], OP_TRANSPOSE);
    Node *sk = kt ? present_of(kt->inputs[0]) : NULL, *sv = present_of(pv->inputs[1]);
    if (!sk || !sv) return false;
    a->past_k = sk->inputs[0], a->past_v = sv->inputs[0];
    a->pres_k = sk->outputs[0], a->pres_v = sv->outputs[0];
    /* rows = sub(reshape(seqlensK), ...) read from the scatter indices expand(reshape(rows)) */
    Node *ex = pass_fm_prod(sk->inputs[1], OP_EXPAND), *rr = ex ? pass_fm_prod(ex->inputs[0], OP_RESHAPE) : NULL;
    Node *rows = rr ? pass_fm_prod(rr->inputs[0], OP_SUB) : NULL, *sr = rows ? pass_fm_prod(rows->inputs[0], OP_RESHAPE) : NULL;
    if (!sr || !mask(a, wh->inputs[0])) return false;
    a->rows = rows->outputs[0], a->seqlens = sr->inputs[0];
    Value *q4 = qk->inputs[0];
    if (q4->rank != 4 || !dim_is_static(q4->shape[1]) || (cat && !sink(fm, a, cat, q4->shape[1].v))) return false;
    /* value: cast?(transpose(reshape(cast?(v)))) */
    Node *vt = pass_fm_prod(skip_cast(sv->inputs[2]), OP_TRANSPOSE), *vr = vt ? pass_fm_prod(vt->inputs[0], OP_RESHAPE) : NULL;
    if (!vr) return false;
    a->v = skip_cast(vr->inputs[0]);
    Node *kt2 = pass_fm_prod(skip_cast(sk->inputs[2]), OP_TRANSPOSE), *qt = pass_fm_prod(q4, OP_TRANSPOSE);
    if (!kt2 || !qt) return false;
    a->k = head_source(a, kt2->inputs[0], &a->kn);
    a->q = head_source(a, qt->inputs[0], &a->qn);
    if (!a->q || !a->k || !a->v) return false;
    Node *split = pass_fm_prod(a->v, OP_SPLIT);
    if (split && split->n_outputs == 3 && a->q->producer == split && a->k->producer == split) {
        a->packed = true;
        a->q = split->inputs[0], a->k = a->v = NULL;
    }
    a->out = output_of(fm, pv);
    return a->out != NULL;
}

static int match(FuseMap *fm, Node *sm) {
    Gqa a = {0};
    if (!read_pattern(fm, sm, &a) || a.past_k->rank != 4 || !dim_is_static(a.past_k->shape[1]) ||
        !dim_is_static(a.past_k->shape[2]))
        return 0;
    /* q/k-norm weights of a float16 query whose cast to float32 was folded: back to float16 */
    Value *src = a.q ? a.q : a.k;
    if (a.qn && src && !(a.qn = pass_fm_const_as(fm->g, a.qn, src->dtype))) return 0;
    if (a.kn && src && !(a.kn = pass_fm_const_as(fm->g, a.kn, src->dtype))) return 0;
    int64_t heads = sm->inputs[0]->rank == 4 && dim_is_static(sm->outputs[0]->shape[1]) ? sm->outputs[0]->shape[1].v : 0;
    int32_t cap = (int32_t)a.past_k->shape[2].v;
    Value *total = pass_fm_const(fm->g, "total_sequence_length", DT_I32, 1, (const int64_t[]){1}, &cap, sizeof cap);
    FuseProof p;
    if (pass_fp_begin(&p, fm->g, OP_GROUP_QUERY_ATTENTION) < 0) return -1;
    Value *ops[GQA_SLOTS] = {a.q, a.k, a.v, a.past_k, a.past_v, a.seqlens, total, a.cos, a.sin, a.pos, a.bias,
                             a.sink, NULL, NULL, a.qn, a.kn};
    int last = GQA_SLOTS - 1;
    while (last > GQA_TOTAL_SEQ && !ops[last]) last--;
    for (int i = 0; i <= last; i++) pass_fp_operand(&p, ops[i]);
    Graph *s = p.s;
    node_set_uint(s, p.cand, "numHeads", heads);
    node_set_uint(s, p.cand, "kvNumHeads", a.past_k->shape[1].v);
    node_set_float(s, p.cand, "scale", a.scale);
    if (a.softcap > 0) node_set_float(s, p.cand, "softcap", a.softcap);
    if (a.window > 0) node_set_int(s, p.cand, "localWindowSize", a.window);
    if (a.rotary) node_set_bool(s, p.cand, "doRotary", true);
    if (a.interleaved) node_set_bool(s, p.cand, "rotaryInterleaved", true);
    if (a.smooth) node_set_bool(s, p.cand, "smoothSoftmax", true);
    if (a.qn || a.kn) node_set_float(s, p.cand, "qkNormEpsilon", a.qk_eps);
    FuseMatch m = {0};
    Value *exits[GQA_OUTPUTS] = {a.out, a.pres_k, a.pres_v};
    int r = pass_fp_prove(&p, fm, "decompose_gqa", exits, GQA_OUTPUTS, &m);
    if (r <= 0 || !pass_fm_interior_ok(fm, &m, exits, GQA_OUTPUTS)) {
        pass_fp_end(&p);
        return r < 0 ? -1 : 0;
    }
    Node *f = pass_fp_emit(&p, fm, sm);
    pass_fp_end(&p);
    return pass_fm_insert_commit(fm, &m, f, exits, GQA_OUTPUTS);
}

int pass_fuse_gqa(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, OP_SOFTMAX, match) < 0 ? -1 : 0;
}
