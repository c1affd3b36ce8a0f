/* decompose_util.c - the shared machinery of the decomposition passes (decompose.h): the driver
 * that replaces every node of one extension op by the spec-op nodes its builder emits, spliced in at
 * the extension node's position, and small node-emitting helpers the builders share. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decompose.h"
#include "core.h"
#include "eval.h"

Value *pass_dc_in(const Dec *d, int i) { return i < d->ext->n_inputs ? d->ext->inputs[i] : NULL; }

int pass_dc_fail(const Dec *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_node_verror(d->ext, fmt, ap);
    va_end(ap);
    return -1;
}

int pass_dc_result(Dec *d, int slot, Value *v) {
    if (!v) return -1;
    Value *old = d->ext->outputs[slot];
    bool same = slot < WN_MAX_RANK && v->dtype == old->dtype && v->rank == old->rank;
    for (int i = 0; same && i < v->rank; i++) same = dim_equal(v->shape[i], old->shape[i]);
    if (!same) return pass_dc_fail(d, "decomposition of output %d has a different type", slot);
    d->repl[slot] = v;
    return 0;
}

/* Moves nodes [first, n_nodes) to just before `anchor`, renumbering the shifted range. */
static int splice_before(Graph *g, int first, Node *anchor) {
    int count = g->n_nodes - first, at = anchor->index;
    if (count <= 0) return 0;
    Node **tmp = malloc(sizeof *tmp * (size_t)count);
    if (!tmp) {
        diag_error("out of memory");
        return -1;
    }
    memcpy(tmp, g->nodes + first, sizeof *tmp * (size_t)count);
    memmove(g->nodes + at + count, g->nodes + at, sizeof *tmp * (size_t)(first - at));
    memcpy(g->nodes + at, tmp, sizeof *tmp * (size_t)count);
    free(tmp);
    for (int i = at; i < g->n_nodes; i++) g->nodes[i]->index = i;
    return 0;
}

/* The replacement takes over the old output's name (graph outputs keep their names). */
static void hand_over_name(Value *old, Value *v) {
    const char *name = v->name;
    v->name = old->name;
    v->origin = old->origin;
    old->name = name;
    if (v->producer && v->producer->n_outputs == 1) v->producer->id = v->name;
}

int pass_decompose_all(Graph *g, OpId op, DecomposeFn fn) { return pass_decompose_matching(g, op, NULL, NULL, fn); }

int pass_decompose_matching(Graph *g, OpId op, DecomposeWant want, const void *ctx, DecomposeFn fn) {
    bool changed = false;
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead || n->op != op || (want && !want(g, n, ctx))) continue;
        if (n->n_outputs < 1 || n->n_outputs > WN_MAX_RANK) {
            diag_node_error(n, "unexpected output count %d", n->n_outputs);
            return -1;
        }
        Dec d = {.g = g, .ext = n};
        int mark = g->n_nodes;
        if (fn(&d) < 0) {
            if (!diag_has_error()) diag_node_error(n, "decomposition failed");
            return -1;
        }
        for (int j = 0; j < n->n_outputs; j++)
            if (!d.repl[j]) {
                diag_node_error(n, "decomposition left output %d unset", j);
                return -1;
            }
        if (splice_before(g, mark, n) < 0) return -1;
        for (int j = 0; j < n->n_outputs; j++) {
            graph_replace_uses(g, n->outputs[j], d.repl[j]);
            hand_over_name(n->outputs[j], d.repl[j]);
        }
        n->dead = true;
        i = n->index;
        changed = true;
    }
    if (changed) graph_compact(g);
    return 0;
}

/* ---- emitting ------------------------------------------------------------------------------ */

static Node *new_node(Dec *d, OpId op, int count, Value *const *ins) {
    for (int i = 0; i < count; i++)
        if (!ins[i]) return NULL;
    Node *n = graph_new_node(d->g, op, d->ext->origin);
    for (int i = 0; i < count; i++) node_add_input(d->g, n, ins[i]);
    return n;
}

static Value *finish(Dec *d, Node *n) { return n ? graph_finish(d->g, n) : NULL; }

Value *pass_dc_unary(Dec *d, OpId op, Value *x) { return finish(d, new_node(d, op, 1, &x)); }

Value *pass_dc_binary(Dec *d, OpId op, Value *a, Value *b) { return finish(d, new_node(d, op, 2, (Value *[]){a, b})); }

Value *pass_dc_cast(Dec *d, Value *x, DType dt) {
    if (!x || x->dtype == dt) return x;
    Node *n = new_node(d, OP_CAST, 1, &x);
    if (n) node_set_dtype(d->g, n, "to", dt);
    return finish(d, n);
}

Value *pass_dc_reshape(Dec *d, Value *x, int rank, const Dim *shape) {
    if (!x) return NULL;
    bool stat = (x->flags & VF_CONST) && x->data;
    int64_t dims[WN_MAX_RANK];
    for (int i = 0; stat && i < rank; i++) {
        stat = dim_is_static(shape[i]);
        dims[i] = shape[i].v;
    }
    if (stat) { /* same bytes, new shape: no node (the element counts are checked by the caller) */
        Value *v = graph_add_const(d->g, x->name, x->dtype, rank, dims, x->data, x->nbytes);
        if (v && value_max_elements(v) == value_max_elements(x)) return v;
        pass_dc_fail(d, "internal: reshape of %s changes its size", value_display_name(x));
        return NULL;
    }
    Node *n = new_node(d, OP_RESHAPE, 1, &x);
    if (n) node_set_dims(d->g, n, "newShape", rank, shape);
    return finish(d, n);
}

Value *pass_dc_transpose(Dec *d, Value *x, int rank, const int64_t *perm) {
    Node *n = new_node(d, OP_TRANSPOSE, 1, &x);
    if (n) node_set_ints(d->g, n, "permutation", rank, perm);
    return finish(d, n);
}

Value *pass_dc_slice_last(Dec *d, Value *x, int64_t start, int64_t size) {
    return x ? pass_dc_slice(d, x, x->rank - 1, start, size) : NULL;
}

Value *pass_dc_concat(Dec *d, int count, Value *const *xs, int axis) {
    if (count == 1) return xs[0];
    Node *n = new_node(d, OP_CONCAT, count, xs);
    if (n) node_set_uint(d->g, n, "axis", axis);
    return finish(d, n);
}

Value *pass_dc_dequantize(Dec *d, Value *q, Value *scale, Value *zero_point) {
    return finish(d, new_node(d, OP_DEQUANTIZE_LINEAR, 3, (Value *[]){q, scale, zero_point}));
}

Value *pass_dc_gather(Dec *d, Value *x, Value *indices, int axis) {
    Node *n = new_node(d, OP_GATHER, 2, (Value *[]){x, indices});
    if (n) node_set_uint(d->g, n, "axis", axis);
    return finish(d, n);
}

Value *pass_dc_reduce_mean(Dec *d, Value *x, int from_axis) {
    if (!x) return NULL;
    int64_t axes[WN_MAX_RANK];
    int count = 0;
    for (int i = from_axis; i < x->rank; i++) axes[count++] = i;
    Node *n = new_node(d, OP_REDUCE_MEAN, 1, &x);
    if (n) {
        node_set_ints(d->g, n, "axes", count, axes);
        node_set_bool(d->g, n, "keepDimensions", true);
    }
    return finish(d, n);
}

Value *pass_dc_expand(Dec *d, Value *x, int rank, const Dim *shape) {
    Node *n = new_node(d, OP_EXPAND, 1, &x);
    if (n) node_set_dims(d->g, n, "newShape", rank, shape);
    return finish(d, n);
}

Value *pass_dc_const(Dec *d, DType dt, int rank, const int64_t *shape, const void *data, uint64_t nbytes) {
    char base[96];
    snprintf(base, sizeof base, "%s_const", d->ext->id ? d->ext->id : op_name(d->ext->op));
    return graph_add_const_copy(d->g, base, dt, rank, shape, data, nbytes);
}

Value *pass_dc_scalar(Dec *d, DType dt, double x) {
    unsigned char buf[8] = {0};
    if (dtype_bits(dt) > 64 || dtype_bits(dt) < 8) {
        pass_dc_fail(d, "internal: no scalar of dtype %s", dtype_name(dt));
        return NULL;
    }
    Ten t = {.dt = dt, .rank = 0, .count = 1, .data = buf};
    ten_setf(&t, 0, x);
    return pass_dc_const(d, dt, 0, NULL, buf, dtype_storage_bytes(dt, 1));
}

/* Zeroed arena buffer for a constant of `count` elements of dt, or NULL with a diagnostic. */
static void *const_buffer(Dec *d, DType dt, int rank, const int64_t *shape, int64_t *count, uint64_t *bytes) {
    *count = 1;
    for (int i = 0; i < rank; i++)
        if (shape[i] < 1 || !checked_mul_i64(*count, shape[i], count) || *count > INT32_MAX) {
            pass_dc_fail(d, "constant shape too large");
            return NULL;
        }
    *bytes = dtype_storage_bytes(dt, (uint64_t)*count);
    return graph_alloc(d->g, (size_t)*bytes);
}

Value *pass_dc_unpack(Dec *d, const Value *packed, int64_t bits, DType dt, int rank, const int64_t *shape,
                 int64_t row_elems, int64_t row_stride) {
    if (!packed || !(packed->flags & VF_CONST) || !packed->data)
        return pass_dc_fail(d, "%s must be a constant", packed ? value_display_name(packed) : "operand"), NULL;
    int64_t count, per = 8 / bits;
    uint64_t bytes;
    void *buf = const_buffer(d, dt, rank, shape, &count, &bytes);
    if (!buf || row_elems < 1 || row_stride < row_elems) return NULL;
    int64_t last = (count - 1) / row_elems * row_stride + (count - 1) % row_elems;
    if ((uint64_t)(last / per) >= packed->nbytes) return pass_dc_fail(d, "%s is too small", value_display_name(packed)), NULL;
    const uint8_t *src = packed->data;
    Ten t = {.dt = dt, .rank = rank, .count = count, .data = buf};
    for (int64_t e = 0; e < count; e++) {
        int64_t i = e / row_elems * row_stride + e % row_elems;
        ten_seti(&t, e, (src[i / per] >> ((i % per) * bits)) & ((1 << bits) - 1));
    }
    return graph_add_const(d->g, "unpacked", dt, rank, shape, buf, bytes);
}

Value *pass_dc_filled(Dec *d, DType dt, int rank, const int64_t *shape, double value) {
    int64_t count;
    uint64_t bytes;
    void *buf = const_buffer(d, dt, rank, shape, &count, &bytes);
    if (!buf) return NULL;
    Ten t = {.dt = dt, .rank = rank, .count = count, .data = buf};
    for (int64_t e = 0; e < count; e++) ten_setf(&t, e, value);
    return graph_add_const(d->g, "filled", dt, rank, shape, buf, bytes);
}

Value *pass_dc_view(Dec *d, const Value *c, DType dt, int rank, const int64_t *shape) {
    int64_t count = 1;
    for (int i = 0; i < rank; i++)
        if (shape[i] < 1 || !checked_mul_i64(count, shape[i], &count)) return pass_dc_fail(d, "view too large"), NULL;
    if (!c || !(c->flags & VF_CONST) || !c->data || dtype_storage_bytes(dt, (uint64_t)count) > c->nbytes)
        return pass_dc_fail(d, "%s must be a constant of at least %lld elements", c ? value_display_name(c) : "operand",
                       (long long)count), NULL;
    return graph_add_const(d->g, c->name, dt, rank, shape, c->data, dtype_storage_bytes(dt, (uint64_t)count));
}

Value *pass_dc_slice(Dec *d, Value *x, int axis, int64_t start, int64_t size) {
    if (!x) return NULL;
    int64_t starts[WN_MAX_RANK] = {0};
    Dim sizes[WN_MAX_RANK];
    for (int i = 0; i < x->rank; i++) sizes[i] = x->shape[i];
    starts[axis] = start;
    sizes[axis] = dim_static(size);
    Node *n = new_node(d, OP_SLICE, 1, &x);
    if (n) {
        node_set_ints(d->g, n, "starts", x->rank, starts);
        node_set_dims(d->g, n, "sizes", x->rank, sizes);
    }
    return finish(d, n);
}
