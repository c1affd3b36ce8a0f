/* k_ext_fused.c - kernel family `ext_fused`: the fusion-only normalized projections qkvProjection
 * and gatedMlp (lib/core/fused_ops.h) with matmulNBits weights, float32/float16, fully fused in
 * shaders/ext_norm_proj.comp: per-row RMS of input (+ skip (+ skipBias)) recomputed in each
 * workgroup, normalized activations fed straight into the in-register dequantizing mat-vec, bias,
 * split outputs (one dispatch per split) or silu(gate) * up.  With outputSum a pre-pass writes the
 * sum, which the projection then reads as its input.  Not handled (reported as no kernel): float
 * weights (bits 0), and skip without outputSum together with a projection bias (one binding short). */
#include <string.h>

#include "ext_ops.h"
#include "fused_ops.h"
#include "k_ext_util.h"

#define FUSED_WG 128
#define FUSED_MT 4

typedef struct {
    uint32_t M, K, kBlocks, block, row_words, zp_row, rows, row0, out_cols, half_n;
    float eps;
    uint32_t base_x, base_skip, base_b2, base_scale, base_w, base_s, base_z, base_y;
} FusedPush;
_Static_assert(sizeof(FusedPush) <= K_PUSH_MAX, "fused projection push constants");

enum { F_SKIP = 1, F_SKIP_BIAS = 2, F_GATED = 4, F_SUM_ONLY = 8 };

static int fused_check(KernelCtx *kc, const Node *n) {
    NBitsGeom geo;
    const Value *x = ext_opt(n, FP_INPUT), *w = ext_opt(n, FP_WEIGHT);
    if (!x || !w || !ext_opt(n, FP_NORM_SCALE) || ext_float(n, x) < 0) return -1;
    if (node_int(n, "bits", 0) == 0 || w->dtype != DT_U8 || !ext_opt(n, FP_SCALES)) return ext_no_kernel(n, w->dtype);
    if (nbits_geometry(n, &geo) < 0) return -1;
    bool sum = node_bool(n, "outputSum", false);
    if (ext_opt(n, FP_SKIP) && !sum && ext_opt(n, FP_BIAS)) return ext_no_kernel(n, x->dtype);
    const Value *zp = ext_opt(n, FP_ZERO_POINTS);
    if (zp && zp->dtype != DT_U8 && zp->dtype != x->dtype) return ext_no_kernel(n, zp->dtype);
    return kcheck_shader(kc, n, "ext_norm_proj", x->dtype, x->dtype);
}

typedef struct {
    FusedPush pc;
    KBind b[8];
    uint32_t flags, bits, zp_mode, has_bias;
} FusedRun;

static int dispatch(KernelCtx *kc, const Node *n, int sh, FusedRun *r, uint64_t groups, uint64_t gz) {
    const WnrtDeviceInfo *d = kc_device(kc);
    uint32_t rows = r->flags & F_GATED ? 2 : 4;
    uint32_t spec[8] = {FUSED_WG, r->bits, r->zp_mode, r->has_bias, rows, FUSED_MT, ext_sg_reduce(kc), r->flags};
    uint64_t gmax = d->max_workgroup_count[0] < 65535 ? d->max_workgroup_count[0] : 65535;
    uint64_t gx = groups < gmax ? groups : gmax, gy = (groups + gx - 1) / gx;
    if (groups == 0) return 0;
    if (gy > d->max_workgroup_count[1] || gz > d->max_workgroup_count[2]) {
        diag_node_error(n, "fused projection needs too many workgroups");
        return -1;
    }
    return kc_dispatch(kc, n, sh, spec, 8, &r->pc, sizeof r->pc, r->b, 8, (uint32_t)gx, (uint32_t)gy, (uint32_t)gz);
}

static int fused_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    NBitsGeom geo;
    if (nbits_geometry(n, &geo) < 0) return -1;
    const KTensor *x = &in[FP_INPUT];
    int sh = kc_find_shader(kc, n, "ext_norm_proj", x->dtype, x->dtype);
    if (sh < 0) return -1;
    bool gated = n->op == OP_GATED_MLP, skip = ext_opt(n, FP_SKIP), sum = node_bool(n, "outputSum", false);
    const Value *zp = ext_opt(n, FP_ZERO_POINTS);
    bool bias = ext_opt(n, FP_BIAS), zp_u8 = zp && zp->dtype == DT_U8;
    int64_t splits[FP_MAX_SPLITS] = {gated ? geo.n / 2 : geo.n};
    int n_splits = 1;
    if (!gated) {
        const int64_t *sp;
        n_splits = node_ints(n, "splits", &sp);
        if (n_splits < 1 || n_splits > FP_MAX_SPLITS) {
            diag_node_error(n, "splits must have 1 to %d entries", FP_MAX_SPLITS);
            return -1;
        }
        memcpy(splits, sp, sizeof splits[0] * (size_t)n_splits);
    }
    uint64_t K = (uint64_t)geo.k, M = x->numel / K, row_bytes = (uint64_t)(geo.k_blocks * geo.blob);
    uint64_t zp_row = zp_u8 ? (uint64_t)geo.zp_row_bytes * 8 / (uint64_t)geo.bits : (uint64_t)geo.k_blocks;
    int sum_out = gated ? 1 : n_splits;
    if (x->numel % K || in[FP_NORM_SCALE].numel != K || (skip && in[FP_SKIP].numel != x->numel) ||
        dtype_storage_bytes(in[FP_WEIGHT].dtype, in[FP_WEIGHT].numel) != (uint64_t)geo.n * row_bytes ||
        in[FP_SCALES].numel != (uint64_t)(geo.n * geo.k_blocks) || (bias && in[FP_BIAS].numel != (uint64_t)geo.n) ||
        (sum && out[sum_out].numel != x->numel) || (gated && geo.n % 2) || row_bytes % 4 ||
        ext_fits(n, x->numel, "input") < 0 || ext_fits(n, (uint64_t)geo.n * zp_row, "zero points") < 0) {
        diag_node_error(n, "operand sizes do not match the fused projection");
        return -1;
    }
    if (M == 0) return 0;
    FusedRun r;
    memset(&r, 0, sizeof r);
    FusedPush *pc = &r.pc;
    pc->M = (uint32_t)M, pc->K = (uint32_t)K, pc->kBlocks = (uint32_t)geo.k_blocks, pc->block = (uint32_t)geo.block;
    pc->row_words = (uint32_t)(row_bytes / 4), pc->zp_row = (uint32_t)zp_row, pc->half_n = (uint32_t)(geo.n / 2);
    pc->eps = (float)node_float(n, "epsilon", 1e-6);
    r.bits = (uint32_t)geo.bits;
    r.zp_mode = zp ? (zp_u8 ? 1u : 2u) : 0u;
    uint32_t bytes;
    KBind *b = r.b;
    if (ext_bind(kc, n, x, false, &b[0], &pc->base_x) < 0 ||
        ext_bind(kc, n, &in[FP_NORM_SCALE], false, &b[3], &pc->base_scale) < 0 ||
        ext_bind_words(kc, n, &in[FP_WEIGHT], &b[4], &pc->base_w) < 0 ||
        ext_bind(kc, n, &in[FP_SCALES], false, &b[5], &pc->base_s) < 0)
        return -1;
    b[1] = b[2] = b[6] = b[0]; /* absent operands: never read */
    if (zp_u8) {
        if (ext_bind_bytes(kc, n, &in[FP_ZERO_POINTS], &b[6], &bytes) < 0) return -1;
        pc->base_z = bytes * 8 / (uint32_t)geo.bits;
    } else if (zp && ext_bind(kc, n, &in[FP_ZERO_POINTS], false, &b[6], &pc->base_z) < 0) {
        return -1;
    }
    if (skip) {
        r.flags = F_SKIP;
        if (ext_bind(kc, n, &in[FP_SKIP], false, &b[1], &pc->base_skip) < 0) return -1;
        if (ext_opt(n, FP_SKIP_BIAS)) {
            r.flags |= F_SKIP_BIAS;
            if (ext_bind(kc, n, &in[FP_SKIP_BIAS], false, &b[2], &pc->base_b2) < 0) return -1;
        }
    }
    if (sum) { /* pre-pass: sum = x + skip (+ skipBias), then normalize the sum */
        uint32_t keep = r.flags;
        r.flags |= F_SUM_ONLY;
        if (ext_bind(kc, n, &out[sum_out], true, &b[7], &pc->base_y) < 0 || dispatch(kc, n, sh, &r, M, 1) < 0) return -1;
        r.flags = keep & ~(uint32_t)(F_SKIP | F_SKIP_BIAS);
        b[7].write = false;
        b[0] = b[7];
        pc->base_x = pc->base_y;
    }
    if (bias) {
        r.has_bias = 1;
        if (ext_bind(kc, n, &in[FP_BIAS], false, &b[2], &pc->base_b2) < 0) return -1;
    }
    if (gated) r.flags |= F_GATED;
    uint32_t rows = gated ? 2 : 4;
    uint64_t col = 0;
    for (int i = 0; i < n_splits; i++) {
        pc->row0 = (uint32_t)col;
        pc->rows = pc->out_cols = (uint32_t)splits[i];
        if (out[i].numel != M * (uint64_t)splits[i] || ext_bind(kc, n, &out[i], true, &b[7], &pc->base_y) < 0) {
            diag_node_error(n, "output %d does not match its split", i);
            return -1;
        }
        if (dispatch(kc, n, sh, &r, (pc->rows + rows - 1) / rows, (M + FUSED_MT - 1) / FUSED_MT) < 0) return -1;
        col += (uint64_t)splits[i];
    }
    return 0;
}

const KernelFamily kfam_ext_fused = {fused_check, fused_record, 0};
