/* kx_util.c - helpers shared by the kernel families (kx_util.h). */
#include "kx_util.h"

#include <stdlib.h>
#include <string.h>

#include "k_strided.h"

int kx_no_kernel(const Node *n, DType dt) {
    diag_error("no kernel for op %s (dtype %s) at node %s", op_name(n->op), dtype_name(dt), node_display_name(n));
    return -1;
}

int kx_operands(const Node *n, int required, int max_in, int n_out) {
    if (n->n_inputs < required || n->n_inputs > max_in || n->n_outputs != n_out) {
        diag_node_error(n, "expects %d to %d operands and %d outputs, has %d and %d", required, max_in, n_out,
                        n->n_inputs, n->n_outputs);
        return -1;
    }
    for (int i = 0; i < required; i++)
        if (!n->inputs[i]) {
            diag_node_error(n, "operand %d is missing", i);
            return -1;
        }
    return 0;
}

const Value *kx_opt(const Node *n, int k) { return k < n->n_inputs ? n->inputs[k] : NULL; }

int kx_float_only(const Node *n, DType dt) { return dt == DT_F32 || dt == DT_F16 ? 0 : kx_no_kernel(n, dt); }

int kx_bind(KernelCtx *kc, const Node *n, const KTensor *t, bool write, KBind *b, int32_t *base) {
    uint32_t bs = 0;
    int64_t last = t->numel ? (int64_t)t->numel - 1 : 0;
    if (kc_bind_window(kc, n, t, 0, last, write, b, &bs) < 0) return -1;
    *base = (int32_t)bs;
    return 0;
}

int64_t kx_window_rows(KernelCtx *kc, const Node *n, const KTensor *t, int rank, const int64_t *shape,
                       const int64_t *stride) {
    int64_t span = 1; /* elements covered by one row of dim 0 */
    for (int d = 1; d < rank; d++) span += (shape[d] - 1) * (stride[d] < 0 ? -stride[d] : stride[d]);
    int64_t maxe = (int64_t)kc_max_binding_elems(kc, t->dtype);
    if (span > maxe) {
        diag_node_error(n, "tensor %s (%llu bytes): one slice of %lld elements exceeds the device's maxStorageBufferRange "
                        "(%llu bytes); no split of this op fits",
                        value_display_name(t->value), (unsigned long long)dtype_storage_bytes(t->dtype, t->numel),
                        (long long)span, (unsigned long long)kc_device(kc)->max_storage_buffer_range);
        return -1;
    }
    int64_t s0 = rank > 0 ? (stride[0] < 0 ? -stride[0] : stride[0]) : 0;
    int64_t rows = rank > 0 ? shape[0] : 1;
    if (s0 > 0 && (maxe - span) / s0 + 1 < rows) rows = (maxe - span) / s0 + 1;
    return rows < 1 ? 1 : rows;
}

KTensor kx_rows_view(const KTensor *t, uint64_t r0, uint64_t rows, uint64_t row_elems) {
    KTensor v = *t;
    v.offset += dtype_storage_bytes(t->dtype, r0 * row_elems);
    bool dim0 = t->rank >= 1 && t->shape[0] >= 0 && (uint64_t)t->shape[0] * row_elems == t->numel;
    if (!dim0) v.rank = 2, v.shape[1] = (int64_t)row_elems;
    v.shape[0] = (int64_t)rows;
    v.numel = rows * row_elems;
    return v;
}

int kx_bind_packed4(KernelCtx *kc, const Node *n, const KTensor *t, bool write, KBind *b) {
    const WnrtDeviceInfo *di = kc_device(kc);
    uint64_t align = di->min_storage_offset_alignment ? di->min_storage_offset_alignment : 16;
    uint64_t bytes = dtype_storage_bytes(t->dtype, t->numel);
    uint64_t range = (bytes + 3) & ~(uint64_t)3;
    if (t->offset % align) {
        diag_node_error(n, "internal: 4-bit tensor %s is not at an aligned offset", value_display_name(t->value));
        return -1;
    }
    if (range > di->max_storage_buffer_range) {
        diag_node_error(n, "tensor %s needs a binding of %llu bytes, more than the device's maxStorageBufferRange",
                        value_display_name(t->value), (unsigned long long)range);
        return -1;
    }
    b->buffer = t->buffer;
    b->offset = t->offset;
    b->range = range ? range : 4;
    b->write = write;
    return 0;
}

DType kx_size_class(DType dt) {
    switch (dtype_bits(dt)) {
    case 8: return DT_U8;
    case 16: return DT_F16;
    case 32: return DT_U32;
    case 64: return DT_U64;
    default: return DT_INVALID;
    }
}

int kx_view4(const int64_t *shape, const char *layout, const char *logical, int64_t *dim, int64_t *stride) {
    int64_t st[4];
    if (strlen(layout) != 4) return -1;
    kshape_strides(4, shape, st);
    for (int k = 0; k < 4; k++) {
        const char *p = strchr(layout, logical[k]);
        if (!p) return -1;
        dim[k] = shape[p - layout];
        stride[k] = st[p - layout];
    }
    return 0;
}

int kx_copy(KernelCtx *kc, const Node *n, const KTensor *src, const KTensor *dst) {
    DType c = kx_size_class(dst->dtype);
    int sh = kc_find_shader(kc, n, "copy", c, c);
    if (sh < 0) return -1;
    StridedOp op = {.rank = dst->rank, .n_ops = 2};
    for (int d = 0; d < op.rank; d++) op.shape[d] = dst->shape[d];
    kstrided_operand_dense(&op, 0, src);
    kstrided_operand_dense(&op, 1, dst);
    uint32_t spec[1] = {KX_WG};
    return kstrided_run(kc, n, sh, spec, 1, &op);
}

int kx_copy_range(KernelCtx *kc, const Node *n, const KTensor *src, int64_t src_off, const KTensor *dst, int64_t dst_off,
                  int64_t count) {
    DType c = kx_size_class(dst->dtype);
    int sh = kc_find_shader(kc, n, "copy", c, c);
    if (sh < 0) return -1;
    if (count <= 0) return 0;
    if (src_off < 0 || dst_off < 0 || (uint64_t)(src_off + count) > src->numel || (uint64_t)(dst_off + count) > dst->numel) {
        diag_node_error(n, "internal: copy range outside its tensors");
        return -1;
    }
    StridedOp op = {.rank = 1, .n_ops = 2, .shape = {count}};
    op.t[0] = src;
    op.t[1] = dst;
    op.stride[0][0] = op.stride[1][0] = 1;
    op.start[0] = src_off;
    op.start[1] = dst_off;
    uint32_t spec[1] = {KX_WG};
    return kstrided_run(kc, n, sh, spec, 1, &op);
}

int kx_ints(const Node *n, const char *key, int64_t *v, int max, int want) {
    const int64_t *p;
    int c = node_ints(n, key, &p);
    if (c < 0) return -1;
    if (c > max || (want >= 0 && c != want)) {
        diag_node_error(n, "option %s has %d values, %d expected", key, c, want >= 0 ? want : max);
        return -2;
    }
    memcpy(v, p, sizeof *v * (size_t)c);
    return c;
}

int kx_one_in_one_out(const Node *n) {
    if (n->n_inputs < 1 || !n->inputs[0] || n->n_outputs != 1) {
        diag_node_error(n, "expects one operand and one output");
        return -1;
    }
    return 0;
}

typedef struct {
    uint32_t rows, A, inner;
    int32_t base_in, base_out;
} AxisPush;

int kx_axis_of(const Node *n, int rank, int *axis) {
    int64_t a = node_int(n, "axis", -1);
    if (a < 0 || a >= rank) {
        diag_node_error(n, "axis %lld out of range for rank %d", (long long)a, rank);
        return -1;
    }
    *axis = (int)a;
    return 0;
}

/* Rows split over windows of the outer dims so that x and y each fit one binding. */
int kx_axis_check(KernelCtx *kc, const Node *n, const char *shader) {
    int axis;
    if (kx_one_in_one_out(n) < 0 || kx_axis_of(n, n->inputs[0]->rank, &axis) < 0) return -1;
    return kcheck_shader(kc, n, shader, n->inputs[0]->dtype, n->outputs[0]->dtype);
}

int kx_axis_record(KernelCtx *kc, const Node *n, const KTensor *x, const KTensor *y, int sh, const uint32_t *spec,
                   int n_spec) {
    int axis;
    if (kx_axis_of(n, x->rank, &axis) < 0) return -1;
    if (x->numel > UINT32_MAX) {
        diag_node_error(n, "tensor %s has too many elements (%llu)", value_display_name(x->value), (unsigned long long)x->numel);
        return -1;
    }
    AxisPush pc = {.A = (uint32_t)x->shape[axis], .inner = 1};
    int64_t outer = 1;
    for (int d = 0; d < axis; d++) outer *= x->shape[d];
    for (int d = axis + 1; d < x->rank; d++) pc.inner *= (uint32_t)x->shape[d];
    if (x->numel == 0) return 0;
    int64_t slice = (int64_t)pc.A * pc.inner, yslice = (int64_t)(y->numel / (uint64_t)outer);
    int64_t xv[2] = {outer, slice}, xs[2] = {slice, 1}, yv[2] = {outer, yslice}, ys[2] = {yslice, 1};
    int64_t rx = kx_window_rows(kc, n, x, 2, xv, xs), ry = kx_window_rows(kc, n, y, 2, yv, ys);
    if (rx < 0 || ry < 0) return -1;
    int64_t rows = rx < ry ? rx : ry;
    for (int64_t o0 = 0; o0 < outer; o0 += rows) {
        int64_t o1 = o0 + rows < outer ? o0 + rows : outer;
        KBind b[2];
        uint32_t bi, bo;
        if (kc_bind_window(kc, n, x, o0 * slice, o1 * slice - 1, false, &b[0], &bi) < 0 ||
            kc_bind_window(kc, n, y, o0 * yslice, o1 * yslice - 1, true, &b[1], &bo) < 0)
            return -1;
        pc.base_in = (int32_t)bi, pc.base_out = (int32_t)bo;
        pc.rows = (uint32_t)((o1 - o0) * pc.inner);
        if (kc_dispatch_1d(kc, n, sh, spec, n_spec, &pc, sizeof pc, b, 2, pc.rows) < 0) return -1;
    }
    return 0;
}
