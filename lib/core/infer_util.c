/* infer_util.c - shared checks for shape inference: dtype sets, ranks, shapes, axes, integer
 * array and enum options, each reporting one precise diagnostic naming the node and operand. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "infer_internal.h"

const char *infer_shape_str(const Graph *g, int rank, const Dim *shape, char *buf, size_t len) {
    size_t o = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < rank && o < len; i++) {
        char d[96];
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", dim_format(g, shape[i], d, sizeof d));
    }
    if (o < len) snprintf(buf + o, len - o, "]");
    return buf;
}

/* "float32, float16 or int32" */
static const char *mask_str(DTypeMask m, char *buf, size_t len) {
    int total = 0, seen = 0;
    for (int t = 0; t < DT_COUNT; t++) total += (m >> t) & 1;
    size_t o = 0;
    buf[0] = 0;
    for (int t = 0; t < DT_COUNT && o < len; t++) {
        if (!((m >> t) & 1)) continue;
        const char *sep = seen == 0 ? "" : (seen == total - 1 ? " or " : ", ");
        o += (size_t)snprintf(buf + o, len - o, "%s%s", sep, dtype_name((DType)t));
        seen++;
    }
    return buf;
}

bool infer_check_dtype(const Node *n, int slot, DTypeMask allowed) {
    const Value *v = infer_in(n, slot);
    if (!v || (v->dtype >= 0 && v->dtype < DT_COUNT && ((allowed >> v->dtype) & 1))) return true;
    char m[256];
    diag_node_error(n, "operand %d (%s) has dtype %s, expected %s", slot, value_display_name(v),
                    dtype_name(v->dtype), mask_str(allowed, m, sizeof m));
    return false;
}

bool infer_check_same_dtype(const Node *n, int slot, int ref) {
    const Value *v = infer_in(n, slot), *r = infer_in(n, ref);
    if (!v || !r || v->dtype == r->dtype) return true;
    diag_node_error(n, "operand %d (%s) has dtype %s, expected %s (the dtype of operand %d)", slot,
                    value_display_name(v), dtype_name(v->dtype), dtype_name(r->dtype), ref);
    return false;
}

bool infer_check_rank(const Node *n, int slot, int lo, int hi) {
    const Value *v = infer_in(n, slot);
    if (!v || (v->rank >= lo && v->rank <= hi)) return true;
    if (lo == hi)
        diag_node_error(n, "operand %d (%s) has rank %d, expected %d", slot, value_display_name(v), v->rank, lo);
    else if (hi >= WN_MAX_RANK)
        diag_node_error(n, "operand %d (%s) has rank %d, expected at least %d", slot, value_display_name(v), v->rank, lo);
    else
        diag_node_error(n, "operand %d (%s) has rank %d, expected %d to %d", slot, value_display_name(v), v->rank, lo, hi);
    return false;
}

bool infer_check_shape(Graph *g, const Node *n, int slot, int rank, const Dim *shape) {
    const Value *v = infer_in(n, slot);
    if (!v) return true;
    bool ok = v->rank == rank;
    for (int i = 0; ok && i < rank; i++) ok = dim_equal(v->shape[i], shape[i]);
    if (ok) return true;
    char have[256], want[256];
    diag_node_error(n, "operand %d (%s) has shape %s, expected %s", slot, value_display_name(v),
                    infer_shape_str(g, v->rank, v->shape, have, sizeof have),
                    infer_shape_str(g, rank, shape, want, sizeof want));
    return false;
}

bool infer_check_vector(Graph *g, const Node *n, int slot, Dim len, int ref) {
    return infer_check_same_dtype(n, slot, ref) && infer_check_shape(g, n, slot, 1, &len);
}

void infer_shapes_error(const Graph *g, const Node *n, const char *lead, int ra, const Dim *a, const char *middle, int rb,
                        const Dim *b) {
    char sa[256], sb[256];
    diag_node_error(n, "%s %s %s %s", lead, infer_shape_str(g, ra, a, sa, sizeof sa), middle,
                    infer_shape_str(g, rb, b, sb, sizeof sb));
}

bool infer_check_axis(const Node *n, const char *what, int64_t axis, int rank) {
    if (axis >= 0 && axis < rank) return true;
    diag_node_error(n, "%s %" PRId64 " out of range for rank %d", what, axis, rank);
    return false;
}

int infer_read_axes(const Node *n, const char *key, int rank, bool all_by_default, bool *mask, int *order) {
    for (int i = 0; i < rank; i++) mask[i] = false;
    const int64_t *axes;
    int count = node_ints(n, key, &axes);
    if (count < 0) {
        if (!all_by_default) return 0;
        for (int i = 0; i < rank; i++) {
            mask[i] = true;
            if (order) order[i] = i;
        }
        return rank;
    }
    if (count > rank) {
        diag_node_error(n, "option '%s' has %d entries, more than the rank %d", key, count, rank);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (!infer_check_axis(n, "axis", axes[i], rank)) return -1;
        if (mask[axes[i]]) {
            diag_node_error(n, "option '%s' repeats axis %" PRId64, key, axes[i]);
            return -1;
        }
        mask[axes[i]] = true;
        if (order) order[i] = (int)axes[i];
    }
    return count;
}

bool infer_read_ints(const Node *n, const char *key, int count, int64_t min, int64_t def, int64_t *out) {
    const int64_t *v;
    int have = node_ints(n, key, &v);
    if (have < 0) {
        for (int i = 0; i < count; i++) out[i] = def;
        return true;
    }
    if (have != count) {
        diag_node_error(n, "option '%s' has %d entries, expected %d", key, have, count);
        return false;
    }
    for (int i = 0; i < count; i++) {
        if (v[i] < min || v[i] >= INFER_LIMIT) {
            diag_node_error(n, "option '%s'[%d] = %" PRId64 " is out of range (minimum %" PRId64 ")", key, i, v[i], min);
            return false;
        }
        out[i] = v[i];
    }
    return true;
}

int infer_read_enum(const Node *n, const char *key, const char *const *values) {
    const char *s = node_str(n, key, NULL);
    if (!s) return 0;
    for (int i = 0; values[i]; i++)
        if (strcmp(values[i], s) == 0) return i;
    char list[256];
    size_t o = 0;
    list[0] = 0;
    for (int i = 0; values[i] && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s\"%s\"", i ? ", " : "", values[i]);
    diag_node_error(n, "option '%s' is \"%s\", expected one of %s", key, s, list);
    return -1;
}

bool infer_need_static(const Node *n, Dim d, const char *what) {
    if (dim_is_static(d)) return true;
    diag_node_error(n, "dynamic dim not supported for %s %s", op_name(n->op), what);
    return false;
}

bool infer_unidirectional(int rf, const Dim *from, int rt, const Dim *to) {
    if (rf > rt) return false;
    for (int i = 0; i < rf; i++) {
        Dim f = from[i], t = to[rt - rf + i];
        if (!dim_equal(f, t) && !(dim_is_static(f) && f.v == 1)) return false;
    }
    return true;
}
