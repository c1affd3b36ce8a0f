/* eval_fused.c - CPU reference evaluation of the fusion-only extension ops (ops.def: silu,
 * qkvProjection, gatedMlp).  silu is x * sigmoid(x) in double.  The normalized projections are
 * evaluated as the composition that defines them (fused_ops.h): the component nodes built by
 * fused_parts() - rmsNorm/skipRmsNorm, then matmulNBits or matmul (+ bias) - are evaluated with the
 * components' own references (eval_ext.c, eval_linalg.c), each result rounded to the input dtype, then
 * split along the last axis (qkvProjection) or combined as act(gate) * up (gatedMlp, act its
 * `activation`: silu, erf gelu or tanh gelu).
 * Family fused of ops.def: its op-indexed table is eval_fused_ops. */
#include <math.h>
#include <string.h>

#include "eval.h"
#include "eval_internal.h"
#include "core.h"

/* A temporary constant Value shaped like `like` with the last dim `last` (no data yet). */
static Value *temp_value(Graph *g, const Value *like, int64_t last) {
    Value *v = graph_alloc(g, sizeof *v);
    *v = *like;
    v->id = -1;
    v->flags = VF_CONST;
    v->producer = NULL;
    v->data = NULL;
    v->nbytes = 0;
    v->shape[v->rank - 1] = dim_static(last);
    return v;
}

/* Evaluates stack node t (operands constant) into the Values outs[0..count). */
static int eval_into(Graph *g, Node *t, Value **outs, int count) {
    const void *data[2];
    uint64_t bytes[2];
    t->outputs = outs;
    t->n_outputs = count;
    int rc = eval_node(g, t, data, bytes);
    if (rc != 0) return rc;
    for (int i = 0; i < count; i++) outs[i]->data = data[i], outs[i]->nbytes = bytes[i];
    return 0;
}

static int eval_normed_projection(Graph *g, const Node *n, Ten *out) {
    const Value *x = n->inputs[FP_INPUT];
    Value *normed = temp_value(g, x, x->shape[x->rank - 1].v), *sum = temp_value(g, x, x->shape[x->rank - 1].v);
    FusedParts p;
    if (fused_parts(n, normed, &p) < 0) return -1;
    Value *norm_outs[2] = {normed, sum};
    int rc = eval_into(g, &p.norm, norm_outs, p.skip ? 2 : 1);
    if (rc != 0) return rc;
    Value *proj = temp_value(g, x, p.n);
    rc = eval_into(g, &p.proj, &proj, 1);
    if (rc != 0) return rc;
    Ten y;
    if (ten_from_value(n, proj, &y) < 0) return -1;
    Value *bias = p.nbits ? NULL : (n->n_inputs > FP_BIAS ? n->inputs[FP_BIAS] : NULL);
    Ten b = {0};
    if (bias && ten_from_value(n, bias, &b) < 0) return -1;
    int64_t rows = y.count / p.n;
    int outs = n->op == OP_GATED_MLP ? 1 : p.n_splits;
    for (int64_t r = 0; r < rows; r++) {
        int64_t col = 0;
        for (int i = 0; i < p.n_splits; i++) {
            for (int64_t c = 0; c < p.splits[i]; c++) {
                double v = ten_getf(&y, r * p.n + col + c);
                if (bias) v = ten_round_to_dtype(x->dtype, v + ten_getf(&b, col + c));
                if (n->op == OP_QKV_PROJECTION) ten_setf(&out[i], r * p.splits[i] + c, v);
                else if (i == 0) ten_setf(&out[0], r * p.splits[0] + c, ten_round_to_dtype(x->dtype, gate_activation_apply(p.activation, v)));
                else ten_setf(&out[0], r * p.splits[0] + c, ten_getf(&out[0], r * p.splits[0] + c) * v);
            }
            col += p.splits[i];
        }
    }
    if (p.output_sum) memcpy(out[outs].data, sum->data, sum->nbytes);
    return 0;
}

static int eval_silu(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)g, (void)n;
    for (int64_t i = 0; i < in[0].count; i++) {
        double x = ten_getf(&in[0], i);
        ten_setf(&out[0], i, x / (1.0 + exp(-x)));
    }
    return 0;
}

static int eval_projection(Graph *g, const Node *n, const Ten *in, Ten *out) {
    (void)in; /* the component nodes read the fused node's operands */
    return eval_normed_projection(g, n, out);
}

const EvalOp eval_fused_ops[OP_COUNT] = {
    [OP_SILU] = {eval_silu},
    [OP_QKV_PROJECTION] = {eval_projection},
    [OP_GATED_MLP] = {eval_projection},
};
