/* k_ext_nbits.c - kernel family `ext_nbits`: matmulNBits (bits 2/4/8, any k with the last block
 * padded, uint8-packed or float zero points or none (2^(bits-1)), optional bias), float32/float16
 * activations, f32 accumulation.  Up to NB_ROWS_MAX_M activation rows with an unpadded 4/8-bit
 * layout: the row mat-vec of k_matvec.c (shaders/matvec_rows.glsl, the fast decode kernel;
 * WEBNNC_NBITS_GENERIC=1 turns it off).  Other few-row cases: shaders/ext_matmul_nbits.comp, a
 * mat-vec that dequantizes in registers; more rows (prefill): shaders/ext_matmul_nbits_tiled.comp,
 * a tiled GEMM dequantizing weight tiles into shared memory (the int4 tile core shaders/nbits_tile.glsl;
 * on NV cooperative matrices where the device has them (WEBNNC_COOPMAT=0: not): ext_matmul_nbits_coop.comp).  Weight rows are split over several
 * dispatches when the packed weights exceed one binding (maxStorageBufferRange).  gatedMlp's prefill
 * (k_fused_prefill.c) has a gated form of the GEMM, ext_nbits_record_gated: the [gate | up] product
 * with act(gate) * up in its epilogue (ext_matmul_nbits_gated_tiled.comp / _gated_coop.comp). */
#include "k_ext_nbits.h"
#include "k_oproj_fold.h"

#include <stdlib.h>
#include <string.h>

#include "k_ext_util.h"
#include "k_matvec.h"

#define NB_MATVEC_MAX_M 16 /* activation rows up to which the mat-vec path runs */
#define NB_ROWS_MAX_M 4    /* ... and the row mat-vec of k_matvec.c (it reads the weights once per row) */
#define NB_MT 4            /* activation rows per mat-vec workgroup */
#define NB_ROWS 4          /* ... and weight rows */
#define NB_TILE 64         /* GEMM tile (shaders/nbits_tile.glsl) */

typedef struct {
    uint32_t M, N, K, kBlocks, block, row_words, zp_row, rows, row0;
    uint32_t base_a, base_w, base_s, base_z, base_bias, base_y;
    uint32_t k_split, base_ws;
    uint32_t up_off; /* gated GEMM: up row n is weight row n + up_off */
} NbitsPush;

enum {
    SPEC_WG, SPEC_BITS, SPEC_ZP, SPEC_BIAS, SPEC_ROWS, SPEC_MT, SPEC_SG, SPEC_SLOTS, SPEC_TILE_BN, SPEC_SPLIT_K, SPEC_GATE_ACT,
    SPEC_COUNT
};

typedef struct { /* ext_nbits_splitk_sum.comp PARAMS_BLOCK */
    uint32_t M, N, slices, base_ws, base_bias, base_y;
} SplitSumPush;

/* Output columns of a portable GEMM tile (shaders/nbits_tile.glsl): 64, or 32 when the 64 x 64
 * tiles of this product are fewer than NB_NARROW_TILES (a narrow weight over a long K, like
 * down_proj: more, thinner workgroups keep more cores busy).  WEBNNC_NBITS_TILE_BN=32|64 forces it. */
#define NB_NARROW_TILES 256
static uint32_t tile_bn(uint64_t rows, uint64_t M, uint64_t slices) {
    const char *e = getenv("WEBNNC_NBITS_TILE_BN");
    if (e && (!strcmp(e, "32") || !strcmp(e, "64"))) return (uint32_t)atoi(e);
    return ((rows + NB_TILE - 1) / NB_TILE) * ((M + NB_TILE - 1) / NB_TILE) * slices < NB_NARROW_TILES ? 32 : 64;
}

/* Split-K of the prefill GEMM: a weight of fewer than NB_SPLIT_MAX_N rows (output columns) over
 * K >= NB_SPLIT_MIN_K has few tiles and long sums (down_proj: N 896, K 4864), so its k range is cut
 * into slices of about NB_SPLIT_K k (at most NB_SPLIT_MAX slices), summed into scratch storage and
 * added by ext_nbits_splitk_sum.comp.  Depends on N and K only, so one recording serves every
 * prompt length.  WEBNNC_NBITS_SPLITK=S forces S slices (1: off). */
#define NB_SPLIT_MAX_N 2048
#define NB_SPLIT_MIN_K 2048
#define NB_SPLIT_K 512
#define NB_SPLIT_MAX 8
static uint32_t split_slices(uint64_t N, uint64_t K, uint32_t *k_split) {
    uint64_t slices = N < NB_SPLIT_MAX_N && K >= NB_SPLIT_MIN_K ? K / NB_SPLIT_K : 1;
    if (slices > NB_SPLIT_MAX) slices = NB_SPLIT_MAX;
    slices = (uint64_t)wnrt_env_long("WEBNNC_NBITS_SPLITK", 1, 64, (long)slices);
    uint64_t step = (K + slices - 1) / slices;
    step = (step + 31) / 32 * 32; /* whole 32-k steps of the tile core */
    *k_split = (uint32_t)step;
    return (uint32_t)((K + step - 1) / step);
}

/* Scratch bytes of the partial sums: slices x M x N floats. */
static uint64_t split_bytes(uint64_t slices, uint64_t M, uint64_t N) { return slices * M * N * sizeof(float); }

uint64_t ext_nbits_scratch_need(const NBitsGeom *geo, uint64_t max_m) {
    uint32_t k_split, slices = split_slices((uint64_t)geo->n, (uint64_t)geo->k, &k_split);
    return slices < 2 || max_m <= NB_MATVEC_MAX_M ? 0 : split_bytes(slices, max_m, (uint64_t)geo->n);
}

/* At check time: reserves the scratch storage for the largest M (at most the runtime's limit; a
 * larger M then runs with fewer slices, split_fit). */
static void split_reserve(KernelCtx *kc, const Node *n, const NBitsGeom *geo) {
    uint64_t bytes = ext_nbits_scratch_need(geo, value_max_elements(n->inputs[0]) / (uint64_t)geo->k), limit = kc_scratch_limit(kc);
    if (bytes) kc_scratch_reserve(kc, bytes < limit ? bytes : limit);
}

/* At record time: the slices that fit the reserved scratch storage past `used` bytes for this M
 * (< 2: unsplit). */
static uint32_t split_fit(KernelCtx *kc, uint64_t used, uint64_t M, uint64_t N, uint64_t K, uint32_t *k_split) {
    uint32_t slices = split_slices(N, K, k_split);
    uint64_t reserved = kc_scratch_reserved(kc), fit = reserved > used ? (reserved - used) / split_bytes(1, M, N) : 0;
    if (slices < 2 || fit >= slices) return slices;
    if (fit < 2) return 1;
    uint32_t step = (uint32_t)(((K + fit - 1) / fit + 31) / 32 * 32);
    *k_split = step;
    return (uint32_t)((K + step - 1) / step);
}

/* The second step of a split product: y = sum of the slices (+ bias). */
static int split_sum(KernelCtx *kc, const Node *n, DType act, uint32_t slices, uint64_t M, uint64_t N, const KBind *ws,
                     uint32_t base_ws, const KBind *bias, uint32_t base_bias, const KBind *y, uint32_t base_y) {
    int sh = kc_find_shader(kc, n, "ext_nbits_splitk_sum", act, act);
    if (sh < 0) return -1;
    SplitSumPush pc = {(uint32_t)M, (uint32_t)N, slices, base_ws, base_bias, base_y};
    KBind b[3] = {*ws, bias ? *bias : *ws, *y};
    b[0].write = false;
    b[1].write = false;
    uint32_t spec[2] = {256, bias != NULL};
    return kc_dispatch_1d(kc, n, sh, spec, 2, &pc, sizeof pc, b, 3, (M * N + 255) / 256);
}

int ext_nbits_check(KernelCtx *kc, const Node *n, DType act, const Value *zp) {
    if (act != DT_F32 && act != DT_F16) return kx_no_kernel(n, act);
    if (zp && zp->dtype != DT_U8 && zp->dtype != act) return kx_no_kernel(n, zp->dtype);
    if (kcheck_shader(kc, n, "ext_matmul_nbits", act, act) < 0 || kcheck_shader(kc, n, "matvec_rows", act, act) < 0)
        return -1;
    return kcheck_shader(kc, n, "ext_matmul_nbits_tiled", act, act);
}

static int nbits_check(KernelCtx *kc, const Node *n) {
    NBitsGeom geo;
    if (n->n_inputs < 3 || n->n_outputs != 1 || !n->inputs[0] || !n->inputs[1] || !n->inputs[2] ||
        nbits_geometry(n, &geo) < 0)
        return -1;
    DType act = n->inputs[0]->dtype;
    if (n->inputs[1]->dtype != DT_U8) return kx_no_kernel(n, n->inputs[1]->dtype);
    if (n->inputs[2]->dtype != act) return kx_no_kernel(n, n->inputs[2]->dtype);
    if (kx_opt(n, 4) && n->inputs[4]->dtype != act) return kx_no_kernel(n, n->inputs[4]->dtype);
    if (ext_nbits_check(kc, n, act, kx_opt(n, 3)) < 0) return -1;
    split_reserve(kc, n, &geo);
    return kcheck_shader(kc, n, "ext_nbits_splitk_sum", act, act);
}

/* The row mat-vec's form of the layout (k_ext_nbits.h). */
bool ext_nbits_rows_layout(const NBitsGeom *geo, bool has_zp, DType zp_dtype, KMatvecRows *p) {
    bool zp_ok = !has_zp || (zp_dtype == DT_U8 && geo->zp_row_bytes * 8 == geo->k_blocks * geo->bits);
    if ((geo->bits != 4 && geo->bits != 8) || geo->k % geo->block || geo->k % 32 || !zp_ok ||
        wnrt_env_flag("WEBNNC_NBITS_GENERIC", false))
        return false;
    *p = (KMatvecRows){.bits = (int)geo->bits, .has_scale = true, .has_zp = has_zp, .N = geo->n, .K = geo->k,
                       .block_n = 1, .block_k = geo->block, .s_n = geo->k_blocks, .s_k = 1,
                       .zp_absent = 1 << (geo->bits - 1), .exact = true};
    return true;
}

/* ... for up to NB_ROWS_MAX_M activation rows, operands 16-byte aligned (vector loads). */
static bool rows_layout(const NBitsGeom *geo, uint64_t M, const KTensor *a, const KTensor *b, const KTensor *zp, KMatvecRows *p) {
    return M <= NB_ROWS_MAX_M && a->offset % 16 == 0 && b->offset % 16 == 0 && ext_nbits_rows_layout(geo, zp != NULL, zp ? zp->dtype : DT_U8, p);
}

/* One product's push constants and bindings: a, the weight window, scales, zero points, bias, y,
 * split-K partial sums. */
typedef struct {
    NbitsPush pc;
    KBind bd[7];
} NbitsRun;

/* Checks the operand sizes of a product of geo with out_cols output columns per activation row
 * (geo->n, or gated its half); *M = the activation rows.  0 or -1 (diagnostic). */
static int nbits_sizes(const Node *n, const NBitsGeom *geo, const KTensor *a, const KTensor *b, const KTensor *scales,
                       const KTensor *zp, const KTensor *bias, const KTensor *y, uint64_t out_cols, uint64_t *M) {
    uint64_t K = (uint64_t)geo->k, N = (uint64_t)geo->n, KB = (uint64_t)geo->k_blocks;
    uint64_t row_bytes = KB * (uint64_t)geo->blob;
    bool zp_u8 = zp && zp->dtype == DT_U8;
    uint64_t zp_row = zp_u8 ? (uint64_t)geo->zp_row_bytes * 8 / (uint64_t)geo->bits : KB;
    *M = a->numel / K;
    if (a->numel % K || y->numel != *M * out_cols || dtype_storage_bytes(b->dtype, b->numel) != N * row_bytes ||
        scales->numel != N * KB || (zp && dtype_storage_bytes(zp->dtype, zp->numel) * 8 < N * zp_row * (zp_u8 ? geo->bits : 1)) ||
        (zp && !zp_u8 && zp->numel != N * KB) || (bias && bias->numel != N) || row_bytes % 4) {
        diag_node_error(n, "operand sizes do not match k %llu, n %llu, %d bits, block %lld", (unsigned long long)K,
                        (unsigned long long)N, (int)geo->bits, (long long)geo->block);
        return -1;
    }
    if (ext_fits(n, a->numel, "activations") < 0 || ext_fits(n, y->numel, "output") < 0 ||
        ext_fits(n, N * zp_row, "zero points") < 0)
        return -1;
    return 0;
}

/* The push constants and bindings of everything but the weight window (nbits_dispatches binds it). */
static int nbits_bind(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *a, const KTensor *scales,
                      const KTensor *zp, const KTensor *bias, const KTensor *y, uint64_t M, uint64_t out_cols, NbitsRun *r) {
    uint64_t KB = (uint64_t)geo->k_blocks;
    bool zp_u8 = zp && zp->dtype == DT_U8;
    NbitsPush *pc = &r->pc;
    memset(r, 0, sizeof *r);
    pc->M = (uint32_t)M;
    pc->N = (uint32_t)out_cols;
    pc->K = (uint32_t)geo->k;
    pc->kBlocks = (uint32_t)KB;
    pc->block = (uint32_t)geo->block;
    pc->row_words = (uint32_t)(KB * (uint64_t)geo->blob / 4);
    pc->zp_row = (uint32_t)(zp_u8 ? (uint64_t)geo->zp_row_bytes * 8 / (uint64_t)geo->bits : KB);
    KBind *bd = r->bd;
    if (ext_bind(kc, n, a, false, &bd[0], &pc->base_a) < 0 || ext_bind(kc, n, scales, false, &bd[2], &pc->base_s) < 0 ||
        ext_bind(kc, n, y, true, &bd[5], &pc->base_y) < 0)
        return -1;
    bd[3] = bd[4] = bd[6] = bd[2]; /* absent zero points / bias: never read; no split: never written */
    if (zp_u8) {
        uint32_t bytes;
        if (ext_bind_bytes(kc, n, zp, &bd[3], &bytes) < 0) return -1;
        pc->base_z = bytes * 8 / (uint32_t)geo->bits;
    } else if (zp && ext_bind(kc, n, zp, false, &bd[3], &pc->base_z) < 0) {
        return -1;
    }
    return bias && ext_bind(kc, n, bias, false, &bd[4], &pc->base_bias) < 0 ? -1 : 0;
}

/* ext_nbits.glsl ZP_MODE: 0 absent, 1 uint8 packed, 2 float. */
static uint32_t zp_mode(const KTensor *zp) { return zp ? (zp->dtype == DT_U8 ? 1u : 2u) : 0u; }

/* Invocations of a GEMM workgroup (shaders/nbits_tile.glsl TILE_NT). */
static uint32_t gemm_wg(bool coop) { return coop ? 128 : 256; }

/* Weight rows of row_bytes that one binding holds (0: not one). */
static uint64_t binding_rows(const KernelCtx *kc, uint64_t row_bytes) {
    uint64_t elems = kc_max_binding_elems(kc, DT_U8);
    return elems > 256 ? (elems - 256) / row_bytes : 0;
}

/* The dispatches of a product over the output columns [0, r->pc.N), as many weight rows per
 * dispatch as one binding holds: each binds the packed weight rows of its columns up to the
 * column's row + up_off (gated: the up rows; 0 otherwise).  matvec: the mat-vec grid; else the
 * GEMM's, tiles of bn columns (0: tile_bn's choice) and `slices` k slices. */
static int nbits_dispatches(KernelCtx *kc, const Node *n, int sh, NbitsRun *r, uint32_t *spec, const KTensor *b,
                            uint64_t row_bytes, uint64_t up_off, bool matvec, uint32_t bn, uint32_t slices) {
    const WnrtDeviceInfo *d = kc_device(kc);
    NbitsPush *pc = &r->pc;
    uint64_t N = pc->N, M = pc->M, window = binding_rows(kc, row_bytes), max_rows = window > up_off ? window - up_off : 0;
    if (max_rows == 0) {
        diag_node_error(n, "a window of %llu weight rows of %llu bytes exceeds the device's storage-buffer range",
                        (unsigned long long)(up_off + 1), (unsigned long long)row_bytes);
        return -1;
    }
    if (max_rows > 4) max_rows &= ~(uint64_t)3; /* whole row groups of the mat-vec */
    for (uint64_t r0 = 0; r0 < N; r0 += max_rows) {
        uint64_t r1 = r0 + max_rows < N ? r0 + max_rows : N;
        KTensor w = *b;
        w.dtype = DT_U8;
        w.numel = dtype_storage_bytes(b->dtype, b->numel);
        if (kc_bind_window(kc, n, &w, (int64_t)(r0 * row_bytes), (int64_t)((r1 + up_off) * row_bytes) - 1, false, &r->bd[1],
                           &pc->base_w) < 0)
            return -1;
        if (pc->base_w % 4) {
            diag_node_error(n, "internal: packed weights are not 4-byte aligned");
            return -1;
        }
        pc->base_w /= 4;
        pc->row0 = (uint32_t)r0;
        pc->rows = (uint32_t)(r1 - r0);
        uint64_t gx, gy, gz;
        if (matvec) {
            uint64_t groups = (pc->rows + spec[SPEC_ROWS] - 1) / spec[SPEC_ROWS];
            uint64_t gmax = d->max_workgroup_count[0] < 65535 ? d->max_workgroup_count[0] : 65535;
            gx = groups < gmax ? groups : gmax, gy = (groups + gx - 1) / gx, gz = (M + NB_MT - 1) / NB_MT;
        } else {
            spec[SPEC_TILE_BN] = bn ? bn : tile_bn(pc->rows, M, slices);
            gx = (pc->rows + spec[SPEC_TILE_BN] - 1) / spec[SPEC_TILE_BN], gy = (M + NB_TILE - 1) / NB_TILE, gz = slices;
        }
        if (gx > d->max_workgroup_count[0] || gy > d->max_workgroup_count[1] || gz > d->max_workgroup_count[2]) {
            diag_node_error(n, "matmulNBits needs too many workgroups");
            return -1;
        }
        if (kc_dispatch(kc, n, sh, spec, SPEC_COUNT, pc, sizeof *pc, r->bd, 7, (uint32_t)gx, (uint32_t)gy, (uint32_t)gz) < 0)
            return -1;
    }
    return 0;
}

int ext_nbits_record(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *a, const KTensor *b,
                     const KTensor *scales, const KTensor *zp, const KTensor *bias, const KTensor *y, uint64_t scratch_used) {
    uint64_t M, K = (uint64_t)geo->k, N = (uint64_t)geo->n, row_bytes = (uint64_t)geo->k_blocks * (uint64_t)geo->blob;
    if (nbits_sizes(n, geo, a, b, scales, zp, bias, y, N, &M) < 0) return -1;
    if (M == 0) return 0;
    KMatvecRows rp;
    if (rows_layout(geo, M, a, b, zp, &rp)) return kmatvec_rows_record(kc, n, &rp, a, b, scales, zp, bias, NULL, y);
    bool matvec = M <= NB_MATVEC_MAX_M, coop = !matvec && ext_coop(kc, a->dtype);
    int sh = kc_find_shader(kc, n, matvec ? "ext_matmul_nbits" : coop ? "ext_matmul_nbits_coop" : "ext_matmul_nbits_tiled",
                            a->dtype, a->dtype);
    NbitsRun r;
    if (sh < 0 || nbits_bind(kc, n, geo, a, scales, zp, bias, y, M, N, &r) < 0) return -1;

    uint32_t wg = matvec ? ext_wg(kc) : gemm_wg(coop), sg = ext_sg_reduce(kc);
    if (!matvec && kc_device(kc)->max_workgroup_invocations < 256) return kx_no_kernel(n, a->dtype);
    uint32_t slots = sg ? (wg + 3) / 4 : wg;
    uint32_t slices = matvec ? 1 : split_fit(kc, scratch_used, M, N, K, &r.pc.k_split);
    r.pc.base_ws = (uint32_t)(scratch_used / sizeof(float));
    uint32_t spec[SPEC_COUNT] = {wg, (uint32_t)geo->bits, zp_mode(zp), bias != NULL, NB_ROWS, NB_MT, sg, slots, 64,
                                 slices > 1, 0};
    if (slices > 1 && kc_scratch_bind(kc, n, scratch_used + split_bytes(slices, M, N), &r.bd[6]) < 0) return -1;
    if (nbits_dispatches(kc, n, sh, &r, spec, b, row_bytes, 0, matvec, coop ? NB_TILE : 0, slices) < 0) return -1;
    return slices > 1 ? split_sum(kc, n, a->dtype, slices, M, N, &r.bd[6], r.pc.base_ws, bias ? &r.bd[4] : NULL,
                                  r.pc.base_bias, &r.bd[5], r.pc.base_y)
                      : 0;
}

uint64_t ext_nbits_gated_min_m(const KernelCtx *kc, const NBitsGeom *geo, DType act) {
    uint32_t k_split;
    uint64_t half = (uint64_t)geo->n / 2, row_bytes = (uint64_t)geo->k_blocks * (uint64_t)geo->blob;
    if ((act != DT_F32 && act != DT_F16) || geo->n % 2 || half == 0 || kc_device(kc)->max_workgroup_invocations < 256 ||
        split_slices((uint64_t)geo->n, (uint64_t)geo->k, &k_split) > 1 || binding_rows(kc, row_bytes) <= half)
        return UINT64_MAX;
    return NB_MATVEC_MAX_M + 1;
}

int ext_nbits_record_gated(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *a, const KTensor *b,
                           const KTensor *scales, const KTensor *zp, const KTensor *bias, const KTensor *y, uint32_t act) {
    uint64_t M, half = (uint64_t)geo->n / 2, row_bytes = (uint64_t)geo->k_blocks * (uint64_t)geo->blob;
    if (a->numel / (uint64_t)geo->k < ext_nbits_gated_min_m(kc, geo, a->dtype)) return 0;
    if (nbits_sizes(n, geo, a, b, scales, zp, bias, y, half, &M) < 0) return -1;
    bool coop = ext_coop(kc, a->dtype);
    int sh = kc_find_shader(kc, n, coop ? "ext_matmul_nbits_gated_coop" : "ext_matmul_nbits_gated_tiled", a->dtype, a->dtype);
    NbitsRun r;
    if (sh < 0 || nbits_bind(kc, n, geo, a, scales, zp, bias, y, M, half, &r) < 0) return -1;
    r.pc.up_off = (uint32_t)half;
    uint32_t spec[SPEC_COUNT] = {gemm_wg(coop), (uint32_t)geo->bits, zp_mode(zp), bias != NULL, NB_ROWS, NB_MT, 0, 0, 64,
                                 0, act};
    return nbits_dispatches(kc, n, sh, &r, spec, b, row_bytes, half, false, coop ? NB_TILE : 0, 1) < 0 ? -1 : 1;
}

/* Whether matmulNBits node n's weights have the row mat-vec's layout (*geo filled), whatever its
 * activations: what the pick-row and residual rewrites ask before they take the node. */
static bool node_rows_layout(const Node *n, NBitsGeom *geo) {
    KMatvecRows p;
    const Value *zp = kx_opt(n, 3);
    return nbits_geometry(n, geo) == 0 && ext_nbits_rows_layout(geo, zp != NULL, zp ? zp->dtype : DT_U8, &p);
}

bool ext_nbits_pick_row_ok(const Node *n, const Value *x) {
    NBitsGeom geo;
    return (x->dtype == DT_F16 || x->dtype == DT_F32) && node_rows_layout(n, &geo) &&
           dtype_storage_bytes(x->dtype, (uint64_t)geo.k) % 16 == 0;
}

/* The product of the one activation row that pick selects from x (plan_pick_row.c). */
static int record_picked_row(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KNbitsPickRow *pick,
                             const KTensor *in, const KTensor *out) {
    const KTensor *x = &in[0], *zp = kx_opt(n, 3) ? &in[3] : NULL, *bias = kx_opt(n, 4) ? &in[4] : NULL;
    int64_t S = x->rank >= 2 ? x->shape[x->rank - 2] : 0, row = pick->index < 0 ? pick->index + S : pick->index;
    if (row < 0 || row >= S) {
        diag_node_error(n, "row %lld of %lld activation rows out of range", (long long)pick->index, (long long)S);
        return -1;
    }
    KTensor one = *x; /* the picked row, for the size checks */
    one.numel = (uint64_t)geo->k;
    uint64_t M;
    KMatvecRows rp;
    if (nbits_sizes(n, geo, &one, &in[1], &in[2], zp, bias, &out[0], (uint64_t)geo->n, &M) < 0) return -1;
    if (x->numel != (uint64_t)S * (uint64_t)geo->k || !rows_layout(geo, 1, x, &in[1], zp, &rp)) {
        diag_node_error(n, "internal: the picked activation row cannot be read in place");
        return -1;
    }
    rp.x_row0 = (uint64_t)row;
    rp.x_rows = 1;
    return kmatvec_rows_record(kc, n, &rp, x, &in[1], &in[2], zp, bias, NULL, &out[0]);
}

static int nbits_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    NBitsGeom geo;
    if (nbits_geometry(n, &geo) < 0) return -1;
    const KNbitsPickRow *pick = kc_node_params(kc, n);
    if (pick) return record_picked_row(kc, n, &geo, pick, in, out);
    return ext_nbits_record(kc, n, &geo, &in[0], &in[1], &in[2], kx_opt(n, 3) ? &in[3] : NULL,
                            kx_opt(n, 4) ? &in[4] : NULL, &out[0], 0);
}

const KernelFamily kfam_ext_nbits = {nbits_check, nbits_record, 0};

/* ---- the residual epilogue (plan_residual.c) ------------------------------------------------ */

_Static_assert(EXT_RESIDUAL_MAX_M <= NB_ROWS_MAX_M && EXT_RESIDUAL_MAX_M <= KMV_NORM_MAX_M,
               "the residual folds only where both nodes run on the row mat-vec");

bool ext_nbits_residual_ok(const Node *n) {
    NBitsGeom geo;
    return node_rows_layout(n, &geo);
}

static int residual_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    NBitsGeom geo;
    if (nbits_geometry(n, &geo) < 0) return -1;
    const KTensor *zp = kx_opt(n, 3) ? &in[3] : NULL, *bias = kx_opt(n, 4) ? &in[4] : NULL;
    uint64_t M = in[0].numel / (uint64_t)geo.k;
    if (!ext_residual_folds(M)) return ext_nbits_record(kc, n, &geo, &in[0], &in[1], &in[2], zp, bias, &out[0], 0);
    KMatvecRows rp;
    if (!rows_layout(&geo, M, &in[0], &in[1], zp, &rp)) {
        diag_node_error(n, "internal: the skip sum of the projection after it cannot be added on the row mat-vec");
        return -1;
    }
    KMatvecResidual res = {&in[5], in[6].value ? &in[6] : NULL};
    return kmatvec_rows_record(kc, n, &rp, &in[0], &in[1], &in[2], zp, bias, &res, &out[0]);
}

const KernelFamily kfam_ext_nbits_residual = {nbits_check, residual_record, 0};

/* The output projection whose one-row product decode attention writes (k_oproj_fold.h). */
static int oproj_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    NBitsGeom geo;
    if (nbits_geometry(n, &geo) < 0) return -1;
    return in[0].numel == (uint64_t)geo.k ? 0 : residual_record(kc, n, in, out);
}

const KernelFamily kfam_ext_nbits_oproj = {nbits_check, oproj_record, 0};
