/* legalize_4bit.c - uint4 for targets without it (Chromium 153 has int4 but no uint4 anywhere).
 * uint4 values are grouped: a constant with what data-movement ops (gather input, reshape,
 * transpose, slice, expand, concat, split, reverse, tile, identity) make of it, and a
 * dequantizeLinear's input with its zero point (their shifts must agree).  Each group becomes the
 * first of these that every use and constant in it accepts (impl_limits.h):
 *   int4  values - 8 (dequantizeLinear: (x - 8) - (zp - 8) == x - zp), packed two per byte;
 *   uint8 the same values, one byte each;
 *   int8  values - 8, one byte each.
 * A group that touches a graph input or output, or that no candidate fits, stops the conversion
 * with one line naming a node, its operand and the limit. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "legalize.h"
#include "webnn.h"

static const struct {
    DType dt;
    int shift;
} candidates[] = {{DT_I4, 8}, {DT_U8, 0}, {DT_I8, 8}};

static int find(int *parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

static void join(int *parent, const Value *a, const Value *b) {
    if (a && b && a->dtype == DT_U4 && b->dtype == DT_U4) parent[find(parent, a->id)] = find(parent, b->id);
}

static bool moves_data(OpId op) {
    switch (op) {
    case OP_GATHER: case OP_RESHAPE: case OP_TRANSPOSE: case OP_SLICE: case OP_EXPAND: case OP_CONCAT:
    case OP_SPLIT: case OP_REVERSE: case OP_TILE: case OP_IDENTITY: return true;
    default: return false;
    }
}

/* Whether every use of group `root` accepts dt; else a diagnostic for the first refusal when report. */
static bool group_fits(const Graph *g, const ImplLimits *l, int *parent, int root, DType dt, bool report) {
    for (int i = 0; i < g->n_values; i++) {
        const Value *v = g->values[i];
        if (v->dtype != DT_U4 || find(parent, v->id) != root) continue;
        if (v->flags & (VF_INPUT | VF_OUTPUT)) {
            if (report) diag_error("%s %s: uint4 is not accepted by the target (%s) and a graph interface cannot be retyped",
                                   v->flags & VF_INPUT ? "input" : "output", value_display_name(v), l->src);
            return false;
        }
        if ((v->flags & VF_CONST) && !wn_operand_supports(&l->constant, dt, v->rank)) {
            if (report) diag_error("constant %s: uint4 cannot be legalized: the target (%s) takes no int4/uint8/int8 constant of rank %d",
                                   value_display_name(v), l->src, v->rank);
            return false;
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        if (n->dead) continue;
        for (int s = 0; s < n->n_inputs + n->n_outputs; s++) {
            const Value *v = s < n->n_inputs ? n->inputs[s] : n->outputs[s - n->n_inputs];
            if (!v || v->dtype != DT_U4 || find(parent, v->id) != root) continue;
            const char *operand = s < n->n_inputs ? wn_limits_operand_name(n, s) : wn_limits_output_name(l, n, s - n->n_inputs);
            if (wn_limits_accepts(l, op_name(n->op), operand, dt, v->rank)) continue;
            if (report)
                diag_node_error(n, "operand %s (%s): uint4 cannot be legalized: the target (%s) takes none of int4, uint8, "
                                   "int8 there together with the other uses of these values", operand, value_display_name(v), l->src);
            return false;
        }
    }
    return true;
}

/* The constant's elements (IR layout: two per byte, low nibble first) as dt, shifted. */
static int retype_constant(Graph *g, Value *v, DType dt, int shift) {
    uint64_t n = value_max_elements(v), bytes = dtype_storage_bytes(dt, n);
    uint8_t *out = graph_alloc(g, bytes ? bytes : 1);
    const uint8_t *in = v->data;
    if (!in || v->nbytes < dtype_storage_bytes(DT_U4, n)) {
        diag_error("constant %s: has no data to retype", value_display_name(v));
        return -1;
    }
    for (uint64_t e = 0; e < n; e++) {
        int x = ((in[e / 2] >> ((e & 1) * 4)) & 0x0f) - shift;
        if (dt == DT_I4) out[e / 2] |= (uint8_t)((x & 0x0f) << ((e & 1) * 4));
        else out[e] = (uint8_t)x;
    }
    v->data = out;
    v->nbytes = bytes;
    v->dtype = dt;
    return 0;
}

int pass_legalize_4bit(Graph *g, const ImplLimits *l) {
    bool any = false;
    for (int i = 0; i < g->n_values && !any; i++) any = g->values[i]->dtype == DT_U4;
    if (!any) return 0;
    int *parent = malloc(sizeof *parent * (size_t)g->n_values);
    if (!parent) abort();
    for (int i = 0; i < g->n_values; i++) parent[i] = i;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        if (n->dead) continue;
        if (n->op == OP_DEQUANTIZE_LINEAR && n->n_inputs > 2) join(parent, n->inputs[0], n->inputs[2]);
        if (!moves_data(n->op)) continue;
        int data_inputs = n->op == OP_CONCAT ? n->n_inputs : 1;
        for (int s = 0; s < data_inputs; s++)
            for (int o = 0; o < n->n_outputs; o++) join(parent, n->inputs[s], n->outputs[o]);
    }
    int rc = 0;
    for (int i = 0; i < g->n_values && !rc; i++) {
        Value *v = g->values[i];
        if (v->dtype != DT_U4 || find(parent, v->id) != v->id) continue;
        int root = v->id, pick = -1;
        for (int c = 0; c < (int)(sizeof candidates / sizeof candidates[0]) && pick < 0; c++)
            if (group_fits(g, l, parent, root, candidates[c].dt, false)) pick = c;
        if (pick < 0) {
            group_fits(g, l, parent, root, DT_U8, true);
            rc = -1;
            break;
        }
        for (int k = 0; k < g->n_values && !rc; k++) {
            Value *m = g->values[k];
            if (m == v || m->dtype != DT_U4 || find(parent, m->id) != root) continue;
            if (m->flags & VF_CONST) rc = retype_constant(g, m, candidates[pick].dt, candidates[pick].shift);
            else m->dtype = candidates[pick].dt;
        }
        if (!rc) {
            if (v->flags & VF_CONST) rc = retype_constant(g, v, candidates[pick].dt, candidates[pick].shift);
            else v->dtype = candidates[pick].dt;
        }
    }
    free(parent);
    return rc;
}
