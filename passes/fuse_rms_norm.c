/* fuse_rms_norm.c - pass fuse_rms_norm: recovers rmsNorm and skipRmsNorm from their decomposed
 * forms.  Anchored at reduceMean (keepDimensions, trailing axes a..r-1):
 *   sq  = mul(xc, xc) | pow(xc, 2)
 *   r   = sqrt(add(reduceMean(sq), eps))            (eps a constant inside the sqrt)
 *   y   = div(xc, r) | mul(xc, reciprocal(r)) | mul(xc, div(1, r))
 *   z   = mul(y, W) (either order; W a constant or a cast of one, normalized size elements)
 *   out = z, or cast(z) when that cast is z's only use
 * xc is x, or cast(x) (float16 x with float32 compute = stashType 1).  When xc is a residual sum
 * add(a, b) [+ add(bias)] of two non-constant values of the full shape (the contrib decomposition:
 * add(cast(a), cast(skip)), or the torch form h = x + attention), the match becomes skipRmsNorm
 * over the last axis, and a sum used outside the match becomes its second output (through the
 * cast back to the input dtype in float16 graphs).  The contrib decomposition and the torch export
 * (pow, reduceMean, add eps, sqrt, reciprocal, mul weight) both match; epsilon added outside the
 * sqrt, a non-constant weight or an interior value used elsewhere do not. */
#include "fuse_match.h"
#include "pass.h"

typedef struct {
    FuseMatch m;
    Value *xc, *x, *out, *scale;
    int axis;
    double eps;
} Rms;

/* reduceMean over trailing axes with kept dims; returns the first axis or -1. */
static int trailing_axis(const Node *rm, int rank) {
    const int64_t *axes;
    int count = node_ints(rm, "axes", &axes);
    if (count < 1 || count > rank || !node_bool(rm, "keepDimensions", false)) return -1;
    for (int i = 0; i < count; i++)
        if (axes[i] != rank - count + i) return -1;
    return rank - count;
}

/* The squared operand: mul(v, v) or pow(v, 2). */
static Value *squared(Node *sq) {
    double two;
    if (sq->op == OP_MUL && sq->inputs[0] == sq->inputs[1]) return sq->inputs[0];
    if (sq->op == OP_POW && pass_fm_const_scalar(sq->inputs[1], &two) && two == 2.0) return sq->inputs[0];
    return NULL;
}

/* 1/r as used by y: returns the node computing y = xc * (1/r) or xc / r, adding the nodes to m. */
static Node *normalized(FuseMap *fm, Rms *r, Value *root) {
    int c;
    Node *const *cs = pass_fm_consumers(fm, root, &c);
    if (c != 1 || (root->flags & VF_OUTPUT)) return NULL;
    Node *u = cs[0];
    double one;
    if (u->op == OP_DIV && u->inputs[1] == root && u->inputs[0] == r->xc) return pass_fm_add(&r->m, u), u;
    bool recip = u->op == OP_RECIPROCAL ||
                 (u->op == OP_DIV && u->inputs[1] == root && pass_fm_const_scalar(u->inputs[0], &one) && one == 1.0);
    if (!recip) return NULL;
    pass_fm_add(&r->m, u);
    Node *mul = pass_fm_sole_consumer(fm, u->outputs[0]);
    if (!mul || mul->op != OP_MUL || pass_fm_other(mul, u->outputs[0]) != r->xc) return NULL;
    pass_fm_add(&r->m, mul);
    return mul;
}

/* z = mul(y, W): sets r->scale (the constant under an optional cast) and r->out. */
static bool weighted(FuseMap *fm, Rms *r, Value *y) {
    Node *mul = pass_fm_sole_consumer(fm, y);
    if (!mul || mul->op != OP_MUL) return false;
    Value *w = pass_fm_other(mul, y);
    Node *cast = pass_fm_prod(w, OP_CAST);
    Value *w0 = cast && pass_fm_is_const(cast->inputs[0]) && pass_fm_sole_consumer(fm, w) ? cast->inputs[0] : w;
    uint64_t size = 1;
    for (int i = r->axis; i < r->xc->rank; i++) size *= (uint64_t)r->xc->shape[i].v;
    if (!pass_fm_is_const(w0) || value_max_elements(w0) != size || !pass_fm_same_shape(mul->outputs[0], r->xc)) return false;
    if (w0 != w) pass_fm_add(&r->m, cast);
    pass_fm_add(&r->m, mul);
    r->scale = w0;
    r->out = mul->outputs[0];
    Node *down = pass_fm_sole_consumer(fm, r->out);
    DType to = down && down->op == OP_CAST ? down->outputs[0]->dtype : r->out->dtype;
    if (to != r->out->dtype && dtype_is_float(to)) {
        /* a float16 norm computed in float32 ends in a cast back; its weight is a cast of a float16
         * constant, or that cast folded into a float32 constant holding float16 values */
        Value *narrow = w0 == w && w0->dtype == r->out->dtype ? pass_fm_const_as(fm->g, w0, to) : w0;
        if (narrow && narrow->dtype == to) {
            pass_fm_add(&r->m, down);
            r->out = down->outputs[0];
            r->scale = narrow;
        }
    }
    return r->out->dtype == r->scale->dtype;
}

/* xc = add(a, b) [+ add(bias)] with a, b full-shape non-constants: the skip form.  Fills ins
 * (input, skip, bias) and the sum exit; false when xc is not such a sum. */
static bool skip_sum(FuseMap *fm, Rms *r, Value **ins, Value **sum_exit) {
    Node *add = pass_fm_prod(r->xc, OP_ADD), *bias_add = NULL;
    Value *bias = NULL;
    if (!add || r->axis != r->xc->rank - 1 || r->scale->rank != 1 || r->xc->dtype != DT_F32) return false;
    for (int i = 0; i < 2 && !bias; i++) {
        Value *c = add->inputs[i], *c0 = pass_fm_prod(c, OP_CAST) ? pass_fm_prod(c, OP_CAST)->inputs[0] : c;
        if (pass_fm_is_const(c0) && c0->rank == 1 && pass_fm_prod(add->inputs[1 - i], OP_ADD)) {
            bias_add = add, bias = c;
            add = pass_fm_prod(add->inputs[1 - i], OP_ADD);
        }
    }
    Value *a = add->inputs[0], *b = add->inputs[1];
    if (pass_fm_is_const(a) || pass_fm_is_const(b) || !pass_fm_same_shape(a, r->xc) || !pass_fm_same_shape(b, r->xc)) return false;
    if (bias_add && pass_fm_uses(fm, add->outputs[0]) != 1) return false;
    FuseMatch before = r->m;
    Node *ca = pass_fm_prod(a, OP_CAST), *cb = pass_fm_prod(b, OP_CAST), *cbias = bias ? pass_fm_prod(bias, OP_CAST) : NULL;
    DType t = r->xc->dtype;
    if (ca && cb && ca->inputs[0]->dtype == cb->inputs[0]->dtype && pass_fm_sole_consumer(fm, a) && pass_fm_sole_consumer(fm, b)) {
        t = ca->inputs[0]->dtype, a = ca->inputs[0], b = cb->inputs[0];
        pass_fm_add(&r->m, ca), pass_fm_add(&r->m, cb);
        if (cbias && pass_fm_sole_consumer(fm, bias) && cbias->inputs[0]->dtype == t) pass_fm_add(&r->m, cbias), bias = cbias->inputs[0];
        else if (bias && !cbias) bias = pass_fm_const_as(fm->g, bias, t); /* the bias cast folded */
    }
    if ((bias_add && !bias) || (bias && bias->dtype != t)) return r->m = before, false;
    if (t != r->scale->dtype || t != r->out->dtype) return r->m = before, false;
    pass_fm_add(&r->m, add);
    if (bias_add) pass_fm_add(&r->m, bias_add);
    /* uses of the sum outside the match: the sum exit (directly, or through one cast to t) */
    *sum_exit = NULL;
    int c;
    Node *const *cs = pass_fm_consumers(fm, r->xc, &c);
    for (int i = 0; i < c; i++) {
        if (pass_fm_has(&r->m, cs[i])) continue;
        bool cast_back = cs[i]->op == OP_CAST && cs[i]->outputs[0]->dtype == t && t != r->xc->dtype;
        if (*sum_exit || (!cast_back && t != r->xc->dtype)) return r->m = before, false;
        if (cast_back) pass_fm_add(&r->m, cs[i]);
        *sum_exit = cast_back ? cs[i]->outputs[0] : r->xc;
    }
    if ((r->xc->flags & VF_OUTPUT) && t == r->xc->dtype && !*sum_exit) *sum_exit = r->xc;
    ins[0] = a, ins[1] = b, ins[2] = bias;
    return true;
}

static int match(FuseMap *fm, Node *rm) {
    Rms r = {0};
    Node *sq = rm->inputs[0] ? rm->inputs[0]->producer : NULL;
    if (!sq || sq->dead || !(r.xc = squared(sq)) || pass_fm_uses(fm, sq->outputs[0]) != 1) return 0;
    r.axis = trailing_axis(rm, r.xc->rank);
    if (r.axis < 0 || !dtype_is_float(r.xc->dtype)) return 0;
    for (int i = r.axis; i < r.xc->rank; i++)
        if (!dim_is_static(r.xc->shape[i])) return 0;
    Node *add = pass_fm_sole_consumer(fm, rm->outputs[0]);
    if (!add || add->op != OP_ADD || !pass_fm_const_scalar_cast(pass_fm_other(add, rm->outputs[0]), &r.eps)) return 0;
    Node *sqrt = pass_fm_sole_consumer(fm, add->outputs[0]);
    if (!sqrt || sqrt->op != OP_SQRT) return 0;
    Value *eps_v = pass_fm_other(add, rm->outputs[0]);
    if (pass_fm_prod(eps_v, OP_CAST)) pass_fm_add(&r.m, eps_v->producer);
    pass_fm_add(&r.m, sq), pass_fm_add(&r.m, rm), pass_fm_add(&r.m, add), pass_fm_add(&r.m, sqrt);
    Node *y = normalized(fm, &r, sqrt->outputs[0]);
    if (!y || !weighted(fm, &r, y->outputs[0])) return 0;
    Value *ins[3] = {0}, *exits[2] = {r.out, NULL};
    bool skip = skip_sum(fm, &r, ins, &exits[1]);
    if (!skip) { /* plain rmsNorm: x is xc, or the float16 source of a cast used only here */
        r.x = r.xc;
        Node *up = pass_fm_prod(r.xc, OP_CAST);
        if (up && r.xc->dtype == DT_F32 && dtype_is_float(up->inputs[0]->dtype)) {
            pass_fm_add(&r.m, up);
            if (pass_fm_interior_ok(fm, &r.m, exits, 1)) r.x = up->inputs[0];
            else r.m.n--;
        }
        if (r.x->dtype != r.scale->dtype) return 0;
    }
    if (!pass_fm_interior_ok(fm, &r.m, exits, 2)) return 0;
    Node *f = pass_fm_emit_begin(fm, skip ? OP_SKIP_RMS_NORM : OP_RMS_NORM, y);
    if (skip) {
        node_add_input(fm->g, f, ins[0]);
        node_add_input(fm->g, f, ins[1]);
        node_add_input(fm->g, f, r.scale);
        node_add_input(fm->g, f, ins[2]);
        node_set_uint(fm->g, f, "outputCount", exits[1] ? 2 : 1);
    } else {
        node_add_input(fm->g, f, r.x);
        node_add_input(fm->g, f, r.scale);
        node_set_uint(fm->g, f, "axis", r.axis);
        node_set_int(fm->g, f, "stashType", r.xc->dtype == DT_F32 ? 1 : 0);
    }
    node_set_float(fm->g, f, "epsilon", r.eps);
    return pass_fm_insert_commit(fm, &r.m, f, exits, exits[1] ? 2 : 1);
}

int pass_fuse_rms_norm(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, OP_REDUCE_MEAN, match) < 0 ? -1 : 0;
}
