/* k_fused.c - kernel family `fused` (op family fused): the fusion-only normalized projections qkvProjection
 * and gatedMlp (lib/core/fused_ops.h), float32/float16 activations, f32 accumulation.
 *  - matmulNBits weights (bits > 0), decode (up to KMV_NORM_MAX_M rows, unpadded 4/8-bit rows,
 *    uint8 or no zero points): the row mat-vec with the norm prologue (k_matvec.h,
 *    shaders/matvec_rows_norm.comp), one dispatch for every split and the sum.  Otherwise
 *    shaders/ext_norm_proj.comp, per-row RMS of input (+ skip (+ skipBias)) recomputed in each
 *    workgroup, normalized activations fed straight into the in-register dequantizing mat-vec,
 *    bias, split outputs (one dispatch per split) or act(gate) * up (`activation`, a flag constant); with outputSum a pre-pass
 *    writes the sum, which the projection then reads as its input.  From FUSED_TILE_MIN_M
 *    activation rows (prefill): the norm and the matmulNBits GEMM per split (gatedMlp: one GEMM
 *    with act(gate) * up in its epilogue) as separate dispatches (k_fused_prefill.c); with WEBNNC_FUSED_PREFILL=tile (or too little
 *    scratch storage) shaders/norm_proj_tile.glsl (the int4 tile core, normalizing as it stages
 *    activations), one dispatch for every split (after the sum pre-pass).
 *  - float weights (bits 0: W [k, n] of the activation dtype): shaders/ext_fused_matvec.comp (a
 *    column mat-vec, up to FF_MATVEC_MAX_M activation rows) or ext_fused_tiled.comp (tiled GEMM),
 *    both normalizing in the workgroup (ext_fused.glsl); the sum output is written by the first
 *    split's dispatch from the values it reads anyway (no pre-pass). */
#include <string.h>

#include "core.h"
#include "k_ext_nbits.h"
#include "k_ext_util.h"
#include "k_fused_prefill.h"

#define FUSED_WG 128
#define FUSED_MT 4
#define FUSED_TILE_MIN_M 17 /* activation rows from which the tiled prefill kernel runs */

/* FUSED_TILE_MIN_M, or WEBNNC_FUSED_TILE_MIN_M = 2..65536 (tuning sweeps). */
static int64_t tile_min_m(void) { return wnrt_env_long("WEBNNC_FUSED_TILE_MIN_M", 2, 65536, FUSED_TILE_MIN_M); }
#define FUSED_TILE 64       /* its output tile (shaders/nbits_tile.glsl) */

typedef struct {
    uint32_t M, K, kBlocks, block, row_words, zp_row, rows, row0, out_cols, half_n;
    float eps;
    uint32_t base_x, base_skip, base_b2, base_scale, base_w, base_s, base_z, base_y;
    uint32_t base_bias, base_y1, base_y2, split1, split2;
} FusedPush;
_Static_assert(sizeof(FusedPush) <= K_PUSH_MAX, "fused projection push constants");

enum { F_SKIP = 1, F_SKIP_BIAS = 2, F_GATED = 4, F_SUM_ONLY = 8, F_ACT_SHIFT = 4 }; /* norm_proj_io.glsl FLAGS */
#define FUSED_BINDS 12 /* norm_proj_io.glsl */

static int fused_splits(const Node *n, int64_t n_total, int64_t *splits);

static int nbits_fused_check(KernelCtx *kc, const Node *n) {
    NBitsGeom geo;
    const Value *x = kx_opt(n, FP_INPUT), *w = kx_opt(n, FP_WEIGHT);
    if (!x || !w || !kx_opt(n, FP_NORM_SCALE) || ext_float(n, x) < 0) return -1;
    if (w->dtype != DT_U8 || !kx_opt(n, FP_SCALES)) return kx_no_kernel(n, w->dtype);
    if (nbits_geometry(n, &geo) < 0) return -1;
    const Value *zp = kx_opt(n, FP_ZERO_POINTS);
    if (zp && zp->dtype != DT_U8 && zp->dtype != x->dtype) return kx_no_kernel(n, zp->dtype);
    if (kcheck_shader(kc, n, "ext_norm_proj_tiled", x->dtype, x->dtype) < 0 || kmatvec_norm_check(kc, n, x->dtype) < 0)
        return -1;
    int64_t splits[FP_MAX_SPLITS];
    int n_splits = fused_splits(n, geo.n, splits);
    if (n_splits < 0) return -1;
    /* the composed prefill only where the node's rows can reach the prefill form (its scratch) */
    if (value_max_elements(x) / (uint64_t)geo.k >= (uint64_t)tile_min_m() &&
        ext_fused_prefill_check(kc, n, &geo, splits, n_splits, (uint64_t)tile_min_m()) < 0)
        return -1;
    return kcheck_shader(kc, n, "ext_norm_proj", x->dtype, x->dtype);
}

typedef struct {
    FusedPush pc;
    KBind b[FUSED_BINDS];
    uint32_t flags, bits, zp_mode, has_bias;
} FusedRun;

/* One dispatch over `groups` workgroups folded into x/y (flat_group() in the shaders), z = gz. */
static int grid_dispatch(KernelCtx *kc, const Node *n, int sh, const uint32_t *spec, int n_spec, const void *pc,
                         uint32_t pc_size, const KBind *b, int n_binds, uint64_t groups, uint64_t gz) {
    const WnrtDeviceInfo *d = kc_device(kc);
    uint64_t gmax = d->max_workgroup_count[0] < 65535 ? d->max_workgroup_count[0] : 65535;
    uint64_t gx = groups < gmax ? groups : gmax, gy = (groups + gx - 1) / gx;
    if (groups == 0) return 0;
    if (gy > d->max_workgroup_count[1] || gz > d->max_workgroup_count[2]) {
        diag_node_error(n, "fused projection needs too many workgroups");
        return -1;
    }
    return kc_dispatch(kc, n, sh, spec, n_spec, pc, pc_size, b, n_binds, (uint32_t)gx, (uint32_t)gy, (uint32_t)gz);
}

/* Output columns per workgroup of shaders/ext_norm_proj.comp: 8 weight rows (gated: 4 gate + 4 up),
 * so that the RMS each workgroup recomputes and its reduction are shared by as many rows as its
 * accumulators hold. */
static uint32_t norm_proj_rows(const FusedRun *r) { return r->flags & F_GATED ? 4 : 8; }

/* Activation rows per workgroup: up to FUSED_MT, no more than there are (decode: 1). */
static uint32_t norm_proj_mt(const FusedRun *r) { return r->pc.M < FUSED_MT ? r->pc.M : FUSED_MT; }

static int dispatch(KernelCtx *kc, const Node *n, int sh, FusedRun *r, uint64_t groups) {
    uint32_t mt = norm_proj_mt(r);
    uint32_t spec[8] = {FUSED_WG, r->bits, r->zp_mode, r->has_bias, norm_proj_rows(r), mt, ext_sg_reduce(kc), r->flags};
    return grid_dispatch(kc, n, sh, spec, 8, &r->pc, sizeof r->pc, r->b, FUSED_BINDS, groups,
                         r->flags & F_SUM_ONLY ? 1 : (r->pc.M + mt - 1) / mt);
}

/* The prefill kernel (shaders/norm_proj_tile.glsl): 64 x 64 output tiles, x = column tiles, y = row tiles. */
static int dispatch_tiled(KernelCtx *kc, const Node *n, int sh, bool coop, FusedRun *r) {
    const WnrtDeviceInfo *d = kc_device(kc);
    uint32_t spec[8] = {coop ? 128 : 256, r->bits, r->zp_mode, r->has_bias, 0, 0, 0, r->flags};
    uint64_t gx = (r->pc.rows + FUSED_TILE - 1) / FUSED_TILE, gy = (r->pc.M + FUSED_TILE - 1) / FUSED_TILE;
    if (gx == 0) return 0;
    if (gx > d->max_workgroup_count[0] || gy > d->max_workgroup_count[1]) {
        diag_node_error(n, "fused projection needs too many workgroups");
        return -1;
    }
    return kc_dispatch(kc, n, sh, spec, 8, &r->pc, sizeof r->pc, r->b, FUSED_BINDS, (uint32_t)gx, (uint32_t)gy, 1);
}

/* Output column counts: qkvProjection's splits (1..FP_MAX_SPLITS, adding up to n), gatedMlp's n / 2.
 * Returns the number of splits, or -1. */
static int fused_splits(const Node *n, int64_t n_total, int64_t *splits) {
    if (n->op == OP_GATED_MLP) {
        splits[0] = n_total / 2;
        return 1;
    }
    const int64_t *sp;
    int count = node_ints(n, "splits", &sp);
    if (count < 1 || count > FP_MAX_SPLITS) {
        diag_node_error(n, "splits must have 1 to %d entries", FP_MAX_SPLITS);
        return -1;
    }
    int64_t total = 0;
    for (int i = 0; i < count; i++) {
        if (sp[i] < 0 || sp[i] > n_total - total) {
            diag_node_error(n, "splits do not add up to n %lld", (long long)n_total);
            return -1;
        }
        splits[i] = sp[i];
        total += sp[i];
    }
    if (total != n_total) {
        diag_node_error(n, "splits do not add up to n %lld", (long long)n_total);
        return -1;
    }
    return count;
}

/* Decode: the row mat-vec with the norm prologue and the split / gated epilogue (k_matvec.h,
 * shaders/matvec_rows_norm.comp), one dispatch, where it takes the operands.  `folded`: the input
 * already holds x + skip (+ skipBias) (plan_residual.c), so the skip operands are not read.  1:
 * recorded, 0: it does not apply, -1: error. */
static int rows_record(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *in, const KTensor *out,
                       const int64_t *splits, int n_splits, bool folded) {
    const Value *zp = kx_opt(n, FP_ZERO_POINTS);
    bool gated = n->op == OP_GATED_MLP, sum = node_bool(n, "outputSum", false);
    KMatvecRows p;
    if (!ext_nbits_rows_layout(geo, zp != NULL, zp ? zp->dtype : DT_U8, &p)) return 0;
    KMatvecNorm q = {.skip = !folded && kx_opt(n, FP_SKIP) ? &in[FP_SKIP] : NULL,
                     .skip_bias = !folded && kx_opt(n, FP_SKIP_BIAS) ? &in[FP_SKIP_BIAS] : NULL,
                     .sum = sum ? &out[gated ? 1 : n_splits] : NULL,
                     .norm_scale = &in[FP_NORM_SCALE],
                     .eps = (float)fused_epsilon(n),
                     .gated = gated,
                     .activation = ext_fused_gate_act(n),
                     .n_out = gated ? 1 : n_splits};
    for (int i = 0; i < q.n_out; i++) {
        q.y[i] = &out[i];
        q.cols[i] = gated ? geo->n / 2 : splits[i];
    }
    if (!kmatvec_norm_fits(kc, &p, &q, &in[FP_INPUT], &in[FP_WEIGHT])) return 0;
    return kmatvec_norm_record(kc, n, &p, &q, &in[FP_INPUT], &in[FP_WEIGHT], &in[FP_SCALES],
                               zp ? &in[FP_ZERO_POINTS] : NULL, kx_opt(n, FP_BIAS) ? &in[FP_BIAS] : NULL) < 0 ? -1 : 1;
}

/* Prefill: the tile kernel (shaders/norm_proj_tile.glsl), one dispatch over every output column
 * of every split. */
static int tiled_record(KernelCtx *kc, const Node *n, FusedRun *r, DType dt, const KTensor *out, const int64_t *splits,
                        int n_splits) {
    bool coop = ext_coop(kc, dt);
    int sh = kc_find_shader(kc, n, coop ? "ext_norm_proj_coop" : "ext_norm_proj_tiled", dt, dt);
    if (sh < 0) return -1;
    FusedPush *pc = &r->pc;
    uint32_t *base[FP_MAX_SPLITS] = {&pc->base_y, &pc->base_y1, &pc->base_y2}, start[FP_MAX_SPLITS];
    static const int slot[FP_MAX_SPLITS] = {7, 9, 10};
    uint64_t total = 0;
    for (int i = 0; i < n_splits; i++) {
        if (out[i].numel != (uint64_t)pc->M * (uint64_t)splits[i] || ext_bind(kc, n, &out[i], true, &r->b[slot[i]], base[i]) < 0) {
            diag_node_error(n, "output %d does not match its split", i);
            return -1;
        }
        start[i] = (uint32_t)total;
        total += (uint64_t)splits[i];
    }
    pc->row0 = 0;
    pc->rows = pc->out_cols = (uint32_t)total;
    pc->split1 = n_splits > 1 ? start[1] : (uint32_t)total;
    pc->split2 = n_splits > 2 ? start[2] : (uint32_t)total;
    return dispatch_tiled(kc, n, sh, coop, r);
}

/* The quantized projection; `folded` as for rows_record (the sum output is then the input). */
static int nbits_fused_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out, bool folded) {
    NBitsGeom geo;
    if (nbits_geometry(n, &geo) < 0) return -1;
    const KTensor *x = &in[FP_INPUT];
    int sh = kc_find_shader(kc, n, "ext_norm_proj", x->dtype, x->dtype);
    if (sh < 0) return -1;
    bool gated = n->op == OP_GATED_MLP, skip = !folded && kx_opt(n, FP_SKIP), sum = node_bool(n, "outputSum", false);
    const Value *zp = kx_opt(n, FP_ZERO_POINTS);
    bool bias = kx_opt(n, FP_BIAS), zp_u8 = zp && zp->dtype == DT_U8;
    int64_t splits[FP_MAX_SPLITS];
    int n_splits = fused_splits(n, geo.n, splits);
    if (n_splits < 0) return -1;
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
    int rows_done = rows_record(kc, n, &geo, in, out, splits, n_splits, folded);
    if (rows_done == 0 && !folded && M >= (uint64_t)tile_min_m())
        rows_done = ext_fused_prefill_record(kc, n, &geo, in, out, splits, n_splits);
    if (rows_done != 0) return rows_done < 0 ? -1 : 0;
    FusedRun r;
    memset(&r, 0, sizeof r);
    FusedPush *pc = &r.pc;
    pc->M = (uint32_t)M, pc->K = (uint32_t)K, pc->kBlocks = (uint32_t)geo.k_blocks, pc->block = (uint32_t)geo.block;
    pc->row_words = (uint32_t)(row_bytes / 4), pc->zp_row = (uint32_t)zp_row, pc->half_n = (uint32_t)(geo.n / 2);
    pc->eps = (float)fused_epsilon(n);
    r.bits = (uint32_t)geo.bits;
    r.zp_mode = zp ? (zp_u8 ? 1u : 2u) : 0u;
    uint32_t bytes;
    KBind *b = r.b;
    if (ext_bind(kc, n, x, false, &b[0], &pc->base_x) < 0 ||
        ext_bind(kc, n, &in[FP_NORM_SCALE], false, &b[3], &pc->base_scale) < 0 ||
        ext_bind_words(kc, n, &in[FP_WEIGHT], &b[4], &pc->base_w) < 0 ||
        ext_bind(kc, n, &in[FP_SCALES], false, &b[5], &pc->base_s) < 0)
        return -1;
    for (int i = 1; i < FUSED_BINDS; i++) /* absent operands: never read or written */
        if (i != 3 && i != 4 && i != 5) b[i] = b[0];
    if (zp_u8) {
        if (ext_bind_bytes(kc, n, &in[FP_ZERO_POINTS], &b[6], &bytes) < 0) return -1;
        pc->base_z = bytes * 8 / (uint32_t)geo.bits;
    } else if (zp && ext_bind(kc, n, &in[FP_ZERO_POINTS], false, &b[6], &pc->base_z) < 0) {
        return -1;
    }
    if (skip) { /* without one, the sum pre-pass below copies x */
        r.flags = F_SKIP;
        if (ext_bind(kc, n, &in[FP_SKIP], false, &b[1], &pc->base_skip) < 0) return -1;
        if (kx_opt(n, FP_SKIP_BIAS)) {
            r.flags |= F_SKIP_BIAS;
            if (ext_bind(kc, n, &in[FP_SKIP_BIAS], false, &b[2], &pc->base_b2) < 0) return -1;
        }
    }
    if (bias) {
        r.has_bias = 1;
        if (ext_bind(kc, n, &in[FP_BIAS], false, &b[11], &pc->base_bias) < 0) return -1;
    }
    if (sum) { /* pre-pass: sum = x + skip (+ skipBias), then normalize the sum */
        uint32_t keep = r.flags;
        r.flags |= F_SUM_ONLY;
        if (ext_bind(kc, n, &out[sum_out], true, &b[7], &pc->base_y) < 0 || dispatch(kc, n, sh, &r, M) < 0) return -1;
        r.flags = keep & ~(uint32_t)(F_SKIP | F_SKIP_BIAS);
        b[7].write = false;
        b[0] = b[7];
        pc->base_x = pc->base_y;
    }
    if (gated) r.flags |= F_GATED | ext_fused_gate_act(n) << F_ACT_SHIFT;
    if (M >= (uint64_t)tile_min_m()) return tiled_record(kc, n, &r, x->dtype, out, splits, n_splits);
    uint32_t rows = norm_proj_rows(&r);
    uint64_t col = 0;
    for (int i = 0; i < n_splits; i++) {
        pc->row0 = (uint32_t)col;
        pc->rows = pc->out_cols = (uint32_t)splits[i];
        if (out[i].numel != M * (uint64_t)splits[i] || ext_bind(kc, n, &out[i], true, &b[7], &pc->base_y) < 0) {
            diag_node_error(n, "output %d does not match its split", i);
            return -1;
        }
        if (dispatch(kc, n, sh, &r, (pc->rows + rows - 1) / rows) < 0) return -1;
        col += (uint64_t)splits[i];
    }
    return 0;
}


/* ---- float weights (bits 0): W [k, n] of the activation dtype --------------------------------- */

#define FF_WG 256          /* both float shaders (ext_fused_tiled.comp: 16 x 16 invocations) */
#define FF_COLS 64         /* output columns per workgroup (matvec: 16 x 4; tiled: BN) */
#define FF_MT 4            /* matvec: activation rows per workgroup */
#define FF_MATVEC_MAX_M 16 /* activation rows up to which the mat-vec runs */
#define FF_TILE_M 64       /* tiled: rows per workgroup (BM) */

typedef struct {
    uint32_t M, K, N, col0, cols, half_n;
    float eps;
    uint32_t base_x, base_skip, base_sb, base_scale, base_w, base_bias, base_y, base_sum;
} FloatPush;
_Static_assert(sizeof(FloatPush) <= K_PUSH_MAX, "float projection push constants");

enum { FF_SKIP = 1, FF_SKIP_BIAS = 2, FF_GATED = 4, FF_BIAS = 8, FF_SUM = 16, FF_ACT_SHIFT = 5 }; /* ext_fused.glsl FLAGS */

static int float_check(KernelCtx *kc, const Node *n, const Value *x) {
    static const int same_dtype[] = {FP_SKIP, FP_SKIP_BIAS, FP_NORM_SCALE, FP_WEIGHT, FP_BIAS};
    for (size_t i = 0; i < sizeof same_dtype / sizeof same_dtype[0]; i++) {
        const Value *v = kx_opt(n, same_dtype[i]);
        if (v && v->dtype != x->dtype) return kx_no_kernel(n, v->dtype);
    }
    if (kx_opt(n, FP_SCALES) || kx_opt(n, FP_ZERO_POINTS)) {
        diag_node_error(n, "float weights (bits 0) take no scales or zero points");
        return -1;
    }
    if (kc_device(kc)->max_workgroup_invocations < FF_WG) return kx_no_kernel(n, x->dtype);
    if (kcheck_shader(kc, n, "ext_fused_matvec", x->dtype, x->dtype) < 0) return -1;
    return kcheck_shader(kc, n, "ext_fused_tiled", x->dtype, x->dtype);
}

/* Operand sizes of the float path against k, n and the splits; 0 or -1. */
static int float_sizes(const Node *n, const KTensor *in, const KTensor *out, uint64_t K, uint64_t N, const int64_t *splits,
                       int n_splits, uint64_t *M) {
    const KTensor *x = &in[FP_INPUT];
    bool sum = node_bool(n, "outputSum", false);
    int sum_out = n->op == OP_GATED_MLP ? 1 : n_splits;
    if (K == 0 || N == 0 || K > INT32_MAX || N > INT32_MAX || x->numel % K || in[FP_NORM_SCALE].numel != K ||
        (kx_opt(n, FP_SKIP) && in[FP_SKIP].numel != x->numel) || (kx_opt(n, FP_SKIP_BIAS) && in[FP_SKIP_BIAS].numel != K) ||
        in[FP_WEIGHT].numel != K * N || (kx_opt(n, FP_BIAS) && in[FP_BIAS].numel != N) ||
        (sum && out[sum_out].numel != x->numel) || (n->op == OP_GATED_MLP && N % 2)) {
        diag_node_error(n, "operand sizes do not match the fused projection (k %llu, n %llu)", (unsigned long long)K,
                        (unsigned long long)N);
        return -1;
    }
    *M = x->numel / K;
    for (int i = 0; i < n_splits; i++)
        if (out[i].numel != *M * (uint64_t)splits[i]) {
            diag_node_error(n, "output %d does not match its split", i);
            return -1;
        }
    return ext_fits(n, x->numel, "input") < 0 || ext_fits(n, K * N, "weight") < 0 ? -1 : 0;
}

/* Binds the operands (absent ones: the input again, never read) and sets the flags; b[6] (output)
 * is bound per split. */
static int float_bind(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out, int sum_out, KBind *b,
                      FloatPush *pc, uint32_t *flags) {
    static const struct { int slot, bind, flag; } opt[] = {
        {FP_SKIP, 1, FF_SKIP}, {FP_SKIP_BIAS, 2, FF_SKIP_BIAS}, {FP_BIAS, 5, FF_BIAS}};
    uint32_t *base[] = {&pc->base_skip, &pc->base_sb, &pc->base_bias};
    if (ext_bind(kc, n, &in[FP_INPUT], false, &b[0], &pc->base_x) < 0 ||
        ext_bind(kc, n, &in[FP_NORM_SCALE], false, &b[3], &pc->base_scale) < 0 ||
        ext_bind(kc, n, &in[FP_WEIGHT], false, &b[4], &pc->base_w) < 0)
        return -1;
    b[1] = b[2] = b[5] = b[6] = b[7] = b[0];
    *flags = n->op == OP_GATED_MLP ? FF_GATED | ext_fused_gate_act(n) << FF_ACT_SHIFT : 0;
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
        if (!kx_opt(n, opt[i].slot)) continue;
        *flags |= (uint32_t)opt[i].flag;
        if (ext_bind(kc, n, &in[opt[i].slot], false, &b[opt[i].bind], base[i]) < 0) return -1;
    }
    return sum_out >= 0 ? ext_bind(kc, n, &out[sum_out], true, &b[7], &pc->base_sum) : 0;
}

static int float_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    uint64_t K = (uint64_t)node_int(n, "k", 0), N = (uint64_t)node_int(n, "n", 0), M;
    int64_t splits[FP_MAX_SPLITS];
    int n_splits = fused_splits(n, (int64_t)N, splits);
    if (n_splits < 0 || float_sizes(n, in, out, K, N, splits, n_splits, &M) < 0) return -1;
    if (M == 0) return 0;
    bool gated = n->op == OP_GATED_MLP, matvec = M <= FF_MATVEC_MAX_M;
    DType dt = in[FP_INPUT].dtype;
    int sh = kc_find_shader(kc, n, matvec ? "ext_fused_matvec" : "ext_fused_tiled", dt, dt);
    if (sh < 0) return -1;
    FloatPush pc;
    memset(&pc, 0, sizeof pc);
    pc.M = (uint32_t)M, pc.K = (uint32_t)K, pc.N = (uint32_t)N, pc.half_n = gated ? (uint32_t)(N / 2) : 0;
    pc.eps = (float)fused_epsilon(n);
    KBind b[8];
    uint32_t flags;
    int sum_out = node_bool(n, "outputSum", false) ? (gated ? 1 : n_splits) : -1;
    if (float_bind(kc, n, in, out, sum_out, b, &pc, &flags) < 0) return -1;
    KBind sum_bind = b[7];
    /* 4-wide weight loads when every weight offset the shader forms is a multiple of 4 */
    bool vec = matvec && N % 4 == 0 && pc.half_n % 4 == 0 && pc.base_w % 4 == 0;
    for (int i = 0; i < n_splits; i++) vec = vec && splits[i] % 4 == 0 && splits[i] > 0;
    uint32_t mt = M < FF_MT ? (uint32_t)M : FF_MT;
    const WnrtDeviceInfo *d = kc_device(kc);
    uint64_t col = 0;
    for (int i = 0; i < n_splits; i++) {
        pc.col0 = (uint32_t)col;
        pc.cols = (uint32_t)splits[i];
        col += (uint64_t)splits[i];
        if (splits[i] == 0) continue;
        if (ext_bind(kc, n, &out[i], true, &b[6], &pc.base_y) < 0) return -1;
        bool write_sum = sum_out >= 0; /* the first dispatch writes the sum */
        b[7] = write_sum ? sum_bind : b[0];
        sum_out = -1;
        uint32_t spec[5] = {FF_WG, flags | (write_sum ? FF_SUM : 0u), mt, vec, ext_sg_reduce(kc)};
        uint64_t groups = (uint64_t)(splits[i] + FF_COLS - 1) / FF_COLS;
        if (matvec) {
            if (grid_dispatch(kc, n, sh, spec, 5, &pc, sizeof pc, b, 8, groups, (M + mt - 1) / mt) < 0) return -1;
            continue;
        }
        uint64_t gy = (M + FF_TILE_M - 1) / FF_TILE_M;
        if (groups > d->max_workgroup_count[0] || gy > d->max_workgroup_count[1]) {
            diag_node_error(n, "fused projection needs too many workgroups");
            return -1;
        }
        if (kc_dispatch(kc, n, sh, spec, 2, &pc, sizeof pc, b, 8, (uint32_t)groups, (uint32_t)gy, 1) < 0) return -1;
    }
    return 0;
}

/* ---- the family ------------------------------------------------------------------------------ */

static int fused_check(KernelCtx *kc, const Node *n) {
    const Value *x = kx_opt(n, FP_INPUT), *w = kx_opt(n, FP_WEIGHT);
    if (!x || !w || !kx_opt(n, FP_NORM_SCALE) || ext_float(n, x) < 0) return -1;
    return node_int(n, "bits", 0) == 0 ? float_check(kc, n, x) : nbits_fused_check(kc, n);
}

static int fused_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    return node_int(n, "bits", 0) == 0 ? float_record(kc, n, in, out) : nbits_fused_record(kc, n, in, out, false);
}

const KernelFamily kfam_fused = {fused_check, fused_record, 0};

/* plan_residual.c's rewrite of a quantized projection whose producer adds the skip (+ skipBias)
 * to the input where the residual folds (ext_residual_folds: the decode rows); elsewhere the node
 * as it is. */
static int folded_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    NBitsGeom geo;
    if (nbits_geometry(n, &geo) < 0) return -1;
    return nbits_fused_record(kc, n, in, out, ext_residual_folds(in[FP_INPUT].numel / (uint64_t)geo.k));
}

const KernelFamily kfam_fused_folded = {nbits_fused_check, folded_record, 0};
