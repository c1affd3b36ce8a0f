/* infer_eltwise.c - shape inference of the eltwise family (ops.def): unary ops and activations,
 * binary ops with numpy broadcasting, comparisons and logical ops (uint8 results), prelu, cast
 * and where (3-way broadcasting); infer_eltwise_rules is the family's op-indexed table. */
#include <stdio.h>

#include "infer_internal.h"

bool infer_broadcast(Graph *g, int ra, const Dim *a, int rb, const Dim *b, int *rout, Dim *out) {
    (void)g;
    if (ra < 0 || rb < 0 || ra > WN_MAX_RANK || rb > WN_MAX_RANK) return false;
    int r = ra > rb ? ra : rb;
    Dim tmp[WN_MAX_RANK];
    for (int i = 0; i < r; i++) {
        int ia = i - (r - ra), ib = i - (r - rb);
        Dim da = ia >= 0 ? a[ia] : dim_static(1), db = ib >= 0 ? b[ib] : dim_static(1);
        if (dim_equal(da, db)) tmp[i] = da;
        else if (dim_is_static(da) && da.v == 1) tmp[i] = db;
        else if (dim_is_static(db) && db.v == 1) tmp[i] = da;
        else return false;
    }
    for (int i = 0; i < r; i++) out[i] = tmp[i];
    *rout = r;
    return true;
}

/* Broadcasts operand `slot` into `d` (which holds the shape so far). */
static bool broadcast_into(Graph *g, const Node *n, int slot, TensorDesc *d) {
    const Value *v = infer_in(n, slot);
    if (infer_broadcast(g, d->rank, d->shape, v->rank, v->shape, &d->rank, d->shape)) return true;
    char lead[160];
    snprintf(lead, sizeof lead, "operand %d (%s) shape", slot, value_display_name(v));
    infer_shapes_error(g, n, lead, v->rank, v->shape, "cannot be broadcast with", d->rank, d->shape);
    return false;
}

static DTypeMask unary_dtypes(OpId op) {
    switch (op) {
    case OP_ABS:
    case OP_NEG:
    case OP_SIGN:
    case OP_RELU: return DTM_SIGNED_NUM;
    case OP_IDENTITY: return DTM_ALL;
    case OP_CLAMP: return DTM_WEBNN;
    case OP_LOGICAL_NOT: return DTM(U8);
    default: return DTM_FLOAT;
    }
}

static int infer_unary(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    if (!infer_check_dtype(n, 0, unary_dtypes(n->op))) return -1;
    if (n->op == OP_CLAMP) {
        const Attr *lo = node_attr(n, "minValue"), *hi = node_attr(n, "maxValue");
        if (lo && hi && node_float(n, "minValue", 0) > node_float(n, "maxValue", 0)) {
            diag_node_error(n, "minValue %g is greater than maxValue %g", node_float(n, "minValue", 0),
                            node_float(n, "maxValue", 0));
            return -1;
        }
    }
    infer_desc_of(&out[0], infer_in(n, 0));
    if (n->op == OP_IS_NAN || n->op == OP_IS_INFINITE) out[0].dtype = DT_U8;
    return 1;
}

static int infer_binary(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    unsigned f = op_info(n->op)->flags;
    DTypeMask allowed = (f & OPF_LOGICAL) ? DTM(U8) : DTM_WEBNN;
    if (!infer_check_dtype(n, 0, allowed) || !infer_check_same_dtype(n, 1, 0)) return -1;
    infer_desc_of(&out[0], infer_in(n, 0));
    if (!broadcast_into(g, n, 1, &out[0])) return -1;
    if (f & (OPF_COMPARE | OPF_LOGICAL)) out[0].dtype = DT_U8;
    return 1;
}

static int infer_where(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    if (!infer_check_dtype(n, 0, DTM(U8)) || !infer_check_dtype(n, 1, DTM_WEBNN) ||
        !infer_check_same_dtype(n, 2, 1))
        return -1;
    infer_desc_of(&out[0], infer_in(n, 0));
    if (!broadcast_into(g, n, 1, &out[0]) || !broadcast_into(g, n, 2, &out[0])) return -1;
    out[0].dtype = infer_in(n, 1)->dtype;
    return 1;
}

static int infer_prelu(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0), *slope = infer_in(n, 1);
    if (!infer_check_dtype(n, 0, DTM_SIGNED_NUM) || !infer_check_same_dtype(n, 1, 0)) return -1;
    if (!infer_unidirectional(slope->rank, slope->shape, x->rank, x->shape)) {
        infer_shapes_error(g, n, "slope shape", slope->rank, slope->shape, "cannot be broadcast to input shape", x->rank,
                           x->shape);
        return -1;
    }
    infer_desc_of(&out[0], x);
    return 1;
}

static int infer_cast(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    infer_desc_of(&out[0], infer_in(n, 0));
    out[0].dtype = node_dtype(n, "to", DT_INVALID); /* validated by the option schema */
    return 1;
}

/* Unary ops, activations and logicalNot take one operand; binary, comparison and logical ops two. */
#define U(ID) [OP_##ID] = {infer_unary}
#define B(ID) [OP_##ID] = {infer_binary}
const InferRule infer_eltwise_rules[OP_COUNT] = {
    B(ADD), B(SUB), B(MUL), B(DIV), B(MAX), B(MIN), B(POW),
    B(EQUAL), B(NOT_EQUAL), B(GREATER), B(GREATER_OR_EQUAL), B(LESSER), B(LESSER_OR_EQUAL),
    U(LOGICAL_NOT), B(LOGICAL_AND), B(LOGICAL_OR), B(LOGICAL_XOR),
    U(ABS), U(CEIL), U(COS), U(ERF), U(EXP), U(FLOOR), U(IDENTITY), U(LOG), U(NEG), U(RECIPROCAL),
    U(ROUND_EVEN), U(SIGN), U(SIN), U(SQRT), U(TAN), U(IS_NAN), U(IS_INFINITE),
    U(ELU), U(GELU), U(HARD_SIGMOID), U(HARD_SWISH), U(LEAKY_RELU), U(LINEAR), U(RELU), U(SIGMOID),
    U(SOFTPLUS), U(SOFTSIGN), U(TANH), U(CLAMP),
    [OP_PRELU] = {infer_prelu},
    [OP_CAST] = {infer_cast},
    [OP_WHERE] = {infer_where},
};
#undef U
#undef B
