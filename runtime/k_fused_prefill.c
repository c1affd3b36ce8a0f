/* k_fused_prefill.c - the prefill of qkvProjection / gatedMlp with matmulNBits weights (k_fused.c),
 * composed of the kernels the unfused graph runs, so that the fused node costs no more than the
 * nodes it replaces (H100, 512-token prompt of the Qwen2-0.5B shape: the one-kernel tile path,
 * shaders/norm_proj_tile.glsl, took 4.0 + 11.8 ms per prefill against 12.6 ms for the separate
 * norms, projections, silu and mul, which it renormalized in every 64 x 64 tile):
 *   1. the RMS norm (k_ext_norm.h: x (+ skip (+ skipBias)), the sum output when asked) into
 *      scratch storage, rounded to the activation type as the separate norm's output is;
 *   2. the matmulNBits GEMM (k_ext_nbits.h, split-K where it splits) per qkv split, on the split's
 *      rows of the packed weights, straight into that output; gatedMlp: one GEMM over the packed
 *      [gate | up] rows with act(gate) * up in its epilogue (ext_nbits_record_gated), straight
 *      into the output.  Where that gated GEMM does not apply (few rows, a split-K weight, gate and
 *      up rows beyond one binding; WEBNNC_FUSED_PREFILL=gate_mul: never) the GEMM goes into
 *      scratch and shaders/ext_gate_mul.comp computes act(gate) * up from there; both round gate
 *      and up to the activation type before the activation, so their results are the same bits.
 * Scratch: [normalized x | the fallback's gate and up | the GEMMs' split-K partial sums], reserved
 * at check time for the node's largest row count (gate and up only for the row counts that fall
 * back).  WEBNNC_FUSED_PREFILL=tile keeps the tile kernel. */
#include <stdlib.h>
#include <string.h>

#include "k_ext_nbits.h"
#include "k_ext_norm.h"
#include "k_ext_util.h"
#include "k_fused_prefill.h"

#define SCRATCH_ALIGN 256

typedef struct { /* ext_gate_mul.comp PARAMS_BLOCK */
    uint32_t M, n, base_t, base_y;
} GateMulPush;

static uint64_t align_up(uint64_t x) { return (x + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN; }

/* Scratch layout for M activation rows of which t_rows go through ext_gate_mul (0: none): normalized
 * x at 0, gate / up at *t_off, partials at *end. */
static void layout(const NBitsGeom *geo, uint64_t M, uint64_t t_rows, DType act, uint64_t *t_off, uint64_t *end) {
    uint64_t es = dtype_storage_bytes(act, 1);
    *t_off = align_up(M * (uint64_t)geo->k * es);
    *end = align_up(*t_off + t_rows * (uint64_t)geo->n * es);
}

/* Split-K partial bytes of the GEMMs for M rows: the most any of them needs (they run in turn). */
static uint64_t partials(const NBitsGeom *geo, const int64_t *splits, int n_splits, bool gated, uint64_t M) {
    uint64_t most = 0;
    for (int i = 0; i < (gated ? 1 : n_splits); i++) {
        NBitsGeom g = *geo;
        if (!gated) g.n = splits[i];
        uint64_t need = ext_nbits_scratch_need(&g, M);
        if (need > most) most = need;
    }
    return most;
}

static bool env_is(const char *value) {
    const char *e = getenv("WEBNNC_FUSED_PREFILL");
    return e && strcmp(e, value) == 0;
}

static bool enabled(void) { return !env_is("tile"); }

/* The fewest rows from which gatedMlp's epilogue runs in its GEMM (ext_nbits_record_gated);
 * UINT64_MAX for qkvProjection and with WEBNNC_FUSED_PREFILL=gate_mul (ext_gate_mul.comp always). */
static uint64_t fold_min_m(const KernelCtx *kc, const Node *n, const NBitsGeom *geo) {
    if (n->op != OP_GATED_MLP || env_is("gate_mul")) return UINT64_MAX;
    return ext_nbits_gated_min_m(kc, geo, n->inputs[FP_INPUT]->dtype);
}

/* Rows of M whose gate / up go through scratch: gatedMlp's where the gated GEMM does not apply. */
static uint64_t gate_mul_rows(const KernelCtx *kc, const Node *n, const NBitsGeom *geo, uint64_t M) {
    return n->op == OP_GATED_MLP && M < fold_min_m(kc, n, geo) ? M : 0;
}

int ext_fused_prefill_check(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const int64_t *splits, int n_splits,
                            uint64_t min_m) {
    DType act = n->inputs[FP_INPUT]->dtype;
    if (ext_nbits_check(kc, n, act, kx_opt(n, FP_ZERO_POINTS)) < 0 || kcheck_shader(kc, n, "ext_rms_norm", act, act) < 0 ||
        kcheck_shader(kc, n, "ext_gate_mul", act, act) < 0 ||
        kcheck_shader(kc, n, "ext_matmul_nbits_gated_tiled", act, act) < 0 ||
        (ext_coop(kc, act) && kcheck_shader(kc, n, "ext_matmul_nbits_gated_coop", act, act) < 0))
        return -1;
    if (!enabled()) return 0;
    /* gate / up in scratch for the most rows that fall back: below fold_min_m, from min_m */
    uint64_t max_m = value_max_elements(n->inputs[FP_INPUT]) / (uint64_t)geo->k, fold = fold_min_m(kc, n, geo), t_off, end;
    uint64_t t_rows = fold <= min_m ? 0 : gate_mul_rows(kc, n, geo, max_m < fold ? max_m : fold - 1);
    layout(geo, max_m, t_rows, act, &t_off, &end);
    uint64_t bytes = end + partials(geo, splits, n_splits, n->op == OP_GATED_MLP, max_m);
    if (bytes <= kc_scratch_limit(kc)) kc_scratch_reserve(kc, bytes);
    return 0;
}

/* One GEMM over weight rows [r0, r0 + rows) into y. */
static int project(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *in, const KTensor *x, uint64_t r0,
                   uint64_t rows, const KTensor *y, uint64_t scratch_used) {
    NBitsGeom g = *geo;
    g.n = (int64_t)rows;
    uint64_t KB = (uint64_t)geo->k_blocks, row_bytes = KB * (uint64_t)geo->blob;
    const KTensor *zp = kx_opt(n, FP_ZERO_POINTS) ? &in[FP_ZERO_POINTS] : NULL;
    KTensor w = kx_rows_view(&in[FP_WEIGHT], r0, rows, row_bytes), s = kx_rows_view(&in[FP_SCALES], r0, rows, KB), z, b;
    if (zp) z = kx_rows_view(zp, r0, rows, zp->dtype == DT_U8 ? (uint64_t)geo->zp_row_bytes : KB);
    if (kx_opt(n, FP_BIAS)) b = kx_rows_view(&in[FP_BIAS], r0, rows, 1);
    return ext_nbits_record(kc, n, &g, x, &w, &s, zp ? &z : NULL, kx_opt(n, FP_BIAS) ? &b : NULL, y, scratch_used);
}

/* gatedMlp's GEMM of x with act(gate) * up in its epilogue into y (where gate_mul_rows is 0).  1, or -1. */
static int gated_gemm(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *in, const KTensor *x,
                      const KTensor *y) {
    const KTensor *zp = kx_opt(n, FP_ZERO_POINTS) ? &in[FP_ZERO_POINTS] : NULL;
    const KTensor *bias = kx_opt(n, FP_BIAS) ? &in[FP_BIAS] : NULL;
    int rc = ext_nbits_record_gated(kc, n, geo, x, &in[FP_WEIGHT], &in[FP_SCALES], zp, bias, y, ext_fused_gate_act(n));
    if (rc == 0) diag_node_error(n, "internal: the gated GEMM does not apply");
    return rc > 0 ? 1 : -1;
}

uint32_t ext_fused_gate_act(const Node *n) {
    int act = n->op == OP_GATED_MLP ? fused_activation(n) : 0;
    return act > 0 ? (uint32_t)act : 0u;
}

static int gate_mul(KernelCtx *kc, const Node *n, const KTensor *t, const KTensor *y, uint64_t M, uint64_t half) {
    int sh = kc_find_shader(kc, n, "ext_gate_mul", y->dtype, y->dtype);
    if (sh < 0) return -1;
    GateMulPush pc = {(uint32_t)M, (uint32_t)half, 0, 0};
    KBind b[2];
    if (ext_bind(kc, n, t, false, &b[0], &pc.base_t) < 0 || ext_bind(kc, n, y, true, &b[1], &pc.base_y) < 0) return -1;
    uint32_t spec[2] = {256, ext_fused_gate_act(n)};
    return kc_dispatch_1d(kc, n, sh, spec, 2, &pc, sizeof pc, b, 2, (M * half + 255) / 256);
}

int ext_fused_prefill_record(KernelCtx *kc, const Node *n, const NBitsGeom *geo, const KTensor *in, const KTensor *out,
                         const int64_t *splits, int n_splits) {
    const KTensor *x = &in[FP_INPUT];
    DType act = x->dtype;
    bool gated = n->op == OP_GATED_MLP;
    uint64_t K = (uint64_t)geo->k, M = x->numel / K, N = (uint64_t)geo->n, t_rows = gate_mul_rows(kc, n, geo, M), t_off, end;
    layout(geo, M, t_rows, act, &t_off, &end);
    if (!enabled() || end + partials(geo, splits, n_splits, gated, M) > kc_scratch_reserved(kc)) return 0;
    KTensor xn, t;
    if (kc_scratch_tensor(kc, n, 0, act, 2, (const int64_t[]){(int64_t)M, (int64_t)K}, &xn) < 0) return -1;
    const KTensor *skip = kx_opt(n, FP_SKIP) ? &in[FP_SKIP] : NULL;
    const KTensor *sum = node_bool(n, "outputSum", false) ? &out[gated ? 1 : n_splits] : NULL;
    if (ext_rms_norm_rows(kc, n, x, skip, skip && kx_opt(n, FP_SKIP_BIAS) ? &in[FP_SKIP_BIAS] : NULL, &in[FP_NORM_SCALE], K,
                          (float)fused_epsilon(n), &xn, sum) < 0)
        return -1;
    if (gated && t_rows == 0) return gated_gemm(kc, n, geo, in, &xn, &out[0]);
    if (gated) {
        if (kc_scratch_tensor(kc, n, t_off, act, 2, (const int64_t[]){(int64_t)M, (int64_t)N}, &t) < 0 ||
            project(kc, n, geo, in, &xn, 0, N, &t, end) < 0)
            return -1;
        return gate_mul(kc, n, &t, &out[0], M, N / 2) < 0 ? -1 : 1;
    }
    uint64_t col = 0;
    for (int i = 0; i < n_splits; i++) {
        if (splits[i] > 0 && project(kc, n, geo, in, &xn, col, (uint64_t)splits[i], &out[i], end) < 0) return -1;
        col += (uint64_t)splits[i];
    }
    return 1;
}
