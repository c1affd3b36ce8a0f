/* infer.c - shape inference entry point: checks what every op shares (operand count and
 * presence against the op's input slots, option types against its schema, required options),
 * dispatches to the op's rule, then validates the outputs (dims > 0, dims and element counts
 * < 2^31).  The rule is the op's entry in the table of its ops.def family (infer_FAMILY_rules in
 * infer_FAMILY.c); infer_support() answers the op coverage test. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checked.h"
#include "infer_internal.h"
#include "op_support.h"

/* The rule tables of the op families, indexed by ops.def's FAMILY column. */
static const InferRule *const family_rules[OPFAM_COUNT] = {
#define FAMILY(NAME) [OPFAM_##NAME] = infer_##NAME##_rules,
#include "op_families.def"
#undef FAMILY
};

DEFINE_OP_SUPPORT(infer_support, family_rules)

static bool check_operands(const Graph *g, const Node *n, const OpInfo *info) {
    if (n->n_inputs < 0 || (n->n_inputs > 0 && !n->inputs)) {
        diag_node_error(n, "malformed operand list");
        return false;
    }
    bool variadic = info->n_inputs == 1 && info->inputs[0].variadic;
    if (variadic) {
        if (n->n_inputs < 1) {
            diag_node_error(n, "expected at least 1 operand for '%s', got 0", info->inputs[0].name);
            return false;
        }
    } else if (n->n_inputs > info->n_inputs) {
        diag_node_error(n, "expected at most %d operands, got %d", info->n_inputs, n->n_inputs);
        return false;
    }
    int slots = variadic ? n->n_inputs : info->n_inputs;
    for (int i = 0; i < slots; i++) {
        const OpInputSlot *s = &info->inputs[variadic ? 0 : i];
        const Value *v = infer_in(n, i);
        if (!v) {
            if (s->optional) continue;
            diag_node_error(n, "missing required operand %d ('%s')", i, s->name);
            return false;
        }
        if (v->rank < 0 || v->rank > WN_MAX_RANK) {
            diag_node_error(n, "operand %d (%s) has rank %d, outside 0..%d", i, value_display_name(v), v->rank, WN_MAX_RANK);
            return false;
        }
        if (v->dtype < 0 || v->dtype >= DT_COUNT) {
            diag_node_error(n, "operand %d (%s) has an invalid dtype", i, value_display_name(v));
            return false;
        }
        for (int d = 0; d < v->rank; d++) {
            Dim x = v->shape[d];
            bool ok = dim_is_static(x) ? (x.v > 0 && x.v < INFER_LIMIT) : (x.e > 0 && x.e < g->n_exprs && x.v < INFER_LIMIT);
            if (!ok) {
                diag_node_error(n, "operand %d (%s) has invalid dimension %" PRId64 " at axis %d", i,
                                value_display_name(v), x.v, d);
                return false;
            }
        }
    }
    return true;
}

static bool attr_matches(const Attr *a, AttrType want) {
    switch (want) {
    case AT_UINT: return (a->type == AT_UINT || a->type == AT_INT) && a->u.i >= 0;
    case AT_INT: return a->type == AT_INT || a->type == AT_UINT;
    case AT_FLOAT: return a->type == AT_FLOAT || a->type == AT_INT || a->type == AT_UINT;
    case AT_DTYPE: return a->type == AT_DTYPE && a->u.i >= 0 && a->u.i < DT_COUNT;
    case AT_SPLITS:
        return ((a->type == AT_UINT || a->type == AT_INT) && a->u.i >= 0) || a->type == AT_INTS;
    default: return a->type == want;
    }
}

static bool check_options(const Node *n, const OpInfo *info) {
    if (n->n_attrs < 0 || (n->n_attrs > 0 && !n->attrs)) {
        diag_node_error(n, "malformed option list");
        return false;
    }
    for (int i = 0; i < n->n_attrs; i++) {
        const Attr *a = &n->attrs[i];
        if (!a->key) {
            diag_node_error(n, "option %d has no name", i);
            return false;
        }
        if (strcmp(a->key, "label") == 0) continue;
        int idx = op_option_index(info, a->key);
        if (idx < 0) {
            diag_node_error(n, "unknown option '%s'", a->key);
            return false;
        }
        if (!attr_matches(a, info->options[idx].type)) {
            diag_node_error(n, "option '%s' has the wrong type or value (schema type '%c')", a->key,
                            (char)info->options[idx].type);
            return false;
        }
        bool is_array = a->type == AT_INTS || a->type == AT_FLOATS || a->type == AT_STRINGS || a->type == AT_DIMS;
        if (is_array && (a->n < 0 || (a->n > 0 && !a->u.ints))) {
            diag_node_error(n, "option '%s' has a malformed array", a->key);
            return false;
        }
    }
    for (int i = 0; i < info->n_options; i++) {
        if (info->options[i].required && !node_attr(n, info->options[i].key)) {
            diag_node_error(n, "missing required option '%s'", info->options[i].key);
            return false;
        }
    }
    return true;
}

static bool check_output(Graph *g, const Node *n, int index, const TensorDesc *d) {
    if (d->dtype < 0 || d->dtype >= DT_COUNT || d->rank < 0 || d->rank > WN_MAX_RANK) {
        diag_node_error(n, "output %d has an invalid type", index);
        return false;
    }
    uint64_t elements = 1;
    for (int i = 0; i < d->rank; i++) {
        Dim x = d->shape[i];
        char buf[96];
        if (dim_is_static(x) && x.v <= 0) {
            diag_node_error(n, "output %d would have dimension %" PRId64 " at axis %d (WebNN dims must be > 0)",
                            index, x.v, i);
            return false;
        }
        if (x.v >= INFER_LIMIT) {
            diag_node_error(n, "output %d dimension %s at axis %d is not below 2^31", index,
                            dim_format(g, x, buf, sizeof buf), i);
            return false;
        }
        /* Symbolic dims count as at least 1: only a definite violation is reported. */
        if (dim_is_static(x) && !checked_mul_u64(elements, (uint64_t)x.v, &elements)) elements = UINT64_MAX;
        if (elements >= (uint64_t)INFER_LIMIT) {
            char s[256];
            diag_node_error(n, "output %d shape %s has 2^31 or more elements", index,
                            infer_shape_str(g, d->rank, d->shape, s, sizeof s));
            return false;
        }
    }
    return true;
}

int infer_node(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const OpInfo *info = n ? op_info(n->op) : NULL;
    if (!info) {
        if (n) diag_node_error(n, "unknown op id %d", (int)n->op);
        else diag_error("shape inference called without a node");
        return -1;
    }
    const InferRule *entry = &family_rules[info->family][info->id];
    InferFn rule = entry->fn;
    if (!rule) {
        if (entry->unsupported) diag_node_error(n, "op '%s' has no shape inference: %s", info->name, entry->unsupported);
        else diag_node_error(n, "no shape inference rule for op '%s'", info->name);
        return -1;
    }
    if (max_out < 1) {
        diag_node_error(n, "no room for outputs");
        return -1;
    }
    if (!check_operands(g, n, info) || !check_options(n, info)) return -1;
    int count = rule(g, n, out, max_out);
    if (count < 0) return -1;
    if (count > max_out) {
        diag_node_error(n, "%d outputs, more than the supported %d", count, max_out);
        return -1;
    }
    for (int i = 0; i < count; i++)
        if (!check_output(g, n, i, &out[i])) return -1;
    return count;
}
