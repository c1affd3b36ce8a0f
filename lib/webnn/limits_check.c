/* limits_check.c - a graph against a WebNN implementation's limits (limits_check.h).  Messages are
 * one line naming the node (or value), the operand, what it is and what the limit accepts. */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "limits_check.h"

const char *wn_limits_operand_name(const Node *n, int i) {
    const OpInfo *info = op_info(n->op);
    if (info->n_inputs == 1 && info->inputs[0].variadic) return info->inputs[0].name;
    return i < info->n_inputs ? info->inputs[i].name : "?";
}

const char *wn_limits_output_name(const ImplLimits *l, const Node *n, int j) {
    static char buf[16];
    const char *op = op_name(n->op);
    if (n->n_outputs == 1 && wn_impl_limits_find(l, op, "output")) return "output";
    if (wn_impl_limits_find(l, op, "outputs")) return "outputs";
    snprintf(buf, sizeof buf, "output%d", j);
    return n->n_outputs == 1 && !wn_impl_limits_find(l, op, buf) ? "output" : buf;
}

/* op's entry for operand; a one-operand op whose file calls its operand otherwise (Chromium's
 * isNaN/isInfinite list "a" where the spec and ops.def say "input") gets that single entry. */
static const OperandSupport *find_support(const ImplLimits *l, const char *op, const char *operand) {
    const OperandSupport *s = wn_impl_limits_find(l, op, operand), *only = NULL;
    if (s || !strncmp(operand, "output", 6)) return s;
    for (int i = 0; i < l->n_operands; i++) {
        const OperandLimit *e = &l->operands[i];
        if (strcmp(e->op, op) || !strncmp(e->operand, "output", 6)) continue;
        if (only) return NULL;
        only = &e->s;
    }
    return only;
}

bool wn_limits_accepts(const ImplLimits *l, const char *op, const char *operand, DType dt, int rank) {
    const OperandSupport *s = find_support(l, op, operand);
    return s && wn_operand_supports(s, dt, rank);
}

/* "[float32, int32] rank 0..5" */
static const char *describe(const OperandSupport *s, char *buf, size_t len) {
    size_t pos = (size_t)snprintf(buf, len, "[");
    bool first = true;
    for (int dt = 0; dt < DT_COUNT && pos < len; dt++)
        if (s->data_types & (1u << dt)) {
            pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", first ? "" : ", ", dtype_name((DType)dt));
            first = false;
        }
    if (pos < len) snprintf(buf + pos, len - pos, "] rank %d..%d", s->rank_min, s->rank_max);
    return buf;
}

static int check_operand(const ImplLimits *l, const Node *n, const char *operand, const Value *v) {
    const char *op = op_name(n->op);
    const OperandSupport *s = n->n_inputs == 1 ? find_support(l, op, operand) : wn_impl_limits_find(l, op, operand);
    char lim[256];
    if (!s) {
        diag_node_error(n, "operand %s: %s lists no limits for it (%s)", operand, op, l->src);
        return -1;
    }
    if (!wn_operand_supports(s, v->dtype, v->rank)) {
        diag_node_error(n, "operand %s (%s): %s rank %d is outside the limit %s (%s)", operand, value_display_name(v),
                        dtype_name(v->dtype), v->rank, describe(s, lim, sizeof lim), l->src);
        return -1;
    }
    return 0;
}

int wn_limits_check_node(const Graph *g, const ImplLimits *l, const Node *n) {
    (void)g;
    const char *op = op_name(n->op);
    bool listed = false;
    for (int i = 0; i < l->n_operands && !listed; i++) listed = !strcmp(l->operands[i].op, op);
    if (!listed) {
        diag_node_error(n, "op %s is not supported by the target (%s lists no limits for it)", op, l->src);
        return -1;
    }
    for (int i = 0; i < n->n_inputs; i++) {
        const Value *v = n->inputs[i];
        if (!v) continue;
        const char *operand = wn_limits_operand_name(n, i);
        if (check_operand(l, n, operand, v) < 0) return -1;
        if (wn_impl_limits_constant_only(l, op, operand) && !(v->flags & VF_CONST)) {
            diag_node_error(n, "operand %s (%s): must be a constant on the target (notes of %s), it is computed in the graph",
                            operand, value_display_name(v), l->src);
            return -1;
        }
    }
    for (int j = 0; j < n->n_outputs; j++)
        if (check_operand(l, n, wn_limits_output_name(l, n, j), n->outputs[j]) < 0) return -1;
    return 0;
}

static int check_value(const ImplLimits *l, const Value *v, const char *what, const OperandSupport *s) {
    char lim[256];
    if (s->data_types && !wn_operand_supports(s, v->dtype, v->rank)) {
        diag_error("%s %s: %s rank %d is outside the %s limit %s (%s)", what, value_display_name(v), dtype_name(v->dtype),
                   v->rank, what, describe(s, lim, sizeof lim), l->src);
        return -1;
    }
    uint64_t bytes = (value_max_elements(v) * (uint64_t)dtype_bits(v->dtype) + 7) / 8;
    if (l->max_tensor_byte_length && bytes > l->max_tensor_byte_length) {
        diag_error("%s %s: %llu bytes exceed maxTensorByteLength %llu (%s)", what, value_display_name(v),
                   (unsigned long long)bytes, (unsigned long long)l->max_tensor_byte_length, l->src);
        return -1;
    }
    return 0;
}

int wn_limits_check_graph(const Graph *g, const ImplLimits *l) {
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && wn_limits_check_node(g, l, g->nodes[i]) < 0) return -1;
    for (int i = 0; i < g->n_inputs; i++)
        if (check_value(l, g->inputs[i], "input", &l->input) < 0) return -1;
    for (int i = 0; i < g->n_values; i++) {
        const Value *v = g->values[i];
        if ((v->flags & VF_CONST) && check_value(l, v, "constant", &l->constant) < 0) return -1;
        if (v->producer && !(v->flags & VF_OUTPUT) && check_value(l, v, "value", &(OperandSupport){0}) < 0) return -1;
    }
    for (int i = 0; i < g->n_outputs; i++)
        if (check_value(l, g->outputs[i], "output", &l->output) < 0) return -1;
    return 0;
}
