/* fuse_silu.c - pass fuse_silu: recovers x * sigmoid(x) as the silu extension op and
 * x * sigmoid(alpha * x) (alpha a constant, either operand order) as quickGelu (com.microsoft
 * QuickGelu; alpha 1 gives silu).  Anchored at each sigmoid: its operand is x or mul(x, alpha), its
 * only consumer is mul(x, sigmoid) with the same x, and the interior values have no other use. */
#include "fuse_match.h"
#include "pass.h"

static int match(FuseMap *fm, Node *sig) {
    FuseMatch m = {0};
    Value *t = sig->inputs[0], *x = t, *s = sig->outputs[0];
    double alpha = 1.0;
    Node *scale = pass_fm_prod(t, OP_MUL);
    if (scale) {
        Value *c = pass_fm_is_const(scale->inputs[0]) ? scale->inputs[0] : scale->inputs[1];
        if (!pass_fm_const_scalar(c, &alpha) || value_max_elements(c) != 1) scale = NULL;
        else x = pass_fm_other(scale, c);
    }
    if (!scale) alpha = 1.0, x = t;
    Node *mul = pass_fm_sole_consumer(fm, s);
    if (!mul || mul->op != OP_MUL || pass_fm_other(mul, s) != x || !pass_fm_same_shape(mul->outputs[0], x)) return 0;
    if (scale) pass_fm_add(&m, scale);
    pass_fm_add(&m, sig);
    pass_fm_add(&m, mul);
    Value *exit = mul->outputs[0];
    if (!pass_fm_interior_ok(fm, &m, &exit, 1)) return 0;
    bool silu = alpha == 1.0;
    Node *f = pass_fm_emit_begin(fm, silu ? OP_SILU : OP_QUICK_GELU, mul);
    node_add_input(fm->g, f, x);
    if (!silu) node_set_float(fm->g, f, "alpha", alpha);
    return pass_fm_insert_commit(fm, &m, f, &exit, 1);
}

int pass_fuse_silu(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, OP_SIGMOID, match) < 0 ? -1 : 0;
}
