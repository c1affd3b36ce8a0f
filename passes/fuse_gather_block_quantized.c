/* fuse_gather_block_quantized.c - pass fuse_gather_block_quantized: recovers gatherBlockQuantized
 * (com.microsoft GatherBlockQuantized: the int4 / int8 embedding tables of ORT-GenAI models) from
 * what decompose_gather_block_quantized emits.  Anchored at dequantizeLinear:
 *   out = dequantizeLinear(gather(Q, idx, axis a), gather(S, idx, axis a), gather(Z, idx, axis a))
 *   Q  a constant of uint4 / int4 (-> bits 4, any two distinct axes) or uint8 (-> bits 8, which
 *      needs gather axis 0 and the quantized axis last: the op's rule for uint8 data; unpacked
 *      2-bit tables are uint8 values and fuse as bits 8)
 *   S  a float constant shaped like Q except on one axis q != a, where Q's size is S's times a
 *      power-of-two block >= 16 (the blockwise scales)
 *   Z  a constant of Q's type shaped like S (the zero points)
 * and all three gathers read the same indices.  The fused node takes Q, the indices, S and Z as
 * they are; Z is dropped when every element is the op's default (0 for 4-bit types, 128 for uint8).
 * The repeat-and-slice form (a quantized axis that is not a multiple of the block) and a gathered
 * value used outside the match do not fuse.  The fused op writes zeros for an out-of-range index
 * (ORT) where the decomposition's gathers clamp (docs/extension-ops.md). */
#include "fuse_match.h"
#include "pass.h"

typedef struct {
    int gather_axis, quant_axis;
    int64_t block, bits;
} GbqForm;

/* The live gather of a constant producing v, reading *idx along *axis; when *idx is NULL (the
 * first of the three) any indices and axis, which it then sets.  NULL when there is none. */
static Node *gather_of(const Value *v, Value **idx, int64_t *axis) {
    Node *n = pass_fm_prod(v, OP_GATHER);
    if (!n || n->n_inputs < 2 || !pass_fm_is_const(n->inputs[0])) return NULL;
    int64_t a = node_int(n, "axis", 0);
    if (*idx && (n->inputs[1] != *idx || a != *axis)) return NULL;
    *idx = n->inputs[1], *axis = a;
    return n;
}

/* The blockwise geometry of table q with scales s (and zero points z shaped like s), or false. */
static bool block_form(const Value *q, const Value *s, const Value *z, int gather_axis, GbqForm *f) {
    if (!value_is_static(q) || !value_is_static(s) || s->rank != q->rank || !pass_fm_same_shape(z, s) ||
        z->dtype != q->dtype || gather_axis < 0 || gather_axis >= q->rank)
        return false;
    f->quant_axis = -1, f->block = 0;
    for (int i = 0; i < q->rank; i++) {
        int64_t qd = q->shape[i].v, sd = s->shape[i].v;
        if (qd == sd) continue;
        if (f->quant_axis >= 0 || sd <= 0 || qd % sd) return false;
        f->quant_axis = i, f->block = qd / sd;
    }
    if (f->quant_axis < 0 || f->quant_axis == gather_axis || f->block < 16 || (f->block & (f->block - 1))) return false;
    f->gather_axis = gather_axis;
    f->bits = q->dtype == DT_U8 ? 8 : 4;
    /* uint8 tables: the op reads them packed along the last axis and gathers along axis 0 */
    return q->dtype == DT_U4 || q->dtype == DT_I4 || (q->dtype == DT_U8 && gather_axis == 0 && f->quant_axis == q->rank - 1);
}

/* Whether every zero point equals the op's default for the table type (then it is left out). */
static bool default_zero_points(const Value *z) {
    double x;
    return pass_fm_const_scalar(z, &x) && x == (z->dtype == DT_U8 ? 128.0 : 0.0);
}

static int match(FuseMap *fm, Node *dq) {
    if (dq->n_inputs < 3) return 0;
    Value *idx = NULL;
    int64_t axis = 0;
    Node *gq = gather_of(dq->inputs[0], &idx, &axis), *gs = gq ? gather_of(dq->inputs[1], &idx, &axis) : NULL;
    Node *gz = gs ? gather_of(dq->inputs[2], &idx, &axis) : NULL;
    if (!gz) return 0;
    Value *q = gq->inputs[0], *s = gs->inputs[0], *z = gz->inputs[0];
    GbqForm f;
    if (!block_form(q, s, z, (int)axis, &f) || s->dtype != dq->outputs[0]->dtype) return 0;
    FuseMatch m = {0};
    pass_fm_add(&m, gq), pass_fm_add(&m, gs), pass_fm_add(&m, gz), pass_fm_add(&m, dq);
    Value *out = dq->outputs[0];
    if (!pass_fm_interior_ok(fm, &m, &out, 1)) return 0;
    Graph *g = fm->g;
    Node *n = pass_fm_emit_begin(fm, OP_GATHER_BLOCK_QUANTIZED, dq);
    node_add_input(g, n, q);
    node_add_input(g, n, idx);
    node_add_input(g, n, s);
    node_add_input(g, n, default_zero_points(z) ? NULL : z);
    static const char *const keys[] = {"bits", "blockSize", "gatherAxis", "quantizeAxis"};
    const int64_t values[] = {f.bits, f.block, f.gather_axis, f.quant_axis};
    for (int i = 0; i < 4; i++) node_set_uint(g, n, keys[i], values[i]);
    return pass_fm_insert_commit(fm, &m, n, &out, 1);
}

int pass_fuse_gather_block_quantized(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, OP_DEQUANTIZE_LINEAR, match) < 0 ? -1 : 0;
}
