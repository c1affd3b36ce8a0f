/* eval_gqa.c - CPU reference of the groupQueryAttention extension op, written directly from ORT's
 * CPU kernel semantics (docs/extension-ops.md): loops over batch, heads and positions in double,
 * no decomposition.  Used for constant folding and as the oracle of tests/passes/test_decompose_gqa.c.
 *
 * Per batch b: total = seqlensK[b] + 1, past = total - S (must satisfy S <= total <= C).  The new K
 * (after q/k RMSNorm and rotary) and V rows go to cache rows past .. past+S-1 of the presents (the
 * rest of the presents is a copy of the pasts); query s at absolute position p = past + s attends
 * keys j in [lo, p] with lo = p - W + 1 when a local window W > 0 is set (W keys including the
 * current one: what ONNX Runtime 1.30's CPU kernel computes, measured by testdata/contrib/gqa and
 * equal to HF sliding_window = W), else 0.  Scores
 * scale * q.k, softcap c * tanh(s / c), + attentionBias, softmax (with an extra exp(sink) term in
 * the denominator for smoothSoftmax (sink 0) or headSink); output = P . V.
 * Without pastKey/pastValue: total = S, past = 0 for every batch, and the keys are the S new K/V
 * rows (held in a double scratch [kvN, S, H] per batch instead of the presents).
 * Family gqa of ops.def: its op-indexed table is eval_gqa_ops. */
#include <math.h>
#include <string.h>

#include "core.h"
#include "eval_internal.h"

typedef struct {
    const GqaGeom *geo;
    const Ten *in;
    Ten *out;
    int64_t B, S;
    int64_t T;                /* key rows per kv head: C, or S without a cache */
    double *q, *row, *scores; /* scratch: H, H, T */
    double *kbuf, *vbuf;      /* without a cache: the new K/V rows of one batch [kvN, S, H] */
} Gqa;

/* Element h of head `head` (counted in the packed [N | kvN | kvN] layout when packed) of token (b, s). */
static double qkv_elem(const Gqa *x, int slot, int64_t b, int64_t s, int64_t head, int64_t h) {
    const GqaGeom *geo = x->geo;
    int64_t H = geo->head_size;
    if (geo->packed) {
        int64_t width = (geo->heads + 2 * geo->kv_heads) * H;
        int64_t base = slot == GQA_QUERY ? 0 : slot == GQA_KEY ? geo->heads : geo->heads + geo->kv_heads;
        return ten_getf(&x->in[GQA_QUERY], (b * x->S + s) * width + (base + head) * H + h);
    }
    int64_t width = (slot == GQA_QUERY ? geo->heads : geo->kv_heads) * H;
    return ten_getf(&x->in[slot], (b * x->S + s) * width + head * H + h);
}

/* Per-head RMSNorm with weight operand `slot` (absent: no-op). */
static void rms_norm(const Gqa *x, int slot, double *v) {
    const Ten *w = &x->in[slot];
    if (!w->data) return;
    int64_t H = x->geo->head_size;
    double ss = 0;
    for (int64_t h = 0; h < H; h++) ss += v[h] * v[h];
    double inv = 1.0 / sqrt(ss / (double)H + x->geo->qk_eps);
    for (int64_t h = 0; h < H; h++) v[h] = v[h] * inv * ten_getf(w, h);
}

/* Rotary embedding of the first `rot` channels at position pos (validated by the caller). */
static void rotary(const Gqa *x, double *v, int64_t pos) {
    const GqaGeom *geo = x->geo;
    if (!geo->rotary) return;
    int64_t half = geo->rot / 2;
    for (int64_t j = 0; j < half; j++) {
        double c = ten_getf(&x->in[GQA_COS], pos * half + j), s = ten_getf(&x->in[GQA_SIN], pos * half + j);
        int64_t i1 = geo->interleaved ? 2 * j : j, i2 = geo->interleaved ? 2 * j + 1 : j + half;
        double a = v[i1], b = v[i2];
        v[i1] = a * c - b * s;
        v[i2] = b * c + a * s;
    }
}

/* Rotary position of token (b, s); -1 with a diagnostic when outside the cos/sin tables. */
static int64_t position(const Gqa *x, const Node *n, int64_t b, int64_t s, int64_t past) {
    const Ten *ids = &x->in[GQA_POSITION_IDS];
    int64_t pos = ids->data ? ten_geti(ids, b * x->S + s) : past + s;
    if (x->geo->rotary && (pos < 0 || pos >= x->geo->max_pos)) {
        eval_fail(n, "rotary position outside the cos/sin caches");
        return -1;
    }
    return pos;
}

/* Loads head `head` of operand `slot` for token (b, s), applies the norm and rotary. */
static int load_head(const Gqa *x, const Node *n, int slot, int64_t b, int64_t s, int64_t head, int64_t past,
                     double *v) {
    for (int64_t h = 0; h < x->geo->head_size; h++) v[h] = qkv_elem(x, slot, b, s, head, h);
    if (slot == GQA_VALUE) return 0;
    rms_norm(x, slot == GQA_QUERY ? GQA_Q_NORM : GQA_K_NORM, v);
    int64_t pos = position(x, n, b, s, past);
    if (pos < 0) return -1;
    rotary(x, v, pos);
    return 0;
}

/* Writes the S new K and V rows of batch b into the presents (without a cache: into kbuf/vbuf). */
static int write_cache(const Gqa *x, const Node *n, int64_t b, int64_t past) {
    const GqaGeom *geo = x->geo;
    int64_t H = geo->head_size;
    for (int64_t s = 0; s < x->S; s++)
        for (int64_t kh = 0; kh < geo->kv_heads; kh++) {
            int64_t row = geo->past ? ((b * geo->kv_heads + kh) * x->T + past + s) * H : (kh * x->S + s) * H;
            for (int slot = GQA_KEY; slot <= GQA_VALUE; slot++) {
                if (load_head(x, n, slot, b, s, kh, past, x->row) < 0) return -1;
                if (!geo->past) {
                    memcpy((slot == GQA_KEY ? x->kbuf : x->vbuf) + row, x->row, sizeof(double) * (size_t)H);
                    continue;
                }
                Ten *dst = &x->out[slot == GQA_KEY ? GQA_PRESENT_KEY : GQA_PRESENT_VALUE];
                for (int64_t h = 0; h < H; h++) ten_setf(dst, row + h, x->row[h]);
            }
        }
    return 0;
}

/* Element e of the key (slot GQA_KEY) or value rows of batch b: [B, kvN, T, H] presents, or the
 * per-batch scratch [kvN, S, H] without a cache. */
static double kv_at(const Gqa *x, int slot, int64_t b, int64_t e) {
    if (!x->geo->past) return (slot == GQA_KEY ? x->kbuf : x->vbuf)[e];
    int64_t per_batch = x->geo->kv_heads * x->T * x->geo->head_size;
    return ten_getf(&x->out[slot == GQA_KEY ? GQA_PRESENT_KEY : GQA_PRESENT_VALUE], b * per_batch + e);
}

static double bias_at(const Gqa *x, int64_t b, int64_t head, int64_t s, int64_t j) {
    const Ten *t = &x->in[GQA_ATTENTION_BIAS];
    if (!t->data) return 0;
    int64_t bb = t->shape[0] == 1 ? 0 : b, nn = t->shape[1] == 1 ? 0 : head;
    return ten_getf(t, ((bb * t->shape[1] + nn) * x->S + s) * x->T + j);
}

/* One query row: scores over keys [lo, p], softmax, weighted sum of V rows. */
static void attend(const Gqa *x, int64_t b, int64_t s, int64_t head, int64_t p) {
    const GqaGeom *geo = x->geo;
    int64_t H = geo->head_size, kh = head / geo->group;
    int64_t lo = geo->window > 0 && p >= geo->window ? p - geo->window + 1 : 0; /* W keys, see the header */
    int64_t cache = kh * x->T;
    double mx = -INFINITY;
    for (int64_t j = lo; j <= p; j++) {
        double d = 0;
        for (int64_t h = 0; h < H; h++) d += x->q[h] * kv_at(x, GQA_KEY, b, (cache + j) * H + h);
        d *= geo->scale;
        if (geo->softcap > 0) d = geo->softcap * tanh(d / geo->softcap);
        d += bias_at(x, b, head, s, j);
        x->scores[j] = d;
        if (d > mx) mx = d;
    }
    bool has_sink = geo->smooth || x->in[GQA_HEAD_SINK].data;
    double sink = x->in[GQA_HEAD_SINK].data ? ten_getf(&x->in[GQA_HEAD_SINK], head) : 0;
    if (has_sink && sink > mx) mx = sink;
    double den = has_sink ? exp(sink - mx) : 0;
    for (int64_t j = lo; j <= p; j++) {
        x->scores[j] = exp(x->scores[j] - mx);
        den += x->scores[j];
    }
    int64_t width = geo->heads * H, o = (b * x->S + s) * width + head * H;
    for (int64_t h = 0; h < H; h++) {
        double acc = 0;
        for (int64_t j = lo; j <= p; j++) acc += x->scores[j] * kv_at(x, GQA_VALUE, b, (cache + j) * H + h);
        ten_setf(&x->out[GQA_OUT], o + h, acc / den);
    }
}

static int eval_gqa(Graph *g, const Node *n, const Ten *in, Ten *out) {
    GqaGeom geo;
    if (gqa_geometry(g, n, &geo) < 0) return -1;
    if (geo.past && geo.capacity <= 0) return 1; /* symbolic cache capacity: not evaluable */
    Ten all[GQA_SLOTS]; /* every slot, absent ones (also past n_inputs) with data NULL */
    memset(all, 0, sizeof all);
    for (int i = 0; i < n->n_inputs && i < GQA_SLOTS; i++) all[i] = in[i];
    Gqa x = {&geo, all, out, out[GQA_OUT].shape[0], out[GQA_OUT].shape[1], 0, NULL, NULL, NULL, NULL, NULL};
    x.T = geo.past ? geo.capacity : x.S;
    x.q = eval_scratch(g, geo.head_size);
    x.row = eval_scratch(g, geo.head_size);
    x.scores = eval_scratch(g, x.T > 0 ? x.T : 1);
    if (!geo.past) { /* kv_heads * S * H <= the key operand's element count, already allocated */
        x.kbuf = eval_scratch(g, geo.kv_heads * x.S * geo.head_size);
        x.vbuf = eval_scratch(g, geo.kv_heads * x.S * geo.head_size);
    }
    if (!x.q || !x.row || !x.scores || (!geo.past && (!x.kbuf || !x.vbuf))) return eval_fail(n, "out of memory");
    for (int i = GQA_PRESENT_KEY; i <= GQA_PRESENT_VALUE && geo.past; i++) {
        const Ten *past = &all[i == GQA_PRESENT_KEY ? GQA_PAST_KEY : GQA_PAST_VALUE];
        if (past->count != out[i].count || past->dt != out[i].dt) return eval_fail(n, "present/past mismatch");
        memcpy(out[i].data, past->data, (size_t)dtype_storage_bytes(past->dt, (uint64_t)past->count));
    }
    for (int64_t b = 0; b < x.B; b++) {
        int64_t total = geo.past ? ten_geti(&all[GQA_SEQLENS_K], b) + 1 : x.S;
        if (geo.past && (total < x.S || total > geo.capacity))
            return eval_fail(n, "seqlensK[b] + 1 must lie between the sequence length and the cache capacity");
        int64_t past = total - x.S;
        if (write_cache(&x, n, b, past) < 0) return -1;
        for (int64_t s = 0; s < x.S; s++)
            for (int64_t head = 0; head < geo.heads; head++) {
                if (load_head(&x, n, GQA_QUERY, b, s, head, past, x.q) < 0) return -1;
                attend(&x, b, s, head, past + s);
            }
    }
    return 0;
}

const EvalOp eval_gqa_ops[OP_COUNT] = {
    [OP_GROUP_QUERY_ATTENTION] = {eval_gqa},
};
