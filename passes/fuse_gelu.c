/* fuse_gelu.c - pass fuse_gelu: recovers the erf GELU 0.5 x (1 + erf(x / sqrt(2))), as torch.onnx
 * and older opsets write it (ONNX Gelu is opset 20), as the spec op gelu.  Anchored at each erf:
 * its operand is x / sqrt(2) or x * (1 / sqrt(2)); its only reader adds 1; the rest is any of
 *   (0.5 x) * (1 + erf),   0.5 * (x * (1 + erf)),   x * (0.5 * (1 + erf))
 * with constants on either side, within GELU_CONST_TOL (float16 rounds 1/sqrt(2) by 1e-4), and no
 * interior value read elsewhere.  A gelu on the gate of a gated MLP then fuses into gatedMlp
 * (fuse_gate_act.c). */
#include <math.h>

#include "fuse_match.h"
#include "pass.h"

#define GELU_CONST_TOL 1e-3

static Node *with_const(const Value *v, OpId op, double want, Value **other) {
    return pass_fm_prod_const(v, op, want, GELU_CONST_TOL, other);
}

/* The sole reader of v when it is a binary `op` whose other operand is a scalar near `want`. */
static Node *reader_with_const(FuseMap *fm, const Value *v, OpId op, double want) {
    Node *n = pass_fm_sole_consumer(fm, v);
    Value *other;
    return n && with_const(n->outputs[0], op, want, &other) == n && other == v ? n : NULL;
}

/* x * (1 + erf) with the 0.5 somewhere: returns the last node and adds the rest to m. */
static Node *half_product(FuseMap *fm, Value *x, Value *plus_out, FuseMatch *m) {
    Node *mul = pass_fm_sole_consumer(fm, plus_out);
    if (!mul || mul->op != OP_MUL) return NULL;
    Value *other = pass_fm_other(mul, plus_out), *hx_in;
    if (other == x) { /* 0.5 * (x * (1 + erf)) */
        Node *half = reader_with_const(fm, mul->outputs[0], OP_MUL, 0.5);
        if (half) pass_fm_add(m, mul);
        return half;
    }
    Node *hx = other ? with_const(other, OP_MUL, 0.5, &hx_in) : NULL;
    if (hx && hx_in == x) { /* (0.5 x) * (1 + erf) */
        pass_fm_add(m, hx);
        return mul;
    }
    Value *h_in;
    if (with_const(mul->outputs[0], OP_MUL, 0.5, &h_in) == mul && h_in == plus_out) { /* x * (0.5 (1 + erf)) */
        Node *last = pass_fm_sole_consumer(fm, mul->outputs[0]);
        if (!last || last->op != OP_MUL || pass_fm_other(last, mul->outputs[0]) != x) return NULL;
        pass_fm_add(m, mul);
        return last;
    }
    return NULL;
}

static int match(FuseMap *fm, Node *erf) {
    FuseMatch m = {0};
    Value *x;
    Node *scale = with_const(erf->inputs[0], OP_DIV, sqrt(2.0), &x);
    if (!scale) scale = with_const(erf->inputs[0], OP_MUL, sqrt(0.5), &x);
    Node *plus = scale ? reader_with_const(fm, erf->outputs[0], OP_ADD, 1.0) : NULL;
    Node *last = plus ? half_product(fm, x, plus->outputs[0], &m) : NULL;
    if (!last || !pass_fm_same_shape(last->outputs[0], x) || !dtype_is_float(x->dtype)) return 0;
    pass_fm_add(&m, scale), pass_fm_add(&m, erf), pass_fm_add(&m, plus), pass_fm_add(&m, last);
    Value *exit = last->outputs[0];
    if (!pass_fm_interior_ok(fm, &m, &exit, 1)) return 0;
    Node *f = pass_fm_emit_begin(fm, OP_GELU, last);
    node_add_input(fm->g, f, x);
    return pass_fm_insert_commit(fm, &m, f, &exit, 1);
}

int pass_fuse_gelu(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, OP_ERF, match) < 0 ? -1 : 0;
}
