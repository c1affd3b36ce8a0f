/* compound_dims.c - removes dimensions that webnn-graph JSON cannot express (products such as
 * (4*sequence_length)) from reshape -> [per-row ops] -> reshape chains, e.g. the Qwen3 Q/K-norm of
 * the ORT-GenAI builder: reshape [1,S,Nq*H] -> [1,Nq*S,H], rmsNorm over the last axis, reshape back
 * to [1,S,Nq*H].
 *
 * For a reshape R1 whose output has a non-exportable dim, the input and output shapes are aligned
 * as two row-major factorizations of the same element stream (outer dims first, a remaining size is
 * split when the other side's size divides it, symbolic factors compared as multisets of symbols
 * times a static coefficient); each non-exportable output dim is replaced by the pieces it consists
 * of (4*S -> S, 4), which must all be static or pure symbols.  The pass then follows R1's output
 * through single-consumer nodes that act only on the trailing axes after the last split axis
 * (element-wise unary ops, casts, element-wise binary ops whose other operand has no more axes
 * than those trailing ones, rmsNorm whose axis is past the split axes) to a reshape R2 whose output
 * is exportable.  R1's newShape and the rmsNorm axes are rewritten, the chain is re-inferred, and R2
 * (unchanged newShape) produces what it produced before.  Anything else stays untouched: the
 * exportability check of convert then names the value. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fuse_match.h"
#include "pass.h"

#define CD_MAX_ATOMS 8   /* symbolic factors in one dim */
#define CD_MAX_DEPTH 16  /* expression nesting walked when factoring a dim */
#define CD_MAX_CHAIN 16  /* nodes between the two reshapes */

/* ---- dims as coefficient * product of symbolic atoms ------------------------------------------ */

typedef struct {
    int64_t c;               /* static coefficient, > 0 */
    int n;                   /* number of atoms */
    Dim atom[CD_MAX_ATOMS];  /* non-product expressions (symbols, sums, ...), sorted by expression */
} Factors;

static bool add_atom(Factors *f, Dim d) {
    if (f->n == CD_MAX_ATOMS) return false;
    int i = f->n++;
    while (i > 0 && f->atom[i - 1].e > d.e) {
        f->atom[i] = f->atom[i - 1];
        i--;
    }
    f->atom[i] = d;
    return true;
}

static bool factor_into(const Graph *g, Dim d, Factors *f, int depth) {
    if (dim_is_static(d)) return d.v > 0 && checked_mul_i64(f->c, d.v, &f->c);
    if (depth > CD_MAX_DEPTH || d.e <= 0 || d.e >= g->n_exprs) return false;
    const DimExpr *e = &g->exprs[d.e];
    if (e->kind == '*') return factor_into(g, e->a, f, depth + 1) && factor_into(g, e->b, f, depth + 1);
    return add_atom(f, d);
}

static bool factor(const Graph *g, Dim d, Factors *f) {
    f->c = 1;
    f->n = 0;
    return factor_into(g, d, f, 0);
}

static Dim factors_dim(Graph *g, const Factors *f) {
    Dim d = dim_static(f->c);
    for (int i = 0; i < f->n; i++) d = dim_mul(g, d, f->atom[i]);
    return d;
}

/* If a divides b (b = a * q exactly), stores q and returns true. */
static bool dim_divides(Graph *g, Dim a, Dim b, Dim *q) {
    Factors fa, fb, fq = {.c = 1};
    if (!factor(g, a, &fa) || !factor(g, b, &fb) || fb.c % fa.c != 0) return false;
    fq.c = fb.c / fa.c;
    int i = 0;
    for (int j = 0; j < fb.n; j++) { /* both sorted: fa.atom must be a sub-multiset of fb.atom */
        if (i < fa.n && fa.atom[i].e == fb.atom[j].e) i++;
        else fq.atom[fq.n++] = fb.atom[j];
    }
    if (i != fa.n) return false;
    *q = factors_dim(g, &fq);
    return dim_equal(dim_mul(g, a, *q), b); /* the normal form must agree, else stay conservative */
}

static bool exportable(const Graph *g, Dim d) { return dim_is_static(d) || dim_symbol_name(g, d) != NULL; }
static bool is_one(Dim d) { return dim_is_static(d) && d.v == 1; }

/* ---- re-splitting the reshape ------------------------------------------------------------------ */

/* The output shape of reshape `in` -> `out` with every non-exportable output dim replaced by its
 * pieces in the row-major alignment with the input.  Fills shape/rank and, per output axis, how
 * many axes it became (grow[k]).  Returns false when the shapes do not align or a piece is itself
 * not exportable. */
static bool refine(Graph *g, const Value *in, const Value *out, Dim *shape, int *rank, int *grow) {
    Dim pieces[WN_MAX_RANK][WN_MAX_RANK];
    int np[WN_MAX_RANK] = {0};
    int i = 0, j = 0;
    Dim ri = in->rank ? in->shape[0] : dim_static(1), ro = out->rank ? out->shape[0] : dim_static(1);
    while (i < in->rank && j < out->rank) {
        Dim q, piece;
        bool next_in = false, next_out = false;
        if (dim_equal(ri, ro)) {
            piece = ri;
            next_in = next_out = true;
        } else if (dim_divides(g, ri, ro, &q)) { /* the input dim is the outer part of the output dim */
            piece = ri;
            ro = q;
            next_in = true;
        } else if (dim_divides(g, ro, ri, &q)) { /* the output dim is the outer part of the input dim */
            piece = ro;
            ri = q;
            next_out = true;
        } else {
            return false;
        }
        if (np[j] == WN_MAX_RANK) return false;
        pieces[j][np[j]++] = piece;
        if (next_in && ++i < in->rank) ri = in->shape[i];
        if (next_out && ++j < out->rank) ro = out->shape[j];
    }
    /* Trailing size-1 dims on either side. */
    for (; i < in->rank; i++)
        if (!is_one(in->shape[i])) return false;
    for (; j < out->rank; j++)
        if (!is_one(out->shape[j])) return false;
    *rank = 0;
    for (int k = 0; k < out->rank; k++) {
        Dim d = out->shape[k];
        if (exportable(g, d)) {
            grow[k] = 1;
            if (*rank == WN_MAX_RANK) return false;
            shape[(*rank)++] = d;
            continue;
        }
        grow[k] = 0;
        for (int p = 0; p < np[k]; p++) {
            if (is_one(pieces[k][p])) continue;
            if (!exportable(g, pieces[k][p]) || *rank == WN_MAX_RANK) return false;
            shape[(*rank)++] = pieces[k][p];
            grow[k]++;
        }
        if (grow[k] < 2) return false; /* nothing gained */
        Dim prod = dim_static(1);
        for (int p = *rank - grow[k]; p < *rank; p++) prod = dim_mul(g, prod, shape[p]);
        if (!dim_equal(prod, d)) return false;
    }
    return true;
}

/* ---- the chain between the reshapes ------------------------------------------------------------ */

typedef struct {
    Node *r1, *r2;
    Node *chain[CD_MAX_CHAIN];
    int n_chain;
    int tail;  /* axes after the last split axis of R1's output (the only ones chain ops may touch) */
    int shift; /* added rank: original axis a >= rank - tail becomes a + shift */
} Plan;

/* Node n is the only consumer of chain value v (R1's output shape) and acts only on its trailing
 * `tail` axes, producing a value of v's shape. */
static bool row_wise(const Node *n, const Value *v, int tail) {
    if (n->n_outputs != 1 || n->n_inputs < 1 || !value_same_shape(n->outputs[0], v)) return false;
    const OpInfo *info = op_info(n->op);
    if (n->op == OP_CAST || (info->flags & OPF_ELTWISE_UNARY)) return n->inputs[0] == v;
    if (info->flags & OPF_ELTWISE_BINARY) {
        if (n->n_inputs != 2 || !n->inputs[0] || !n->inputs[1]) return false;
        const Value *other = n->inputs[0] == v ? n->inputs[1] : n->inputs[0];
        return other->rank <= tail; /* broadcast over the trailing axes only */
    }
    if (n->op == OP_RMS_NORM) {
        int64_t axis = node_int(n, "axis", -1);
        return n->inputs[0] == v && axis >= v->rank - tail && axis < v->rank;
    }
    return false;
}

/* Fills p for reshape r1 (false when the pattern does not apply). */
static bool plan(FuseMap *fm, Node *r1, const int *grow, Plan *p) {
    const Value *mid = r1->outputs[0];
    int last_split = -1, shift = 0;
    for (int k = 0; k < mid->rank; k++)
        if (grow[k] != 1) last_split = k, shift += grow[k] - 1;
    p->r1 = r1;
    p->n_chain = 0;
    p->tail = mid->rank - 1 - last_split;
    p->shift = shift;
    Value *v = r1->outputs[0];
    for (int steps = 0; steps <= CD_MAX_CHAIN; steps++) {
        Node *n = pass_fm_sole_consumer(fm, v);
        if (!n || n->dead) return false;
        if (n->op == OP_RESHAPE) {
            if (n->inputs[0] != v || n->n_outputs != 1) return false;
            const Value *o = n->outputs[0];
            for (int k = 0; k < o->rank; k++)
                if (!exportable(fm->g, o->shape[k])) return false;
            p->r2 = n;
            return true;
        }
        if (steps == CD_MAX_CHAIN || !row_wise(n, v, p->tail)) return false;
        p->chain[p->n_chain++] = n;
        v = n->outputs[0];
    }
    return false;
}

/* ---- the rewrite (all or nothing) -------------------------------------------------------------- */

typedef struct {
    Node *node;
    int n_attrs;
    Attr *attrs; /* copy of the node's attributes */
    int rank;
    Dim shape[WN_MAX_RANK]; /* of outputs[0] */
} Saved;

static void save(Graph *g, Node *n, Saved *s) {
    s->node = n;
    s->n_attrs = n->n_attrs;
    s->attrs = graph_alloc(g, sizeof *s->attrs * (size_t)(n->n_attrs ? n->n_attrs : 1));
    if (n->n_attrs) memcpy(s->attrs, n->attrs, sizeof *s->attrs * (size_t)n->n_attrs);
    s->rank = n->outputs[0]->rank;
    memcpy(s->shape, n->outputs[0]->shape, sizeof s->shape);
}

static void restore(const Saved *s) {
    s->node->n_attrs = s->n_attrs;
    s->node->attrs = s->attrs;
    s->node->outputs[0]->rank = s->rank;
    memcpy(s->node->outputs[0]->shape, s->shape, sizeof s->shape);
}

/* Re-infers n and stores its output type; the dtype must not change. */
static int reinfer(Graph *g, Node *n) {
    TensorDesc out[1];
    if (infer_node(g, n, out, 1) != 1) return -1;
    Value *v = n->outputs[0];
    if (out[0].dtype != v->dtype) {
        diag_node_error(n, "compound_dims: output type changed while re-inferring");
        return -1;
    }
    v->rank = out[0].rank;
    memcpy(v->shape, out[0].shape, sizeof v->shape);
    return 0;
}

static int apply(Graph *g, const Plan *p, int rank, const Dim *shape) {
    Saved saved[CD_MAX_CHAIN + 2];
    int n_saved = 0;
    save(g, p->r1, &saved[n_saved++]);
    for (int i = 0; i < p->n_chain; i++) save(g, p->chain[i], &saved[n_saved++]);
    save(g, p->r2, &saved[n_saved++]);
    const Value *r2_out = p->r2->outputs[0];
    Value before = *r2_out;

    node_set_dims(g, p->r1, "newShape", rank, shape);
    int rc = reinfer(g, p->r1);
    for (int i = 0; rc == 0 && i < p->n_chain; i++) {
        Node *n = p->chain[i];
        if (n->op == OP_RMS_NORM) node_set_uint(g, n, "axis", node_int(n, "axis", 0) + p->shift);
        rc = reinfer(g, n);
    }
    if (rc == 0) rc = reinfer(g, p->r2);
    if (rc == 0 && !value_same_shape(r2_out, &before)) {
        diag_node_error(p->r2, "compound_dims: output shape changed after re-splitting");
        rc = -1;
    }
    if (rc < 0)
        for (int i = 0; i < n_saved; i++) restore(&saved[i]);
    return rc;
}

/* ---- the pass ---------------------------------------------------------------------------------- */

static bool has_compound(const Graph *g, const Value *v) {
    for (int k = 0; k < v->rank; k++)
        if (!exportable(g, v->shape[k])) return true;
    return false;
}

int pass_compound_dims(Graph *g, const PassOptions *opt) {
    (void)opt;
    bool any = false;
    for (int i = 0; i < g->n_nodes && !any; i++) {
        const Node *n = g->nodes[i];
        any = !n->dead && n->op == OP_RESHAPE && n->n_outputs == 1 && has_compound(g, n->outputs[0]);
    }
    if (!any) return 0;
    FuseMap fm = {0};
    if (pass_fm_build(&fm, g) < 0) return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < g->n_nodes; i++) {
        Node *r1 = g->nodes[i];
        if (r1->dead || r1->op != OP_RESHAPE || r1->n_inputs < 1 || !r1->inputs[0] || r1->n_outputs != 1 ||
            !has_compound(g, r1->outputs[0]))
            continue;
        Dim shape[WN_MAX_RANK];
        int rank, grow[WN_MAX_RANK];
        Plan p;
        if (!refine(g, r1->inputs[0], r1->outputs[0], shape, &rank, grow) || !plan(&fm, r1, grow, &p)) continue;
        rc = apply(g, &p, rank, shape);
    }
    pass_fm_free(&fm);
    return rc;
}
