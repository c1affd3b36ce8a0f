/* infer_fused.c - shape inference of the fusion-only extension ops (ops.def: silu, qkvProjection,
 * gatedMlp) and fused_parts() (fused_ops.h): a normalized projection is validated by running the
 * rules of its component ops (rmsNorm/skipRmsNorm, matmulNBits or matmul) on stack nodes that point
 * at the fused node's operands.
 * Family fused of ops.def: its op-indexed table is infer_fused_rules. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "checked.h"
#include "fused_ops.h"
#include "infer_internal.h"

static Value *in_at(const Node *n, int i) { return i < n->n_inputs ? n->inputs[i] : NULL; }

static Attr uint_attr(const char *key, int64_t v) { return (Attr){.key = key, .type = AT_UINT, .u.i = v}; }

static void stack_node(Node *t, const Node *n, OpId op, Value **ins, int n_ins, Attr *attrs, int n_attrs) {
    memset(t, 0, sizeof *t);
    t->op = op;
    t->id = n->id;
    t->origin = n->origin;
    t->inputs = ins;
    t->n_inputs = n_ins;
    t->attrs = attrs;
    t->n_attrs = n_attrs;
    t->index = -1;
}

const char *const gate_activation_names[GATE_ACTIVATION_COUNT] = {"silu", "gelu", "geluTanh"};

double fused_epsilon(const Node *n) { return node_float(n, "epsilon", 1e-6); }

int fused_activation(const Node *n) {
    const char *name = node_str(n, "activation", "silu");
    for (int i = 0; i < GATE_ACTIVATION_COUNT; i++)
        if (strcmp(name, gate_activation_names[i]) == 0) return i;
    diag_node_error(n, "unknown activation '%s' (silu, gelu or geluTanh)", name);
    return -1;
}

double gate_activation_apply(GateActivation act, double g) {
    switch (act) {
    case GATE_GELU: return 0.5 * g * (1.0 + erf(g * M_SQRT1_2));
    case GATE_GELU_TANH: return 0.5 * g * (1.0 + tanh(sqrt(2.0 / M_PI) * (g + 0.044715 * g * g * g)));
    default: return g / (1.0 + exp(-g));
    }
}

int fused_output_count(const Node *n) {
    bool sum = node_bool(n, "outputSum", false);
    if (sum && !in_at(n, FP_SKIP)) {
        diag_node_error(n, "outputSum needs a skip operand");
        return -1;
    }
    int count = 1;
    if (n->op == OP_QKV_PROJECTION) {
        const int64_t *s;
        count = node_ints(n, "splits", &s);
        if (count < 1 || count > FP_MAX_SPLITS) {
            diag_node_error(n, "splits must have 1 to %d entries", FP_MAX_SPLITS);
            return -1;
        }
    }
    return count + (sum ? 1 : 0);
}

int fused_parts(const Node *n, Value *normed, FusedParts *p) {
    memset(p, 0, sizeof *p);
    if (n->n_inputs < FP_WEIGHT + 1 || !in_at(n, FP_INPUT) || !in_at(n, FP_NORM_SCALE) || !in_at(n, FP_WEIGHT)) {
        diag_node_error(n, "needs input, normScale and weight operands");
        return -1;
    }
    if (fused_output_count(n) < 0) return -1;
    const Value *x = in_at(n, FP_INPUT);
    if (x->rank < 1) {
        diag_node_error(n, "input must have rank >= 1");
        return -1;
    }
    p->skip = in_at(n, FP_SKIP) != NULL;
    p->output_sum = node_bool(n, "outputSum", false);
    double eps = fused_epsilon(n);
    p->norm_attrs[0] = (Attr){.key = "epsilon", .type = AT_FLOAT, .u.f = eps};
    if (p->skip) {
        p->norm_in[0] = in_at(n, FP_INPUT), p->norm_in[1] = in_at(n, FP_SKIP);
        p->norm_in[2] = in_at(n, FP_NORM_SCALE), p->norm_in[3] = in_at(n, FP_SKIP_BIAS);
        p->norm_attrs[1] = uint_attr("outputCount", 2);
        stack_node(&p->norm, n, OP_SKIP_RMS_NORM, p->norm_in, 4, p->norm_attrs, 2);
    } else {
        if (in_at(n, FP_SKIP_BIAS)) {
            diag_node_error(n, "skipBias needs a skip operand");
            return -1;
        }
        p->norm_in[0] = in_at(n, FP_INPUT), p->norm_in[1] = in_at(n, FP_NORM_SCALE);
        p->norm_attrs[1] = uint_attr("axis", x->rank - 1);
        p->norm_attrs[2] = (Attr){.key = "stashType", .type = AT_INT, .u.i = 1};
        stack_node(&p->norm, n, OP_RMS_NORM, p->norm_in, 2, p->norm_attrs, 3);
    }
    p->k = node_int(n, "k", 0), p->n = node_int(n, "n", 0);
    int64_t bits = node_int(n, "bits", 0);
    p->nbits = bits != 0;
    p->proj_in[0] = normed;
    p->proj_in[1] = in_at(n, FP_WEIGHT);
    if (p->nbits) {
        p->proj_in[2] = in_at(n, FP_SCALES), p->proj_in[3] = in_at(n, FP_ZERO_POINTS), p->proj_in[4] = in_at(n, FP_BIAS);
        if (!p->proj_in[2]) {
            diag_node_error(n, "a quantized weight needs scales");
            return -1;
        }
        p->proj_attrs[0] = uint_attr("k", p->k), p->proj_attrs[1] = uint_attr("n", p->n);
        p->proj_attrs[2] = uint_attr("bits", bits), p->proj_attrs[3] = uint_attr("blockSize", node_int(n, "blockSize", 0));
        stack_node(&p->proj, n, OP_MATMUL_NBITS, p->proj_in, 5, p->proj_attrs, 4);
    } else {
        if (in_at(n, FP_SCALES) || in_at(n, FP_ZERO_POINTS)) {
            diag_node_error(n, "scales/zeroPoints need bits > 0");
            return -1;
        }
        stack_node(&p->proj, n, OP_MATMUL, p->proj_in, 2, NULL, 0);
    }
    if (n->op == OP_QKV_PROJECTION) {
        const int64_t *s;
        p->n_splits = node_ints(n, "splits", &s);
        int64_t total = 0;
        for (int i = 0; i < p->n_splits; i++) {
            if (s[i] < 1 || !checked_add_i64(total, s[i], &total)) {
                diag_node_error(n, "splits must be positive");
                return -1;
            }
            p->splits[i] = s[i];
        }
        if (total != p->n) {
            diag_node_error(n, "splits add up to %" PRId64 ", expected n = %" PRId64, total, p->n);
            return -1;
        }
    } else {
        if (p->n < 2 || p->n % 2) {
            diag_node_error(n, "n = %" PRId64 " must be even (gate and up halves)", p->n);
            return -1;
        }
        p->n_splits = 2;
        p->splits[0] = p->splits[1] = p->n / 2;
        int act = fused_activation(n);
        if (act < 0) return -1;
        p->activation = (GateActivation)act;
    }
    return 0;
}

static int infer_normed_projection(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = in_at(n, FP_INPUT);
    if (!x || !infer_check_dtype(n, FP_INPUT, DTM_FLOAT) || !infer_check_same_dtype(n, FP_NORM_SCALE, FP_INPUT))
        return -1;
    Value normed = *x; /* the normalized input has the input's type */
    normed.flags = 0, normed.producer = NULL, normed.data = NULL;
    FusedParts p;
    TensorDesc t[2];
    if (fused_parts(n, &normed, &p) < 0 || infer_node(g, &p.norm, t, 2) < 0) return -1;
    if (infer_node(g, &p.proj, t, 1) < 0) return -1;
    if (!p.nbits) {
        if (p.k < 1 || !infer_check_dtype(n, FP_WEIGHT, DTM_FLOAT) || !infer_check_same_dtype(n, FP_WEIGHT, FP_INPUT))
            return -1;
        Dim w[2] = {dim_static(p.k), dim_static(p.n)};
        if (!infer_check_shape(g, n, FP_WEIGHT, 2, w) || !infer_check_vector(g, n, FP_BIAS, dim_static(p.n), FP_INPUT))
            return -1;
    }
    int count = p.n_splits + (p.output_sum ? 1 : 0);
    if (n->op == OP_GATED_MLP) count = 1 + (p.output_sum ? 1 : 0);
    if (count > max_out) {
        diag_node_error(n, "no room for %d outputs", count);
        return -1;
    }
    int outs = n->op == OP_GATED_MLP ? 1 : p.n_splits;
    for (int i = 0; i < outs; i++) {
        infer_desc_of(&out[i], x);
        out[i].shape[x->rank - 1] = dim_static(p.splits[i]);
    }
    if (p.output_sum) infer_desc_of(&out[outs], x);
    return count;
}

static int infer_silu(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    (void)g, (void)max_out;
    if (!infer_check_dtype(n, 0, DTM_FLOAT)) return -1;
    infer_desc_of(&out[0], infer_in(n, 0));
    return 1;
}

const InferRule infer_fused_rules[OP_COUNT] = {
    [OP_SILU] = {infer_silu},
    [OP_QKV_PROJECTION] = {infer_normed_projection},
    [OP_GATED_MLP] = {infer_normed_projection},
};
