/* eval.c - the CPU reference evaluator's entry points: eval_node() checks the operands, allocates
 * the outputs from their inferred static shapes and calls the op's evaluator, its entry in the
 * table of its ops.def family (eval_FAMILY_ops in eval_FAMILY.c; eval_support() answers the op
 * coverage test); eval_fold_node() turns a node with constant operands into constants (constant folding). */
#include <string.h>

#include "core.h"
#include "eval.h"
#include "eval_internal.h"

/* Folding limit: results up to this size are always folded (shape arithmetic, small masks and
 * tables); larger ones only when they are no bigger than the largest constant operand, so folding
 * never grows the weights: an Expand is not materialized, and a dequantizeLinear of int4 weights
 * stays a dequantizeLinear (8x smaller than its float result, and what the matmulNBits fusion and
 * kernels consume). */
#define FOLD_ALWAYS_BYTES (16u << 10)

double *eval_scratch(Graph *g, int64_t count) {
    return graph_alloc(g, sizeof(double) * (size_t)(count > 0 ? count : 1));
}

/* The evaluator tables of the op families, indexed by ops.def's FAMILY column. */
static const EvalOp *const family_ops[OPFAM_COUNT] = {
#define FAMILY(NAME) [OPFAM_##NAME] = eval_##NAME##_ops,
#include "op_families.def"
#undef FAMILY
};

DEFINE_OP_SUPPORT(eval_support, family_ops)

/* Checks that an output value has a static shape that fits in memory; fills t (without data). */
static int output_desc(const Node *n, const Value *v, Ten *t) {
    memset(t, 0, sizeof *t);
    t->dt = v->dtype;
    t->rank = v->rank;
    if (v->rank < 0 || v->rank > WN_MAX_RANK || (int)v->dtype < 0 || v->dtype >= DT_COUNT) return 1;
    t->count = 1;
    for (int i = 0; i < v->rank; i++) {
        if (!dim_is_static(v->shape[i]) || v->shape[i].v <= 0) return 1;
        t->shape[i] = v->shape[i].v;
        t->count *= v->shape[i].v;
        if (t->count > INT32_MAX) {
            diag_node_error(n, "output %s has too many elements to evaluate", value_display_name(v));
            return -1;
        }
    }
    return 0;
}

int eval_node(Graph *g, const Node *n, const void **out_data, uint64_t *out_nbytes) {
    if ((int)n->op < 0 || n->op >= OP_COUNT || n->n_inputs < 0 || n->n_outputs <= 0) return 1;
    EvalFn fn = family_ops[op_info(n->op)->family][n->op].fn;
    if (!fn) return 1; /* marked not evaluable (op_support.h) */
    Ten *in = graph_alloc(g, sizeof *in * (size_t)(n->n_inputs ? n->n_inputs : 1));
    for (int i = 0; i < n->n_inputs; i++) {
        if (!n->inputs[i]) continue; /* absent optional: data stays NULL */
        if (!n->inputs[i]->data) return 1;
        if (ten_from_value(n, n->inputs[i], &in[i]) < 0) return -1;
    }
    Ten *out = graph_alloc(g, sizeof *out * (size_t)n->n_outputs);
    for (int i = 0; i < n->n_outputs; i++) {
        int rc = output_desc(n, n->outputs[i], &out[i]);
        if (rc) return rc;
    }
    for (int i = 0; i < n->n_outputs; i++) {
        uint64_t bytes = dtype_storage_bytes(out[i].dt, (uint64_t)out[i].count);
        out[i].data = graph_alloc(g, (size_t)(bytes ? bytes : 1));
        out_data[i] = out[i].data;
        out_nbytes[i] = bytes;
    }
    return fn(g, n, in, out);
}

int eval_fold_node(Graph *g, Node *n) {
    if (n->dead || n->n_outputs <= 0) return 0;
    uint64_t largest = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        const Value *v = n->inputs[i];
        if (!v) continue;
        if (!(v->flags & VF_CONST) || !v->data) return 0;
        if (v->nbytes > largest) largest = v->nbytes;
    }
    uint64_t total = 0;
    for (int i = 0; i < n->n_outputs; i++) {
        const Value *v = n->outputs[i];
        if (!value_is_static(v)) return 0;
        uint64_t elems = value_max_elements(v);
        if (elems > INT32_MAX) return 0;
        total += dtype_storage_bytes(v->dtype, elems);
    }
    if (total > FOLD_ALWAYS_BYTES && total > largest) return 0;
    const void **data = graph_alloc(g, sizeof *data * (size_t)n->n_outputs);
    uint64_t *nbytes = graph_alloc(g, sizeof *nbytes * (size_t)n->n_outputs);
    int rc = eval_node(g, n, data, nbytes);
    if (rc != 0) return rc < 0 ? -1 : 0;
    for (int i = 0; i < n->n_outputs; i++) {
        Value *v = n->outputs[i];
        v->flags |= VF_CONST;
        v->data = data[i];
        v->nbytes = nbytes[i];
        v->producer = NULL;
        v->producer_slot = 0;
    }
    n->dead = true;
    return 1;
}
