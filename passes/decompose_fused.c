/* decompose_fused.c - pass decompose_fused: replaces the fusion-only extension ops by spec ops:
 *   silu(x)        -> x * sigmoid(x)
 *   qkvProjection  -> [skip]rmsNorm -> matmulNBits (or matmul + add bias) -> slices along the last axis
 *   gatedMlp       -> the same projection -> act(gate slice) * up slice, act by `activation`:
 *                     silu x * sigmoid(x), gelu the spec gelu, geluTanh
 *                     0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (the importer's form)
 * The component nodes are the ones fused_parts() describes (lib/core/fused_ops.h, the composition
 * the reference evaluates); decompose_rms_norm and decompose_matmul_nbits then lower them, so the
 * result holds spec ops only.  The sum output (outputSum) is the skipRmsNorm's second output. */
#include <math.h>

#include "decompose.h"
#include "core.h"
#include "pass.h"

/* A graph node copying the stack component node t (operands and attributes), inserted. */
static Node *component(Dec *d, const Node *t) {
    Node *n = graph_new_node(d->g, t->op, d->ext->origin);
    for (int i = 0; i < t->n_inputs; i++) node_add_input(d->g, n, t->inputs[i]);
    for (int i = 0; i < t->n_attrs; i++) {
        const Attr *a = &t->attrs[i];
        if (a->type == AT_FLOAT) node_set_float(d->g, n, a->key, a->u.f);
        else if (a->type == AT_UINT) node_set_uint(d->g, n, a->key, a->u.i);
        else node_set_int(d->g, n, a->key, a->u.i);
    }
    return graph_insert_node(d->g, n) < 0 ? NULL : n;
}

static Value *silu_of(Dec *d, Value *x) { return pass_dc_binary(d, OP_MUL, x, pass_dc_unary(d, OP_SIGMOID, x)); }

static Value *gelu_tanh_of(Dec *d, Value *x) {
    DType dt = x->dtype;
    Value *x3 = pass_dc_binary(d, OP_POW, x, pass_dc_scalar(d, dt, 3.0));
    Value *inner = pass_dc_binary(d, OP_ADD, x, pass_dc_binary(d, OP_MUL, x3, pass_dc_scalar(d, dt, 0.044715)));
    Value *t = pass_dc_unary(d, OP_TANH, pass_dc_binary(d, OP_MUL, inner, pass_dc_scalar(d, dt, sqrt(2.0 / M_PI))));
    Value *half_x = pass_dc_binary(d, OP_MUL, x, pass_dc_scalar(d, dt, 0.5));
    return pass_dc_binary(d, OP_MUL, half_x, pass_dc_binary(d, OP_ADD, t, pass_dc_scalar(d, dt, 1.0)));
}

static Value *activate(Dec *d, GateActivation act, Value *gate) {
    if (act == GATE_GELU) return pass_dc_unary(d, OP_GELU, gate);
    return act == GATE_GELU_TANH ? gelu_tanh_of(d, gate) : silu_of(d, gate);
}

static int build_projection(Dec *d) {
    const Value *x = pass_dc_in(d, FP_INPUT);
    Value normed = *x;
    FusedParts p;
    if (fused_parts(d->ext, &normed, &p) < 0) return -1;
    Node *norm = component(d, &p.norm);
    if (!norm) return -1;
    p.proj.inputs[0] = norm->outputs[0];
    Node *proj = component(d, &p.proj);
    if (!proj) return -1;
    Value *y = proj->outputs[0], *bias = p.nbits ? NULL : pass_dc_in(d, FP_BIAS);
    if (bias) y = pass_dc_binary(d, OP_ADD, y, bias);
    int outs = d->ext->op == OP_GATED_MLP ? 1 : p.n_splits;
    if (d->ext->op == OP_GATED_MLP) {
        Value *gate = pass_dc_slice_last(d, y, 0, p.splits[0]), *up = pass_dc_slice_last(d, y, p.splits[0], p.splits[1]);
        if (pass_dc_result(d, 0, pass_dc_binary(d, OP_MUL, activate(d, p.activation, gate), up)) < 0) return -1;
    } else {
        int64_t start = 0;
        for (int i = 0; i < p.n_splits; start += p.splits[i++])
            if (pass_dc_result(d, i, p.n_splits == 1 ? y : pass_dc_slice_last(d, y, start, p.splits[i])) < 0) return -1;
    }
    return p.output_sum ? pass_dc_result(d, outs, norm->outputs[1]) : 0;
}

static int build_silu(Dec *d) { return pass_dc_result(d, 0, silu_of(d, pass_dc_in(d, 0))); }

int pass_decompose_fused(Graph *g, const PassOptions *opt) {
    if (pass_decompose_all(g, OP_SILU, build_silu) < 0 || pass_decompose_all(g, OP_QKV_PROJECTION, build_projection) < 0 ||
        pass_decompose_all(g, OP_GATED_MLP, build_projection) < 0)
        return -1;
    static const char *const components[] = {"decompose_rms_norm", "decompose_matmul_nbits"};
    return pass_run_list(g, components, 2, opt);
}
