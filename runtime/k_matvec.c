/* k_matvec.c - the row-major mat-vec kernel (k_matvec.h, shaders/matvec_rows.glsl): parameter
 * checks, per-device work split (workgroup size, rows per workgroup), weight windows that keep
 * each binding within maxStorageBufferRange (rows split over several dispatches), and the
 * kernel family used by plan rewrites.  A helper shared by op families linalg, ext, fused. */
#include "k_matvec.h"
#include "kx_util.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t rows, units, row0, w_base, x_base, x_stride, y_base, y_stride, s_base, z_base;
    uint32_t block_n, block_k, s_n, s_k;
    uint32_t kshift; /* log2(block_k) for a power of two, else 32 */
    uint32_t b_base;
    uint32_t r_base, rb_base; /* the residual epilogue (KMatvecResidual) */
    /* the normalized projection (matvec_rows_norm.comp) only */
    float eps;
    uint32_t g_base, skip_base, sb_base, sum_base, half_n, split1, split2, y1_base, y2_base;
    /* the greedy pick (matvec_rows_pick.comp) only */
    uint32_t pick_slot, pick_pos, pick_flags, pick_ws;
} MatvecRowsPush;
_Static_assert(sizeof(MatvecRowsPush) <= K_PUSH_MAX, "mat-vec push constants");
#define KMV_SPEC 20 /* specialization constants of matvec_rows.glsl (0 .. RESIDUAL, then the fixed geometry) */

/* Workgroup size and rows per workgroup (bench/matvec_sweep.sh, 4096x4096, driver 580): float16
 * 64 x 4 rows (H200: 8.65 us), int4 32 x 2 rows (H100: float16-pair 4.09 us, 64 registers, 78.3%
 * of copy; exact 4.72 us) were best; CPU devices: 64 x 4.  Rows with fewer units than invocations
 * get a smaller workgroup (down to one subgroup, at least 32).  Tall weights whose row groups
 * would exceed MV_MAX_GROUPS take 4 rows per workgroup: the vocabulary head (N 151936, K 896, int4)
 * ran at 92 us with 76k workgroups of 2 rows and at 53 us with 4 (H200; the other projections
 * were slower with 4).  Short int4 weights (N < MV_FEW_ROWS) take 1 row per row group: twice the
 * row groups to hide the load latency.  Qwen2-0.5B decode, H100, us per call with 2 rows -> 1:
 * o_proj (896 x 896) 7.17 -> 6.82, down_proj (896 x 4864) 9.78 -> 8.69, qkv (1152 x 896) 8.43 ->
 * 8.12; 4096 x 4096 went the other way (4.40 -> 5.47). */
#define MV_MAX_GROUPS 16384
#define MV_FEW_ROWS 2048
/* Long rows (over MV_LONG_UNITS units per invocation) get twice the invocations, up to
 * MV_LONG_WG: the Qwen2-0.5B down_proj (K 4864, 152 int4 units per row) took 262 us per decode
 * step with 32 invocations, 234 with 64 and 226 with 128 (H100, 24 layers; the limits were then 4
 * units and 64 invocations); on the H200 (twenty-first session, `generate` after 128 / 512 tokens,
 * the same call, two rounds) 64 invocations 1335 / 1210 tok/s, 128 1350 / 1221, 256 1337 / 1209
 * (down_proj 8.2 -> 7.8 us with 128).  Rows of 65-128 units now get 64 invocations instead of 32
 * (not measured: no projection of the benchmark decoders has them, and the 4096 x 4096 benchmark
 * runs on subgroup row groups, MV_LONG_CLUSTER_ROWS).  Where that leaves some invocations two units
 * (more units than invocations, at most twice as many), the workgroup is rounded up to whole
 * subgroups that give every invocation at most one, so that no invocation waits for a second round
 * of loads: Qwen2-0.5B's down_proj 160 invocations instead of 128, SmolLM-135M's (48 units) 64
 * instead of 32.  H200, `generate` of 128 tokens, the same binary alternating (two calls, five runs
 * each), tok/s after 128 / 512 prompt tokens: Qwen2-0.5B 1417-1430 / 1293-1300 -> 1431-1448 /
 * 1304-1313, the same ids; SmolLM-135M 1410-1412 / 1264-1265 -> 1444-1447 / 1289-1290 (its ids after
 * 128 tokens differ from some step on: down_proj's float32 sums are grouped differently).  GPUs
 * only (CPU devices keep their own split); WEBNNC_MATVEC_ROUND_UP=0: the power of two. */
#define MV_LONG_UNITS 2
#define MV_LONG_WG 128
/* Row groups of TPR invocations (matvec_rows.glsl CLUSTER), several per workgroup, reduced with
 * subgroup shuffles instead of shared memory: on GPUs with subgroup shuffles, quantized weights
 *  - tall ones (over MV_MAX_GROUPS row groups): MV_TALL_TPR invocations per row group of
 *    MV_TALL_ROWS rows;
 *  - rows of at most a subgroup's units: one subgroup per row.
 * MV_CLUSTER_WG invocations per workgroup.  Qwen2-0.5B int4 decode, H100, us per call before ->
 * after: vocabulary head (151936 x 896) 53.0 -> 41.7; o_proj (896 x 896) 6.82 -> 6.54; qkv
 * (1152 x 896) 8.13 -> 7.65; gatedMlp (2 x 4864 x 896) 12.93 -> 11.80.  Fewer invocations per row
 * were slower for the short projections (4: o_proj 9.1, gatedMlp 15.4), and so was one subgroup
 * per row for down_proj (K 4864: 8.68 -> 9.08), which keeps the workgroup reduction. */
#define MV_TALL_TPR 4
#define MV_CLUSTER_WG 64
/* Tall weights on row groups take MV_TALL_ROWS rows per group: one activation load serves two
 * rows.  The vocabulary head (151936 x 896 int4), H200, us per call after 512 tokens (timestamped,
 * the same binary with WEBNNC_MATVEC_ROWS=1 alternating, three runs each): 2 rows 42.1-42.3, 1 row
 * 42.5-42.7.  (A sweep that set every mat-vec of the step at once had shown 40.1 for 2 x 4, 41.2
 * for 3 x 4, 50.0 for 4 x 4, 44.3 for 2 x 2, 58.2 for 1 x 8 and 69.3 for 1 x 16 invocations per row;
 * the other kernels' changes moved the head's own time, so only the A/B above counts.) */
#define MV_TALL_ROWS 2
/* Long 4-bit rows (more units than a subgroup has invocations) of weights with at least MV_FEW_ROWS
 * rows take one subgroup per row group of MV_LONG_CLUSTER_ROWS rows (instead of the workgroup
 * reduction of 2 rows).  H200, bench matvec-int4 (zero points) / matvec-int4-nozp, % of copy
 * measured in the same call, before -> after: 4096 x 4096 56.6 -> 63.6 / 63.6 -> 66.8; 8192 60.2 ->
 * 67.6 / 65.6 -> 71.5 (before: 64 x 2, the 4096 default is 32 x 2); 16384 63.2 -> 67.3 / 68.7 ->
 * 71.5 (bench/matvec_sweep.sh, variants tpr=32 and default, workgroups 64 / 256 x rows 2 / 4 / 8:
 * 64 x 4 with one subgroup per row group was best or within 1.2 points of it everywhere).  No
 * projection of the benchmark decoders has such a shape (Qwen2-0.5B's down_proj has long rows but
 * 896 of them). */
#define MV_LONG_CLUSTER_ROWS 4
/* gated_rows: weights of at least MV_GATED_WIDE_N rows (gate + up) take MV_GATED_WIDE_ROWS per group */
#define MV_GATED_WIDE_N 8192
#define MV_GATED_WIDE_ROWS 4
static void work_split(const WnrtDeviceInfo *d, int bits, uint64_t N, uint64_t units, uint32_t *wg, uint32_t *rows,
                       uint32_t *tpr) {
    bool cpu = d->type == WNRT_DEV_CPU, tall = N / 2 > MV_MAX_GROUPS;
    uint32_t sg = d->subgroup_size;
    bool cluster_ok = bits <= 8 && d->subgroup_shuffle && sg && (sg & (sg - 1)) == 0;
    bool long_wide = bits == 4 && units > sg && N >= MV_FEW_ROWS;
    *tpr = cpu || !cluster_ok ? 0 : tall && sg >= MV_TALL_TPR ? MV_TALL_TPR : units <= sg || long_wide ? sg : 0;
    /* tuning override: WEBNNC_MATVEC_TPR = 0 (workgroup reduction) or a power of two <= the subgroup size */
    *tpr = (uint32_t)wnrt_env_long("WEBNNC_MATVEC_TPR", 0, 1024, *tpr);
    if (*tpr && (!cluster_ok || (*tpr & (*tpr - 1)) || *tpr > sg)) *tpr = 0;
    *wg = cpu || bits > 8 ? 64 : 32;
    if (cpu || bits > 8) *rows = 4;
    else if (tall) *rows = *tpr ? MV_TALL_ROWS : 4;
    else if (*tpr && long_wide) *rows = MV_LONG_CLUSTER_ROWS;
    else *rows = bits == 4 && N < MV_FEW_ROWS ? 1 : 2;
    uint32_t min_wg = sg > 32 ? sg : 32;
    while (*wg / 2 >= min_wg && *wg / 2 >= units) *wg /= 2;
    /* tuning overrides: WEBNNC_MATVEC_LONG_UNITS = 1..64, WEBNNC_MATVEC_LONG_WG = 32..1024 */
    uint64_t long_units = (uint64_t)wnrt_env_long("WEBNNC_MATVEC_LONG_UNITS", 1, 64, MV_LONG_UNITS);
    uint32_t long_wg = (uint32_t)wnrt_env_long("WEBNNC_MATVEC_LONG_WG", 32, 1024, MV_LONG_WG);
    while (!cpu && *wg < long_wg && units > long_units * (uint64_t)*wg) *wg *= 2;
    if (!cpu && !*tpr && sg && units > *wg && units <= 2 * (uint64_t)*wg && wnrt_env_flag("WEBNNC_MATVEC_ROUND_UP", true))
        *wg = (uint32_t)((units + sg - 1) / sg * sg); /* MV_LONG_WG's note */
    if (*tpr) *wg = *tpr > MV_CLUSTER_WG ? *tpr : MV_CLUSTER_WG;
    /* tuning overrides (bench sweeps): WEBNNC_MATVEC_WG = 32..1024, WEBNNC_MATVEC_ROWS = 1..8 */
    *wg = (uint32_t)wnrt_env_long("WEBNNC_MATVEC_WG", 32, 1024, *wg);
    *rows = (uint32_t)wnrt_env_long("WEBNNC_MATVEC_ROWS", 1, 8, *rows);
    if (*wg > d->max_workgroup_invocations) *wg = d->max_workgroup_invocations;
    /* a workgroup holds whole row groups, in whole subgroups */
    if (*tpr && (*wg % *tpr || *wg % sg)) *tpr = 0;
}

/* 4-bit weights with float16 activations use the float16-pair kernel (matvec_rows_half.comp) on
 * GPUs with float16 arithmetic: 78.3% of the copy bandwidth against 67.8% for the exact f32 kernel
 * (H100, 4096 x 4096 with zero points, bench/matvec_sweep.sh).  CPU devices emulate float16 and
 * run the exact kernel faster, and so does a caller that asks for p->exact.  WEBNNC_MATVEC_HALF=1 / 0
 * forces the choice (where float16 exists). */
static bool half_dot(const WnrtDeviceInfo *d, const KMatvecRows *p, DType act) {
    return p->bits == 4 && act == DT_F16 && d->float16 && wnrt_env_flag("WEBNNC_MATVEC_HALF", d->type != WNRT_DEV_CPU && !p->exact);
}

/* Zero points paired with the scales (KMatvecRows.sz_paired): the float16-pair kernel reads one word
 * per row and block for both and takes its float16 offsets from it as they are, where it otherwise
 * loads a zero-point word, shifts and masks the zero point out and converts it to two float16
 * offsets; the device stores 4 bytes per block instead of 2.5.  H200, `bench matvec-int4` (zero
 * points), this binary and the one before it in one call, two runs each: 4096 x 4096 69.4-69.5 ->
 * 75.5-76.1% of copy, 16384 x 16384 72.6-72.8 -> 79.0-79.5% (without zero points 78.3 / 81.4-81.7,
 * unchanged).  Its geometry is fixed (fix_geometry) as for the kernel without zero points; left to
 * pc, another call measured 67.6 / 70.8-71.0. */
bool kmatvec_pairs_scales(const WnrtDeviceInfo *d, const KMatvecRows *p, DType act) {
    return p->has_zp && half_dot(d, p, act) && wnrt_env_flag("WEBNNC_MATVEC_PAIRED", true); /* (4-bit: half_dot) */
}

/* Quantized units (matvec_rows.glsl): 16 bytes of weights, or 8 bytes for 4-bit rows whose byte
 * length is not a multiple of 16 (K % 32 != 0); float weights: 16 k, read as uvec4. */
static bool half_units(const KMatvecRows *p) { return p->bits == 4 && p->K % 32 != 0; }
static uint64_t unit_k(const KMatvecRows *p) {
    if (p->bits > 8) return 16;
    return (half_units(p) ? 64u : 128u) / (uint64_t)p->bits;
}
/* Vector unit of the weight binding in bytes (the shader's w4 / w2 index). */
static uint64_t weight_vec_bytes(const KMatvecRows *p) { return half_units(p) ? 8 : 16; }

int kmatvec_rows_check(KernelCtx *kc, const Node *n, DType act, const KMatvecRows *p) {
    bool quant = p->bits == 4 || p->bits == 8;
    if (act != DT_F16 && act != DT_F32) {
        diag_error("no kernel for op %s (dtype %s) at node %s", op_name(n->op), dtype_name(act), node_display_name(n));
        return -1;
    }
    if ((!quant && p->bits != dtype_bits(act)) || (quant && !p->has_scale) || p->N <= 0 || p->K <= 0 || p->K % 16 ||
        p->N > UINT32_MAX || p->K > UINT32_MAX) {
        diag_node_error(n, "internal: unsupported mat-vec format (%d bits, N %lld, K %lld)", p->bits, (long long)p->N,
                        (long long)p->K);
        return -1;
    }
    if (quant && (p->block_n <= 0 || p->block_k <= 0 || p->block_k % 16 || p->s_n < 0 || p->s_k < 0 ||
                  p->s_n > UINT32_MAX || p->s_k > UINT32_MAX)) {
        diag_node_error(n, "internal: mat-vec block size %lld x %lld is not a multiple of 16", (long long)p->block_n,
                        (long long)p->block_k);
        return -1;
    }
    return kcheck_shader(kc, n, half_dot(kc_device(kc), p, act) ? "matvec_rows_half" : "matvec_rows", act, act);
}

/* Binding of bytes [first, last] of t; *base = byte offset of `first` in the binding. */
static int bind_bytes(KernelCtx *kc, const Node *n, const KTensor *t, uint64_t first, uint64_t last, bool write, KBind *b,
                      uint32_t *base) {
    KTensor bytes = *t;
    bytes.dtype = DT_U8;
    bytes.numel = dtype_storage_bytes(t->dtype, t->numel);
    return kc_bind_window(kc, n, &bytes, (int64_t)first, (int64_t)last, write, b, base);
}

static int vec_index(const Node *n, uint32_t base_bytes, uint64_t unit, uint32_t *out) {
    if (base_bytes % unit) {
        diag_node_error(n, "internal: mat-vec operand is not %llu-byte aligned", (unsigned long long)unit);
        return -1;
    }
    *out = base_bytes / (uint32_t)unit;
    return 0;
}

/* Spec constants KMV_FIX.. (matvec_rows.glsl FIX_*): the weights' geometry of pc fixed at pipeline
 * creation, or left to pc (all 0).  Fixed, the shader's unit loop has a constant bound and its
 * block and scale indices constant shifts and multiplies.  H200, Qwen2-0.5B webgpu `generate` of 128
 * tokens, the same binary with WEBNNC_MATVEC_FIXED=0 / 1 alternating three times: 1341-1343 ->
 * 1361-1365 tok/s after 128 prompt tokens, 1214-1218 -> 1230-1233 after 512 (decode attention's
 * geometry not fixed in either; with its head size fixed in both, another call: 1367-1373 -> 1389-1392 and
 * 1244-1249 -> 1260-1268), the same ids; gatedMlp 95 -> 80 registers.  `bench`, % of copy at 4096² /
 * 16384², two calls: without zero points 75.8-76.1 -> 78.2-78.5 / 80.3-80.4 -> 81.1-81.7; with them
 * (the float16-pair kernel) 69.5-69.8 -> 68.0-68.1 / 72.6-72.8 -> 71.1-71.4, so that kernel keeps
 * reading pc when it has zero points.  WEBNNC_MATVEC_FIXED=0: never. */
#define KMV_FIX 14
static void fix_geometry(uint32_t *spec, const MatvecRowsPush *pc, bool on) {
    on = on && wnrt_env_flag("WEBNNC_MATVEC_FIXED", true);
    spec[KMV_FIX] = on ? pc->units : 0;
    spec[KMV_FIX + 1] = on ? K_FIXED1(pc->kshift) : 0;
    spec[KMV_FIX + 2] = on ? pc->block_n : 0;
    spec[KMV_FIX + 3] = on ? K_FIXED1(pc->s_n) : 0;
    spec[KMV_FIX + 4] = on ? K_FIXED1(pc->s_k) : 0;
}

/* What both forms share: operand sizes of x / scale / zp / bias, the shader's work split, the spec
 * constants 0 .. KMV_FIX - 1 (10 and 11 are the normalized projection's, 13 the residual epilogue's:
 * 0 here), push constants and bindings 0 x, 2 scale, 3 zero points, 5 bias (absent ones: x again,
 * never read).  Weights (1), outputs and the fixed geometry (fix_geometry) are the caller's.
 * *M = activation rows. */
static int rows_setup(KernelCtx *kc, const Node *n, const KMatvecRows *p, const KTensor *x, const KTensor *w,
                      const KTensor *scale, const KTensor *zp, const KTensor *bias, MatvecRowsPush *pc, KBind *b,
                      uint32_t *spec, uint32_t *rows, uint64_t *M) {
    const WnrtDeviceInfo *d = kc_device(kc);
    uint64_t K = (uint64_t)p->K, N = (uint64_t)p->N;
    bool quant = p->bits <= 8;
    *M = p->x_rows ? p->x_rows : x->numel / K;
    if (x->numel % K || (p->x_row0 + *M) * K > x->numel || dtype_storage_bytes(w->dtype, w->numel) * 8 < N * K * (uint64_t)p->bits ||
        (quant && (!scale || (p->has_zp && !p->sz_paired && !zp))) || (p->sz_paired && (p->bits != 4 || scale->dtype != DT_F16)) ||
        (bias && bias->numel != N)) {
        diag_node_error(n, "internal: mat-vec operand sizes do not agree");
        return -1;
    }
    if (*M > d->max_workgroup_count[2]) {
        diag_node_error(n, "mat-vec with %llu activation rows exceeds the device's grid limit", (unsigned long long)*M);
        return -1;
    }
    uint64_t ku = unit_k(p);
    uint32_t wg, tpr;
    work_split(d, p->bits, (uint64_t)p->N, K / ku, &wg, rows, &tpr);
    /* QLAYOUT: bit 0 = 8-byte units, bit 1 = a block boundary may fall inside a unit */
    uint32_t qlayout = (half_units(p) ? 1u : 0u) | (quant && (uint64_t)p->block_k % ku ? 2u : 0u);
    uint32_t sp[KMV_SPEC] = {wg, *rows, (uint32_t)p->bits, p->is_signed, p->has_zp, d->subgroup_arithmetic, tpr ? 1 : wg,
                             qlayout, (uint32_t)p->zp_absent, bias != NULL, 0, 1, tpr, 0};
    memcpy(spec, sp, sizeof sp);
    spec[19] = p->sz_paired;
    memset(pc, 0, sizeof *pc);
    pc->units = (uint32_t)(K / ku);
    pc->y_stride = (uint32_t)N;
    pc->block_n = (uint32_t)(p->block_n > 0 ? p->block_n : 1);
    pc->block_k = (uint32_t)(p->block_k > 0 ? p->block_k : 16);
    pc->s_n = (uint32_t)p->s_n;
    pc->s_k = (uint32_t)p->s_k;
    pc->kshift = 32;
    for (uint32_t i = 0; i < 32; i++)
        if (pc->block_k == 1u << i) pc->kshift = i;
    uint32_t base;
    /* x bound whole (the same binding for every row picked), the first row by its index */
    if (bind_bytes(kc, n, x, 0, dtype_storage_bytes(x->dtype, x->numel) - 1, false, &b[0], &base) < 0 ||
        vec_index(n, base + (uint32_t)dtype_storage_bytes(x->dtype, p->x_row0 * K), 16, &pc->x_base) < 0)
        return -1;
    pc->x_stride = (uint32_t)(K * (uint64_t)dtype_storage_bytes(x->dtype, 1) / 16);
    /* Absent scale / zero point / bias: bind the activations again (never read: spec constants). */
    b[2] = b[3] = b[5] = b[0];
    if (bias && kc_bind_window(kc, n, bias, 0, (int64_t)N - 1, false, &b[5], &pc->b_base) < 0) return -1;
    KTensor paired; /* sz_paired: the scale's storage as 32-bit words, one per scale */
    if (p->sz_paired) paired = *scale, paired.dtype = DT_U32, scale = &paired;
    if (quant && kc_bind_window(kc, n, scale, 0, (int64_t)scale->numel - 1, false, &b[2], &pc->s_base) < 0) return -1;
    if (quant && p->has_zp && !p->sz_paired) {
        /* zero points are read as 32-bit words: bind from an aligned byte, index in elements */
        uint32_t zb;
        if (bind_bytes(kc, n, zp, 0, dtype_storage_bytes(zp->dtype, zp->numel) - 1, false, &b[3], &zb) < 0) return -1;
        pc->z_base = zb * 8 / (uint32_t)p->bits;
    }
    return 0;
}

/* Weight bytes per row and the most rows one binding holds (0: not even one). */
static uint64_t window_rows(KernelCtx *kc, const KMatvecRows *p, uint64_t *row_bytes) {
    *row_bytes = (uint64_t)p->K * (uint64_t)p->bits / 8;
    return (kc_max_binding_elems(kc, DT_U8) - 64) / *row_bytes;
}

/* One dispatch over the row groups of pc->rows rows (`per_group` output rows each), z = M. */
static int rows_dispatch(KernelCtx *kc, const Node *n, int sh, const uint32_t *spec, int n_spec, const MatvecRowsPush *pc,
                         const KBind *b, int n_binds, uint32_t per_group, uint64_t M) {
    const WnrtDeviceInfo *d = kc_device(kc);
    uint64_t gmax = d->max_workgroup_count[0] < 65535 ? d->max_workgroup_count[0] : 65535;
    uint64_t groups = (pc->rows + per_group - 1) / per_group;
    uint32_t per_wg = spec[12] ? spec[0] / spec[12] : 1; /* row groups per workgroup (TPR) */
    groups = (groups + per_wg - 1) / per_wg;
    uint64_t gx = groups < gmax ? groups : gmax, gy = (groups + gx - 1) / gx;
    if (gy > d->max_workgroup_count[1]) {
        diag_node_error(n, "mat-vec needs too many workgroups (%llu)", (unsigned long long)groups);
        return -1;
    }
    return kc_dispatch(kc, n, sh, spec, n_spec, pc, sizeof *pc, b, n_binds, (uint32_t)gx, (uint32_t)gy, (uint32_t)M);
}

/* Whether this mat-vec takes the loop's offered pick (kernel.h KFusedPick): its output is exactly
 * the offered logits row, it has one activation row and one dispatch (all N rows in one weight
 * window), the exact kernel and no residual, and the device has 64-bit atomics and subgroup
 * arithmetic. */
static bool takes_pick(KernelCtx *kc, const KTensor *y, uint64_t M, bool half, bool one_window, const KMatvecResidual *res) {
    const KFusedPick *fp = kc_fused_pick(kc);
    const WnrtDeviceInfo *d = kc_device(kc);
    return fp && !fp->taken && M == 1 && !half && one_window && !res && d->int64_atomics && d->subgroup_arithmetic &&
           y->buffer == fp->logits && y->offset == fp->logits_offset && y->numel == fp->vocab;
}

int kmatvec_rows_record(KernelCtx *kc, const Node *n, const KMatvecRows *p, const KTensor *x, const KTensor *w,
                        const KTensor *scale, const KTensor *zp, const KTensor *bias, const KMatvecResidual *res,
                        const KTensor *y) {
    MatvecRowsPush pc;
    KBind b[13];
    uint32_t spec[KMV_SPEC], rows, base;
    uint64_t M, N = (uint64_t)p->N;
    if (rows_setup(kc, n, p, x, w, scale, zp, bias, &pc, b, spec, &rows, &M) < 0) return -1;
    if (y->numel != M * N) {
        diag_node_error(n, "internal: mat-vec operand sizes do not agree");
        return -1;
    }
    if (M == 0) return 0;
    bool half = half_dot(kc_device(kc), p, x->dtype);
    fix_geometry(spec, &pc, !(half && p->has_zp && !p->sz_paired));
    /* Rows per dispatch: the weight window must fit one binding. */
    uint64_t row_bytes, max_rows = window_rows(kc, p, &row_bytes), vec = weight_vec_bytes(p);
    if (max_rows == 0) {
        diag_node_error(n, "one weight row of %llu bytes exceeds the device's storage-buffer range", (unsigned long long)row_bytes);
        return -1;
    }
    KFusedPick *fp = takes_pick(kc, y, M, half, max_rows >= N, res) ? kc_fused_pick(kc) : NULL;
    int sh = kc_find_shader(kc, n, fp ? "matvec_rows_pick" : half ? "matvec_rows_half" : "matvec_rows", x->dtype, x->dtype);
    if (sh < 0 || kc_bind_window(kc, n, y, 0, (int64_t)y->numel - 1, true, &b[4], &pc.y_base) < 0) return -1;
    if (fp) {
        b[8] = fp->ids, b[9] = fp->pos_b, b[10] = fp->mask, b[11] = fp->ring, b[12] = fp->ws;
        pc.pick_slot = fp->slot, pc.pick_pos = fp->pos, pc.pick_flags = fp->flags, pc.pick_ws = fp->ws_word;
        fp->taken = true;
    }
    b[6] = b[7] = b[0]; /* no residual: never read (spec constant) */
    if (res) {
        const KTensor *rb = res->res_bias;
        if (res->res->numel != y->numel || (rb && rb->numel != N)) {
            diag_node_error(n, "internal: mat-vec residual sizes do not agree");
            return -1;
        }
        if (kc_bind_window(kc, n, res->res, 0, (int64_t)y->numel - 1, false, &b[6], &pc.r_base) < 0 ||
            (rb && kc_bind_window(kc, n, rb, 0, (int64_t)N - 1, false, &b[7], &pc.rb_base) < 0))
            return -1;
        spec[13] = rb ? 2 : 1;
    }

    for (uint64_t r0 = 0; r0 < N; r0 += max_rows) {
        uint64_t r1 = r0 + max_rows < N ? r0 + max_rows : N;
        if (bind_bytes(kc, n, w, r0 * row_bytes, r1 * row_bytes - 1, false, &b[1], &base) < 0 ||
            vec_index(n, base, vec, &pc.w_base) < 0)
            return -1;
        pc.rows = (uint32_t)(r1 - r0);
        pc.row0 = (uint32_t)r0;
        if (rows_dispatch(kc, n, sh, spec, KMV_SPEC, &pc, b, fp ? 13 : 8, rows, M) < 0) return -1;
    }
    return 0;
}

/* ---- the normalized projection (shaders/matvec_rows_norm.comp) ------------------------------- */

static bool vec_aligned(const KTensor *t) { return !t || t->offset % 16 == 0; }

bool kmatvec_norm_fits(KernelCtx *kc, const KMatvecRows *p, const KMatvecNorm *q, const KTensor *x, const KTensor *w) {
    uint64_t row_bytes;
    bool aligned = vec_aligned(x) && vec_aligned(w) && vec_aligned(q->skip) && vec_aligned(q->skip_bias) &&
                   vec_aligned(q->norm_scale) && vec_aligned(q->sum);
    return (p->bits == 4 || p->bits == 8) && !half_units(p) && p->K % 32 == 0 && aligned && q->n_out >= 1 &&
           q->n_out <= KMV_NORM_MAX_OUT && (!q->gated || q->n_out == 1) && x->numel / (uint64_t)p->K <= KMV_NORM_MAX_M &&
           window_rows(kc, p, &row_bytes) >= (uint64_t)p->N;
}

int kmatvec_norm_check(KernelCtx *kc, const Node *n, DType act) {
    return kcheck_shader(kc, n, "matvec_rows_norm", act, act);
}

/* Rows per row group of a gated projection: gate and up rows in pairs, and MV_GATED_WIDE_ROWS (two
 * output columns) for wide ones on subgroup row groups, where one activation load then serves four
 * rows.  H200, gatedMlp us per call (timestamped, same binary, env A/B): Qwen2-0.5B (9728 x 896) 11.07
 * -> 10.18 with 4 rows (6: 10.96, 8: 12.23), `generate` 1051 -> 1069 tok/s after 512 tokens and 1148
 * -> 1169 after 128; SmolLM-135M (3072 x 576) 7.89 -> 8.70, so narrower ones keep 2.
 * WEBNNC_GATED_ROWS=2..8 (even) overrides. */
static uint32_t gated_rows(bool cluster, uint64_t N, uint32_t rows) {
    rows = rows < 2 ? 2 : rows & ~1u;
    if (cluster && N >= MV_GATED_WIDE_N && rows < MV_GATED_WIDE_ROWS) rows = MV_GATED_WIDE_ROWS;
    return (uint32_t)wnrt_env_long("WEBNNC_GATED_ROWS", 2, 8, rows) & ~1u;
}

int kmatvec_norm_record(KernelCtx *kc, const Node *n, const KMatvecRows *p, const KMatvecNorm *q, const KTensor *x,
                        const KTensor *w, const KTensor *scale, const KTensor *zp, const KTensor *bias) {
    MatvecRowsPush pc;
    KBind b[12];
    uint32_t spec[KMV_SPEC], rows, base;
    uint64_t M, K = (uint64_t)p->K, N = (uint64_t)p->N, out_n = q->gated ? N / 2 : N, total = 0;
    if (!kmatvec_norm_fits(kc, p, q, x, w)) {
        diag_node_error(n, "internal: normalized mat-vec does not apply");
        return -1;
    }
    if (rows_setup(kc, n, p, x, w, scale, zp, bias, &pc, b, spec, &rows, &M) < 0) return -1;
    fix_geometry(spec, &pc, true);
    for (int i = 0; i < q->n_out; i++) total += (uint64_t)q->cols[i];
    if (total != out_n || (q->gated && N % 2) || q->norm_scale->numel != K || (q->skip && q->skip->numel != x->numel) ||
        (q->skip_bias && q->skip_bias->numel != K) || (q->sum && q->sum->numel != x->numel)) {
        diag_node_error(n, "internal: normalized mat-vec operand sizes do not agree");
        return -1;
    }
    if (M == 0) return 0;
    int sh = kc_find_shader(kc, n, "matvec_rows_norm", x->dtype, x->dtype);
    if (sh < 0) return -1;
    if (q->gated) rows = gated_rows(spec[12] != 0, N, rows);
    spec[1] = rows;
    spec[10] = (q->skip ? 1u : 0u) | (q->skip_bias ? 2u : 0u) | (q->sum ? 4u : 0u) | (q->gated ? 8u | q->activation << 4 : 0u);
    spec[11] = (uint32_t)q->n_out;
    pc.eps = q->eps;
    pc.rows = (uint32_t)out_n;
    pc.half_n = q->gated ? (uint32_t)out_n : 0;
    pc.y_stride = (uint32_t)out_n;
    pc.split1 = (uint32_t)q->cols[0];
    pc.split2 = (uint32_t)(q->n_out > 2 ? (uint64_t)(q->cols[0] + q->cols[1]) : out_n);
    for (int i = 4; i < 12; i++) b[i] = i == 5 ? b[i] : b[0]; /* absent operands: never read or written */
    const struct { const KTensor *t; int bind; uint32_t *base; bool write; } vecs[] = {
        {q->norm_scale, 6, &pc.g_base, false}, {q->skip, 7, &pc.skip_base, false},
        {q->skip_bias, 8, &pc.sb_base, false}, {q->sum, 9, &pc.sum_base, true}};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
        const KTensor *t = vecs[i].t;
        if (t && (bind_bytes(kc, n, t, 0, dtype_storage_bytes(t->dtype, t->numel) - 1, vecs[i].write, &b[vecs[i].bind], &base) < 0 ||
                  vec_index(n, base, 16, vecs[i].base) < 0))
            return -1;
    }
    uint32_t *y_base[KMV_NORM_MAX_OUT] = {&pc.y_base, &pc.y1_base, &pc.y2_base};
    static const int y_bind[KMV_NORM_MAX_OUT] = {4, 10, 11};
    for (int i = 0; i < q->n_out; i++) {
        const KTensor *y = q->y[i];
        if (y->numel != M * (uint64_t)q->cols[i]) {
            diag_node_error(n, "output %d does not match its split", i);
            return -1;
        }
        if (kc_bind_window(kc, n, y, 0, (int64_t)y->numel - 1, true, &b[y_bind[i]], y_base[i]) < 0) return -1;
    }
    if (bind_bytes(kc, n, w, 0, N * K * (uint64_t)p->bits / 8 - 1, false, &b[1], &base) < 0 ||
        vec_index(n, base, weight_vec_bytes(p), &pc.w_base) < 0)
        return -1;
    return rows_dispatch(kc, n, sh, spec, KMV_SPEC, &pc, b, 12, q->gated ? rows / 2 : rows, M);
}

/* ---- the family of plan rewrites (plan_matvec.c) ------------------------------------ */

static int rows_check(KernelCtx *kc, const Node *n) {
    const KMatvecRows *p = kc_node_params(kc, n);
    if (!p || n->n_inputs < 1 || !n->inputs[0]) {
        diag_node_error(n, "internal: mat-vec rewrite without parameters");
        return -1;
    }
    return kmatvec_rows_check(kc, n, n->inputs[0]->dtype, p);
}

static int rows_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    const KMatvecRows *p = kc_node_params(kc, n);
    if (!p) {
        diag_node_error(n, "internal: mat-vec rewrite without parameters");
        return -1;
    }
    bool quant = p->bits <= 8;
    return kmatvec_rows_record(kc, n, p, &in[0], &in[1], quant ? &in[2] : NULL, quant && p->has_zp && !p->sz_paired ? &in[3] : NULL,
                               NULL, NULL, &out[0]);
}

const KernelFamily kfam_matvec_rows = {rows_check, rows_record, 0};
