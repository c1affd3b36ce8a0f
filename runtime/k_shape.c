/* k_shape.c - data-movement kernel families (op family shape): transpose, expand, slice (with strides), reverse,
 * tile, concat and split as strided copies (copy.comp through k_strided.c, variants by element
 * size) and pad (pad.comp: constant / edge / reflection).  Tensors beyond maxStorageBufferRange:
 * pad splits over windows of output rows (k_strided.c splits the copies). */
#include <string.h>

#include "k_strided.h"
#include "kx_util.h"

#define WG 256

static DType bits_class(DType dt) {
    switch (dtype_bits(dt)) {
    case 8: return DT_U8;
    case 16: return DT_F16;
    case 64: return DT_U64;
    default: return DT_U32;
    }
}

static int copy_shader(KernelCtx *kc, const Node *n, DType dt) {
    if (dtype_bits(dt) < 8) {
        diag_error("no kernel for op %s (dtype %s) at node %s", op_name(n->op), dtype_name(dt), node_display_name(n));
        return -1;
    }
    return kc_find_shader(kc, n, "copy", bits_class(dt), bits_class(dt));
}

static int copy_check(KernelCtx *kc, const Node *n) {
    if (n->n_inputs < 1 || !n->inputs[0] || n->n_outputs < 1) {
        diag_node_error(n, "missing operand");
        return -1;
    }
    for (int i = 0; i < n->n_inputs; i++)
        if (!n->inputs[i] || n->inputs[i]->dtype != n->outputs[0]->dtype) {
            diag_node_error(n, "operands must share one dtype");
            return -1;
        }
    return copy_shader(kc, n, n->inputs[0]->dtype) < 0 ? -1 : 0;
}

static int run_copy(KernelCtx *kc, const Node *n, StridedOp *op) {
    int sh = copy_shader(kc, n, op->t[0]->dtype);
    uint32_t spec[1] = {WG};
    return sh < 0 ? -1 : kstrided_run(kc, n, sh, spec, 1, op);
}

/* Iteration over the output shape, output dense. */
static void over_output(StridedOp *op, const KTensor *in, const KTensor *out) {
    memset(op, 0, sizeof *op);
    op->rank = out->rank;
    memcpy(op->shape, out->shape, sizeof op->shape);
    op->n_ops = 2;
    op->t[0] = in;
    kstrided_operand_dense(op, 1, out);
}

static int transpose_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    StridedOp op;
    over_output(&op, &in[0], &out[0]);
    int64_t st[WN_MAX_RANK];
    kshape_strides(in[0].rank, in[0].shape, st);
    const int64_t *perm;
    int np = node_ints(n, "permutation", &perm);
    for (int d = 0; d < out[0].rank; d++) {
        int64_t p = np < 0 ? out[0].rank - 1 - d : (d < np ? perm[d] : -1);
        if (p < 0 || p >= in[0].rank || in[0].shape[p] != out[0].shape[d]) {
            diag_node_error(n, "bad permutation");
            return -1;
        }
        op.stride[0][d] = st[p];
    }
    return run_copy(kc, n, &op);
}

static int expand_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    StridedOp op;
    over_output(&op, &in[0], &out[0]);
    kstrided_operand(&op, 0, &in[0]);
    return run_copy(kc, n, &op);
}

static int slice_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    StridedOp op;
    over_output(&op, &in[0], &out[0]);
    int64_t st[WN_MAX_RANK];
    kshape_strides(in[0].rank, in[0].shape, st);
    const int64_t *starts, *steps;
    int ns = node_ints(n, "starts", &starts), nst = node_ints(n, "strides", &steps);
    if (ns != in[0].rank || (nst >= 0 && nst != in[0].rank)) {
        diag_node_error(n, "starts/strides must have one entry per dimension");
        return -1;
    }
    for (int d = 0; d < in[0].rank; d++) {
        int64_t step = nst < 0 ? 1 : steps[d];
        if (step < 1 || starts[d] < 0 || starts[d] >= in[0].shape[d] || starts[d] + (out[0].shape[d] - 1) * step >= in[0].shape[d]) {
            diag_node_error(n, "slice of dimension %d is out of range for size %lld", d, (long long)in[0].shape[d]);
            return -1;
        }
        op.stride[0][d] = st[d] * step;
        op.start[0] += starts[d] * st[d];
    }
    return run_copy(kc, n, &op);
}

static int reverse_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    StridedOp op;
    over_output(&op, &in[0], &out[0]);
    kshape_strides(in[0].rank, in[0].shape, op.stride[0]);
    const int64_t *axes;
    int na = node_ints(n, "axes", &axes);
    bool rev[WN_MAX_RANK];
    for (int d = 0; d < in[0].rank; d++) rev[d] = na < 0;
    for (int i = 0; i < na; i++) {
        if (axes[i] < 0 || axes[i] >= in[0].rank) {
            diag_node_error(n, "axis %lld out of range", (long long)axes[i]);
            return -1;
        }
        rev[axes[i]] = true;
    }
    for (int d = 0; d < in[0].rank; d++)
        if (rev[d]) {
            op.start[0] += (in[0].shape[d] - 1) * op.stride[0][d];
            op.stride[0][d] = -op.stride[0][d];
        }
    return run_copy(kc, n, &op);
}

static int tile_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    const int64_t *reps;
    int nr = node_ints(n, "repetitions", &reps);
    if (nr != in[0].rank) {
        diag_node_error(n, "repetitions must have one entry per dimension");
        return -1;
    }
    int64_t ist[WN_MAX_RANK], ost[WN_MAX_RANK];
    kshape_strides(in[0].rank, in[0].shape, ist);
    kshape_strides(out[0].rank, out[0].shape, ost);
    StridedOp op;
    memset(&op, 0, sizeof op);
    op.n_ops = 2;
    op.t[0] = &in[0];
    op.t[1] = &out[0];
    for (int d = 0; d < in[0].rank; d++) {
        if (reps[d] > 1) {
            if (op.rank >= WN_MAX_RANK) {
                diag_node_error(n, "tile repeats too many dimensions");
                return -1;
            }
            op.shape[op.rank] = reps[d];
            op.stride[0][op.rank] = 0;
            op.stride[1][op.rank++] = in[0].shape[d] * ost[d];
        }
        if (op.rank >= WN_MAX_RANK) {
            diag_node_error(n, "tile repeats too many dimensions");
            return -1;
        }
        op.shape[op.rank] = in[0].shape[d];
        op.stride[0][op.rank] = ist[d];
        op.stride[1][op.rank++] = ost[d];
    }
    return run_copy(kc, n, &op);
}

static int concat_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int axis = (int)node_int(n, "axis", 0);
    if (axis < 0 || axis >= out[0].rank) {
        diag_node_error(n, "axis %d out of range", axis);
        return -1;
    }
    int64_t ost[WN_MAX_RANK];
    kshape_strides(out[0].rank, out[0].shape, ost);
    int64_t at = 0;
    for (int k = 0; k < n->n_inputs; k++) {
        StridedOp op;
        memset(&op, 0, sizeof op);
        op.rank = in[k].rank;
        memcpy(op.shape, in[k].shape, sizeof op.shape);
        op.n_ops = 2;
        kstrided_operand_dense(&op, 0, &in[k]);
        op.t[1] = &out[0];
        memcpy(op.stride[1], ost, sizeof ost);
        op.start[1] = at * ost[axis];
        at += in[k].shape[axis];
        if (at > out[0].shape[axis]) {
            diag_node_error(n, "concat inputs exceed the output");
            return -1;
        }
        if (run_copy(kc, n, &op) < 0) return -1;
    }
    return 0;
}

static int split_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int axis = (int)node_int(n, "axis", 0);
    if (axis < 0 || axis >= in[0].rank) {
        diag_node_error(n, "axis %d out of range", axis);
        return -1;
    }
    int64_t ist[WN_MAX_RANK];
    kshape_strides(in[0].rank, in[0].shape, ist);
    int64_t at = 0;
    for (int k = 0; k < n->n_outputs; k++) {
        StridedOp op;
        over_output(&op, &in[0], &out[k]);
        memcpy(op.stride[0], ist, sizeof ist);
        op.start[0] = at * ist[axis];
        at += out[k].shape[axis];
        if (at > in[0].shape[axis]) {
            diag_node_error(n, "split outputs exceed the input");
            return -1;
        }
        if (run_copy(kc, n, &op) < 0) return -1;
    }
    return 0;
}

#define COPY_FAMILY(NAME) const KernelFamily kfam_##NAME = {copy_check, NAME##_record, 0};
COPY_FAMILY(transpose)
COPY_FAMILY(expand)
COPY_FAMILY(slice)
COPY_FAMILY(reverse)
COPY_FAMILY(tile)
COPY_FAMILY(concat)
COPY_FAMILY(split)

/* ---- pad ---------------------------------------------------------------------------------- */

typedef struct {
    uint32_t n, rank, mode;
    uint32_t shape[6], in_shape[6];
    int32_t begin[6];
    float value;
    int32_t base_in, base_out;
} PadPush;

static int pad_mode(const Node *n) {
    const char *m = node_str(n, "mode", "constant");
    return !strcmp(m, "constant") ? 0 : !strcmp(m, "edge") ? 1 : !strcmp(m, "reflection") ? 2 : -1;
}

static int pad_check(KernelCtx *kc, const Node *n) {
    if (copy_check(kc, n) < 0) return -1;
    if (pad_mode(n) < 0 || n->inputs[0]->rank > 6) {
        diag_node_error(n, "unsupported pad mode or rank");
        return -1;
    }
    return kcheck_shader(kc, n, "pad", n->inputs[0]->dtype, n->inputs[0]->dtype);
}

/* Input coordinate read for output coordinate o of a dim of input size n (pad.comp's mapping);
 * -1 for constant padding. */
static int64_t pad_source(int64_t o, int64_t begin, int64_t n, int mode) {
    int64_t c = o - begin;
    if (c >= 0 && c < n) return c;
    if (mode == 0) return -1;
    if (mode == 1 || n == 1) return c < 0 ? 0 : n - 1;
    int64_t period = 2 * (n - 1);
    c = (c < 0 ? -c : c) % period;
    return c >= n ? period - c : c;
}

/* Split over windows of output rows (dim 0); each window binds the input rows it reads. */
static int pad_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    const int64_t *beg;
    if (node_ints(n, "beginningPadding", &beg) != in[0].rank || in[0].rank < 1) {
        diag_node_error(n, "beginningPadding must have one entry per dimension");
        return -1;
    }
    if (out[0].numel > INT32_MAX || in[0].numel > INT32_MAX) {
        diag_node_error(n, "too many elements for the pad kernel (%llu)", (unsigned long long)out[0].numel);
        return -1;
    }
    PadPush pc;
    memset(&pc, 0, sizeof pc);
    pc.rank = (uint32_t)in[0].rank, pc.mode = (uint32_t)pad_mode(n);
    pc.value = (float)node_float(n, "value", 0.0);
    for (int d = 0; d < in[0].rank; d++) {
        pc.shape[d] = (uint32_t)out[0].shape[d];
        pc.in_shape[d] = (uint32_t)in[0].shape[d];
        pc.begin[d] = (int32_t)beg[d];
        if (pc.mode == 2 && (beg[d] >= in[0].shape[d] || out[0].shape[d] - in[0].shape[d] - beg[d] >= in[0].shape[d])) {
            diag_node_error(n, "reflection padding must be smaller than the dimension");
            return -1;
        }
    }
    if (out[0].numel == 0) return 0;
    int64_t ist[WN_MAX_RANK], ost[WN_MAX_RANK];
    kshape_strides(in[0].rank, in[0].shape, ist);
    kshape_strides(out[0].rank, out[0].shape, ost);
    int64_t rows = kx_window_rows(kc, n, &out[0], out[0].rank, out[0].shape, ost);
    int64_t irows = kx_window_rows(kc, n, &in[0], in[0].rank, in[0].shape, ist);
    if (rows < 0 || irows < 0) return -1;
    if (irows < rows) rows = irows; /* a window of output rows reads at most as many input rows */
    int sh = kc_find_shader(kc, n, "pad", in[0].dtype, in[0].dtype);
    if (sh < 0) return -1;
    uint32_t spec[1] = {WG};
    int64_t O = out[0].shape[0], I = in[0].shape[0];
    for (int64_t r0 = 0; r0 < O; r0 += rows) {
        int64_t r1 = r0 + rows < O ? r0 + rows : O, lo = I, hi = -1;
        for (int64_t r = r0; r < r1; r++) {
            int64_t c = pad_source(r, beg[0], I, (int)pc.mode);
            if (c >= 0 && c < lo) lo = c;
            if (c > hi) hi = c;
        }
        if (hi < lo) lo = hi = 0; /* only constant padding in this window: nothing read */
        KBind b[2];
        uint32_t bi, bo;
        if (kc_bind_window(kc, n, &in[0], lo * ist[0], (hi + 1) * ist[0] - 1, false, &b[0], &bi) < 0 ||
            kc_bind_window(kc, n, &out[0], r0 * ost[0], r1 * ost[0] - 1, true, &b[1], &bo) < 0)
            return -1;
        pc.base_in = (int32_t)((int64_t)bi - lo * ist[0]), pc.base_out = (int32_t)bo;
        pc.shape[0] = (uint32_t)(r1 - r0);
        pc.begin[0] = (int32_t)(beg[0] - r0);
        pc.n = (uint32_t)((r1 - r0) * ost[0]);
        if (kc_dispatch_1d(kc, n, sh, spec, 1, &pc, sizeof pc, b, 2, (pc.n + WG - 1) / WG) < 0) return -1;
    }
    return 0;
}

const KernelFamily kfam_pad = {pad_check, pad_record, 0};
