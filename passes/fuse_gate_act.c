/* fuse_gate_act.c - the activated gate of a gated MLP (fuse_gate_act.h): silu, gelu, and the tanh
 * GELU chain read backwards from its last mul. */
#include <math.h>

#include "fuse_gate_act.h"

static Node *with_const(const Value *v, OpId op, double want, Value **other) {
    return pass_fm_prod_const(v, op, want, GATE_CONST_TOL, other);
}

/* x^3 written as pow(x, 3) or x * x * x (any grouping of the two muls): its nodes go to m. */
static bool is_cube_of(Value *v, const Value *x, FuseMatch *m) {
    Value *base;
    Node *p = pass_fm_prod_const(v, OP_POW, 3.0, 0.0, &base); /* the exponent exactly 3 */
    if (p) {
        if (base != x) return false;
        pass_fm_add(m, p);
        return true;
    }
    Node *outer = pass_fm_prod(v, OP_MUL);
    Value *sq = outer ? pass_fm_other(outer, x) : NULL;
    Node *inner = sq && sq != x ? pass_fm_prod(sq, OP_MUL) : NULL;
    if (!inner || inner->inputs[0] != x || inner->inputs[1] != x) return false;
    pass_fm_add(m, outer), pass_fm_add(m, inner);
    return true;
}

/* 1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)) produced as v: adds the nodes to m. */
static bool is_one_plus_tanh_of(Value *v, const Value *x, FuseMatch *m) {
    Value *t, *s, *x3;
    Node *plus = with_const(v, OP_ADD, 1.0, &t);
    Node *th = plus ? pass_fm_prod(t, OP_TANH) : NULL;
    Node *scale = th ? with_const(th->inputs[0], OP_MUL, sqrt(2.0 / M_PI), &s) : NULL;
    Node *sum = scale ? pass_fm_prod(s, OP_ADD) : NULL;
    Value *cubic = sum ? pass_fm_other(sum, x) : NULL;
    Node *coef = cubic && cubic != x ? with_const(cubic, OP_MUL, 0.044715, &x3) : NULL;
    if (!coef || !is_cube_of(x3, x, m)) return false;
    pass_fm_add(m, plus), pass_fm_add(m, th), pass_fm_add(m, scale), pass_fm_add(m, sum), pass_fm_add(m, coef);
    return true;
}

/* The tanh GELU of x produced as v: 0.5 x * (1 + tanh(..)) or 0.5 * (x * (1 + tanh(..))). */
static bool is_gelu_tanh_of(Value *v, const Value *x, FuseMatch *m) {
    Value *prod, *hx_in;
    Node *half = with_const(v, OP_MUL, 0.5, &prod);
    Node *xm = half ? pass_fm_prod(prod, OP_MUL) : NULL;
    Value *op = xm ? pass_fm_other(xm, x) : NULL;
    if (op && op != x && is_one_plus_tanh_of(op, x, m)) { /* 0.5 * (x * (1 + tanh)) */
        pass_fm_add(m, half), pass_fm_add(m, xm);
        return true;
    }
    Node *last = pass_fm_prod(v, OP_MUL);
    for (int i = 0; last && i < 2; i++) { /* (0.5 x) * (1 + tanh) */
        Node *hx = with_const(last->inputs[i], OP_MUL, 0.5, &hx_in);
        if (hx && hx_in == x && is_one_plus_tanh_of(last->inputs[1 - i], x, m)) {
            pass_fm_add(m, hx), pass_fm_add(m, last);
            return true;
        }
    }
    return false;
}

Node *pass_gate_product(FuseMap *fm, Value *gate, Value *up, GateActivation *act, FuseMatch *m) {
    Node *mul = pass_fm_sole_consumer(fm, up);
    Value *a = mul && mul->op == OP_MUL ? pass_fm_other(mul, up) : NULL;
    if (!a || a == up) return NULL;
    Node *p = pass_fm_prod(a, OP_SILU) ? pass_fm_prod(a, OP_SILU) : pass_fm_prod(a, OP_GELU);
    if (p && p->inputs[0] == gate) {
        pass_fm_add(m, p);
        *act = p->op == OP_SILU ? GATE_SILU : GATE_GELU;
        return mul;
    }
    FuseMatch chain = {0};
    if (!is_gelu_tanh_of(a, gate, &chain)) return NULL;
    for (int i = 0; i < chain.n; i++) pass_fm_add(m, chain.nodes[i]);
    *act = GATE_GELU_TANH;
    return mul;
}
