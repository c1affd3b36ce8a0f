/* graph_form.c - node operand layout, option values and dims as written to webnn-graph JSON and
 * .webnn text (see graph_form.h). */
#include "graph_form.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "tensor_codec.h"

int wn_node_form(const Node *n, NodeForm *f) {
    const OpInfo *info = op_info(n->op);
    memset(f, 0, sizeof *f);
    if (!info) {
        diag_error("node %s: op %d is not in the op table", node_display_name(n), (int)n->op);
        return -1;
    }
    if (info->n_inputs == 1 && info->inputs[0].variadic) {
        f->n_pos = n->n_inputs;
        f->pos = (const Value *const *)n->inputs;
        for (int i = 0; i < n->n_inputs; i++)
            if (!n->inputs[i]) {
                diag_node_error(n, "operand %d is absent", i);
                return -1;
            }
        return 0;
    }
    if (n->n_inputs > info->n_inputs) {
        diag_node_error(n, "has %d operands, the op takes at most %d", n->n_inputs, info->n_inputs);
        return -1;
    }
    /* Positional operands fill slots 0, 1, 2, ... (the readers count them so): positional until
     * the first slot that is absent or a `?@` slot (always an option); every present operand after
     * it (optional or required) is written as an option named after its slot. */
    bool by_name = false;
    for (int i = 0; i < n->n_inputs; i++) {
        const OpInputSlot *s = &info->inputs[i];
        const Value *v = n->inputs[i];
        if (!v && !s->optional) {
            diag_node_error(n, "required operand '%s' is absent", s->name);
            return -1;
        }
        by_name |= !v || s->as_option;
        if (!v) continue;
        if (by_name) {
            f->opt_key[f->n_opt] = s->name;
            f->opt_val[f->n_opt++] = v;
        } else {
            f->pos_buf[f->n_pos++] = v;
        }
    }
    f->pos = f->pos_buf;
    return 0;
}

int wn_form_dim(TextBuf *b, const Graph *g, Dim d, FormStyle style, bool in_option, const char *what) {
    if (dim_is_static(d)) {
        wn_tb_int(b, d.v);
        return 0;
    }
    const char *name = dim_symbol_name(g, d);
    if (!name) {
        char buf[256];
        diag_error("%s: dimension %s is an expression, not a named dynamic dim", what, dim_format(g, d, buf, sizeof buf));
        return -1;
    }
    int64_t max = g->symbols[g->exprs[d.e].sym].max_size;
    if (max <= 0) {
        diag_error("%s: dynamic dim '%s' has no maxSize", what, name);
        return -1;
    }
    if (style == FORM_TEXT && !in_option) {
        wn_tb_puts(b, "dyn(");
        wn_tb_json_string(b, name);
        wn_tb_printf(b, ", %lld)", (long long)max);
    } else {
        wn_tb_puts(b, "{\"name\": ");
        wn_tb_json_string(b, name);
        wn_tb_printf(b, ", \"maxSize\": %lld}", (long long)max);
    }
    return 0;
}

static int bad_type(const Node *n, const Attr *a, const OpOptionSlot *slot) {
    diag_node_error(n, "option '%s' has attribute type '%c', the op table says '%c'", a->key, (char)a->type,
                    (char)slot->type);
    return -1;
}

static int put_float(TextBuf *b, const Node *n, const char *key, double v) {
    if (wn_tb_double(b, v)) return 0;
    diag_node_error(n, "option '%s' is %s, which webnn-graph files cannot spell", key, isnan(v) ? "nan" : "infinite");
    return -1;
}

static int put_uint(TextBuf *b, const Node *n, const char *key, int64_t v) {
    if (v < 0) {
        diag_node_error(n, "option '%s' must not be negative (got %lld)", key, (long long)v);
        return -1;
    }
    wn_tb_int(b, v);
    return 0;
}

/* Integer arrays: every schema 'I' option (axes, padding, strides, starts...) is unsigned in
 * WebNN, as are the sizes of split's "splits". */
static int put_uint_array(TextBuf *b, const Node *n, const Attr *a) {
    wn_tb_puts(b, "[");
    for (int i = 0; i < a->n; i++) {
        if (i) wn_tb_puts(b, ", ");
        if (put_uint(b, n, a->key, a->u.ints[i])) return -1;
    }
    wn_tb_puts(b, "]");
    return 0;
}

int wn_form_option_value(TextBuf *b, const Graph *g, const Node *n, const OpOptionSlot *slot,
                      const Attr *a, FormStyle style) {
    bool is_int = a->type == AT_INT || a->type == AT_UINT;
    switch (slot->type) {
    case AT_INT:
        if (!is_int) return bad_type(n, a, slot);
        wn_tb_int(b, a->u.i);
        return 0;
    case AT_UINT:
        if (!is_int) return bad_type(n, a, slot);
        return put_uint(b, n, a->key, a->u.i);
    case AT_FLOAT:
        if (is_int) return put_float(b, n, a->key, (double)a->u.i);
        if (a->type != AT_FLOAT) return bad_type(n, a, slot);
        return put_float(b, n, a->key, a->u.f);
    case AT_BOOL:
        if (a->type != AT_BOOL) return bad_type(n, a, slot);
        wn_tb_puts(b, a->u.i ? "true" : "false");
        return 0;
    case AT_STRING:
        if (a->type != AT_STRING) return bad_type(n, a, slot);
        wn_tb_json_string(b, a->u.s);
        return 0;
    case AT_DTYPE:
        if (a->type != AT_DTYPE || a->u.i < 0 || a->u.i >= DT_COUNT) return bad_type(n, a, slot);
        wn_tb_json_string(b, dtype_name((DType)a->u.i));
        return 0;
    case AT_INTS:
        if (a->type != AT_INTS) return bad_type(n, a, slot);
        return put_uint_array(b, n, a);
    case AT_FLOATS:
        if (a->type != AT_FLOATS) return bad_type(n, a, slot);
        wn_tb_puts(b, "[");
        for (int i = 0; i < a->n; i++) {
            if (i) wn_tb_puts(b, ", ");
            if (put_float(b, n, a->key, a->u.floats[i])) return -1;
        }
        wn_tb_puts(b, "]");
        return 0;
    case AT_STRINGS:
        if (a->type != AT_STRINGS) return bad_type(n, a, slot);
        wn_tb_puts(b, "[");
        for (int i = 0; i < a->n; i++) {
            if (i) wn_tb_puts(b, ", ");
            wn_tb_json_string(b, a->u.strs[i]);
        }
        wn_tb_puts(b, "]");
        return 0;
    case AT_DIMS:
        if (a->type == AT_INTS) return put_uint_array(b, n, a);
        if (a->type != AT_DIMS) return bad_type(n, a, slot);
        wn_tb_puts(b, "[");
        for (int i = 0; i < a->n; i++) {
            if (i) wn_tb_puts(b, ", ");
            char what[300];
            snprintf(what, sizeof what, "node %s (%s): option '%s'", node_display_name(n), op_name(n->op), a->key);
            if (wn_form_dim(b, g, a->u.dims[i], style, true, what)) return -1;
        }
        wn_tb_puts(b, "]");
        return 0;
    case AT_SPLITS:
        if (a->type == AT_UINT || a->type == AT_INT) return put_uint(b, n, a->key, a->u.i);
        if (a->type != AT_INTS) return bad_type(n, a, slot);
        return put_uint_array(b, n, a);
    }
    return bad_type(n, a, slot);
}

int wn_form_check_attrs(const Node *n) {
    const OpInfo *info = op_info(n->op);
    for (int i = 0; i < n->n_attrs; i++) {
        if (op_option_index(info, n->attrs[i].key) >= 0) continue;
        diag_node_error(n, "option '%s' is not in the op table for %s", n->attrs[i].key, info->name);
        return -1;
    }
    return 0;
}

int wn_form_shape(TextBuf *b, const Graph *g, const Value *v, FormStyle style) {
    char what[300];
    snprintf(what, sizeof what, "value '%s'", value_display_name(v));
    wn_tb_puts(b, "[");
    for (int i = 0; i < v->rank; i++) {
        if (i) wn_tb_puts(b, ", ");
        if (wn_form_dim(b, g, v->shape[i], style, false, what)) return -1;
    }
    wn_tb_puts(b, "]");
    return 0;
}

void wn_form_scalar(TextBuf *b, DType dt, double value) {
    if (dtype_is_int(dt))
        wn_tb_int(b, (int64_t)value);
    else
        wn_tb_double(b, value); /* finite: checked by wn_tensor_scalar_value */
}

void wn_form_const_bytes(TextBuf *b, const Value *v, uint64_t elements) {
    uint64_t es = file_elem_bytes(v->dtype), n = elements * es;
    const uint8_t *p = v->data;
    wn_tb_puts(b, "[");
    for (uint64_t i = 0; i < n; i++) {
        uint8_t byte;
        if (dtype_is_4bit(v->dtype))
            wn_nibbles_unpack(p, i, 1, &byte);
        else
            byte = p[i];
        wn_tb_printf(b, i ? ", %u" : "%u", (unsigned)byte);
    }
    wn_tb_puts(b, "]");
}
