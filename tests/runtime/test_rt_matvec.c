/* test_rt_matvec.c - the row-major mat-vec path (k_matvec.c, plan_matvec.c) on the Vulkan
 * runtime: matmul with a constant float B and dequantizeLinear(int4/int8 constant) -> [transpose]
 * -> matmul chains, checked against reference loops written here (double) and against the
 * unfused generic kernels (WEBNNC_NO_FUSE=1).  Also checks that the rewrite happened (one
 * dispatch), the resident constants' bytes (zero points paired with the scales or apart), and the
 * plan-time re-layout helper.  The bandwidth reference of `webnnc bench`, the
 * vectorized dense copy (k_strided.c), is checked here too: output bytes = input bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_matvec.h"
#include "rt_test_util.h"

static unsigned seed = 12345;
static int irand(int n) {
    seed = seed * 1103515245u + 12345u;
    return (int)((seed >> 8) % (unsigned)n);
}
/* Values exactly representable in float16: k / 64, |k| <= 64. */
static float frand(void) { return (float)(irand(129) - 64) / 64.0f; }

static uint16_t f2h(float f) { /* exact for the values above (normal range, <= 10 mantissa bits) */
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) == 0) return (uint16_t)(u >> 16);
    uint32_t sign = (u >> 16) & 0x8000, exp = (u >> 23) & 0xff, man = u & 0x7fffff;
    return (uint16_t)(sign | ((exp - 127 + 15) << 10) | (man >> 13));
}
static float h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float f;
    if (exp == 0) {
        f = ldexpf((float)man, -24);
        return sign ? -f : f;
    }
    uint32_t u = sign | ((exp - 15 + 127) << 23) | (man << 13);
    memcpy(&f, &u, 4);
    return f;
}

/* Loads and runs g (inputs[i] in graph input order), reads output 0; *dispatches: the nodes'
 * dispatches from the stats (not the graph input / output copies a discrete GPU adds);
 * run_const_bytes: the bytes of its resident constants. */
static uint64_t run_const_bytes;
static int run(Graph *g, bool fuse, const void *const *inputs, void *out, uint64_t out_bytes, int *dispatches) {
    WnrtModel *m = rt_load_with_env(g, "WEBNNC_NO_FUSE", fuse ? NULL : "1");
    if (!m) return -1;
    int rc = rt_bind_inputs(m, g, inputs);
    if (rc == 0) rc = wnrt_run(m);
    if (rc == 0) rc = wnrt_read_output(m, 0, out, out_bytes);
    WnrtStats st;
    wnrt_stats(m, &st);
    *dispatches = st.dispatches - st.io_dispatches;
    run_const_bytes = st.const_bytes;
    wnrt_free(m);
    return rc;
}

/* Compares got (M x N, activation dtype) with the double reference; tolerance from |terms|. */
static void expect_close(const char *what, DType dt, const void *got, const double *want, const double *mag, int64_t count) {
    for (int64_t i = 0; i < count; i++) {
        double g = dt == DT_F16 ? h2f(((const uint16_t *)got)[i]) : ((const float *)got)[i];
        double tol = dt == DT_F16 ? 1e-3 * mag[i] + 2e-3 * fabs(want[i]) + 1e-3 : 1e-5 * mag[i] + 1e-6;
        ck_assert_msg(fabs(g - want[i]) <= tol, "%s: element %lld: got %.6g, want %.6g (tol %.3g)", what, (long long)i, g,
                      want[i], tol);
    }
}

/* ---- float weights ------------------------------------------------------------------------- */

/* y[M, N] = x[M, K] . B, B constant [K, N] (or transpose(constant [N, K]) when bt). */
static void check_float(DType dt, int64_t M, int64_t K, int64_t N, bool bt) {
    size_t es = dt == DT_F16 ? 2 : 4;
    float *xf = malloc(sizeof(float) * (size_t)(M * K)), *bf = malloc(sizeof(float) * (size_t)(K * N));
    uint8_t *xs = malloc(es * (size_t)(M * K)), *bs = malloc(es * (size_t)(K * N));
    for (int64_t i = 0; i < M * K; i++) xf[i] = frand();
    for (int64_t i = 0; i < K * N; i++) bf[i] = frand();
    /* storage: B as [K, N], or as [N, K] when bt */
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++) {
            float v = bf[k * N + n];
            int64_t at = bt ? n * K + k : k * N + n;
            if (dt == DT_F16) ((uint16_t *)bs)[at] = f2h(v);
            else ((float *)bs)[at] = v;
        }
    for (int64_t i = 0; i < M * K; i++) {
        if (dt == DT_F16) ((uint16_t *)xs)[i] = f2h(xf[i]);
        else ((float *)xs)[i] = xf[i];
    }
    double *want = calloc((size_t)(M * N), sizeof(double)), *mag = calloc((size_t)(M * N), sizeof(double));
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++) {
                want[m * N + n] += (double)xf[m * K + k] * bf[k * N + n];
                mag[m * N + n] += fabs((double)xf[m * K + k] * bf[k * N + n]);
            }
    void *out = malloc(es * (size_t)(M * N));
    for (int fuse = 1; fuse >= 0; fuse--) {
        Graph *g = graph_new("t");
        Value *x = tu_input(g, "x", dt, 2, (int64_t[]){M, K});
        Value *b = graph_add_const(g, "b", dt, 2, bt ? (int64_t[]){N, K} : (int64_t[]){K, N}, bs, es * (uint64_t)(K * N));
        if (bt) {
            Node *t = tu_node(g, OP_TRANSPOSE, 1, b);
            node_set_ints(g, t, "permutation", 2, (int64_t[]){1, 0});
            b = graph_finish(g, t);
        }
        graph_add_output(g, graph_finish(g, tu_node(g, OP_MATMUL, 2, x, b)));
        int disp = 0;
        ck_assert_msg(run(g, fuse, (const void *[]){xs}, out, es * (uint64_t)(M * N), &disp) == 0, "%s", diag_message());
        if (fuse) ck_assert_msg(disp == 1, "rewritten mat-vec should be one dispatch, got %d", disp);
        expect_close(fuse ? "fused" : "generic", dt, out, want, mag, M * N);
        graph_free(g);
    }
    free(xf), free(bf), free(xs), free(bs), free(want), free(mag), free(out);
}

START_TEST(f16_kn) { check_float(DT_F16, 1, 256, 100, false); }
END_TEST
START_TEST(f16_nk_transposed) { check_float(DT_F16, 1, 160, 37, true); }
END_TEST
START_TEST(f32_small_m) { check_float(DT_F32, 3, 48, 65, false); }
END_TEST
START_TEST(f16_wide) { check_float(DT_F16, 1, 4096, 24, false); }
END_TEST

/* ---- dequantized weights ------------------------------------------------------------------- */

typedef struct {
    DType qt;       /* DT_U4, DT_I4, DT_U8, DT_I8 */
    bool nk;        /* q stored [N, K] (+ transpose before matmul), else [K, N] */
    int64_t M, K, N;
    int64_t block;  /* along K; K = per-channel */
    bool zero_zp;   /* all zero points 0 */
    bool f32;       /* float32 activations and scales (else float16) */
    float x_fill;   /* != 0: every activation is x_fill and scales are (1..8) / 2^14 (else |x| <= 1, scales (1..8) / 256) */
    int zp_span;    /* != 0: zero points from the lowest zp_span values (else any) */
} QCase;

/* Whether the rewritten product of c pairs its scales with its zero points (k_matvec.h sz_paired):
 * 4-bit float16 with zero points on the float16-pair kernel, forced here by WEBNNC_MATVEC_HALF=1. */
static bool expect_paired(const QCase *c) {
    const char *half = getenv("WEBNNC_MATVEC_HALF"), *paired = getenv("WEBNNC_MATVEC_PAIRED");
    return dtype_bits(c->qt) == 4 && !c->f32 && !c->zero_zp && half && !strcmp(half, "1") && !(paired && !strcmp(paired, "0"));
}

static void put_q(uint8_t *buf, DType qt, int64_t i, int v) {
    if (dtype_bits(qt) == 8) {
        buf[i] = (uint8_t)v;
        return;
    }
    buf[i / 2] = (uint8_t)(buf[i / 2] | ((v & 15) << (4 * (i % 2))));
}

static void check_quant(const QCase *c) {
    DType dt = c->f32 ? DT_F32 : DT_F16;
    size_t es = c->f32 ? 4 : 2;
    int64_t M = c->M, K = c->K, N = c->N, nb = K / c->block;
    bool sgn = dtype_is_signed(c->qt);
    int bits = dtype_bits(c->qt), lo = sgn ? -(1 << (bits - 1)) : 0, span = 1 << bits;
    int *qv = malloc(sizeof(int) * (size_t)(K * N)), *zv = malloc(sizeof(int) * (size_t)(N * nb));
    float *sv = malloc(sizeof(float) * (size_t)(N * nb)), *xf = malloc(sizeof(float) * (size_t)(M * K));
    for (int64_t i = 0; i < K * N; i++) qv[i] = lo + irand(span); /* logical q[n][k] at n*K+k */
    for (int64_t i = 0; i < N * nb; i++) {
        zv[i] = c->zero_zp ? 0 : lo + irand(c->zp_span ? c->zp_span : span);
        sv[i] = (float)(1 + irand(8)) / (c->x_fill != 0 ? 16384.0f : 256.0f); /* logical [n][block] */
    }
    for (int64_t i = 0; i < M * K; i++) xf[i] = c->x_fill != 0 ? c->x_fill : frand();
    /* storage in the graph's orientation: [N, K] (scale [N, nb]) or [K, N] (scale [nb, N]) */
    uint64_t qbytes = dtype_storage_bytes(c->qt, (uint64_t)(K * N)), zbytes = dtype_storage_bytes(c->qt, (uint64_t)(N * nb));
    uint8_t *qs = calloc(qbytes, 1), *zs = calloc(zbytes, 1);
    uint8_t *ss = malloc(es * (size_t)(N * nb)), *xs = malloc(es * (size_t)(M * K));
    for (int64_t n = 0; n < N; n++) {
        for (int64_t k = 0; k < K; k++) put_q(qs, c->qt, c->nk ? n * K + k : k * N + n, qv[n * K + k]);
        for (int64_t b = 0; b < nb; b++) {
            int64_t at = c->nk ? n * nb + b : b * N + n;
            put_q(zs, c->qt, at, zv[n * nb + b]);
            if (c->f32) ((float *)ss)[at] = sv[n * nb + b];
            else ((uint16_t *)ss)[at] = f2h(sv[n * nb + b]);
        }
    }
    for (int64_t i = 0; i < M * K; i++) {
        if (c->f32) ((float *)xs)[i] = xf[i];
        else ((uint16_t *)xs)[i] = f2h(xf[i]);
    }
    double *want = calloc((size_t)(M * N), sizeof(double)), *mag = calloc((size_t)(M * N), sizeof(double));
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++) {
                int64_t b = k / c->block;
                double w = (double)(qv[n * K + k] - zv[n * nb + b]) * sv[n * nb + b];
                want[m * N + n] += (double)xf[m * K + k] * w;
                mag[m * N + n] += fabs((double)xf[m * K + k] * w);
            }
    void *out = malloc(es * (size_t)(M * N));
    int64_t qshape[2] = {c->nk ? N : K, c->nk ? K : N}, sshape[2] = {c->nk ? N : nb, c->nk ? nb : N};
    for (int fuse = 1; fuse >= 0; fuse--) {
        Graph *g = graph_new("t");
        Value *x = tu_input(g, "x", dt, 3, (int64_t[]){1, M, K});
        Value *q = graph_add_const(g, "q", c->qt, 2, qshape, qs, qbytes);
        Value *s = graph_add_const(g, "s", dt, 2, sshape, ss, es * (uint64_t)(N * nb));
        Value *z = graph_add_const(g, "z", c->qt, 2, sshape, zs, zbytes);
        Value *w = graph_finish(g, tu_node(g, OP_DEQUANTIZE_LINEAR, 3, q, s, z));
        if (c->nk) {
            Node *t = tu_node(g, OP_TRANSPOSE, 1, w);
            node_set_ints(g, t, "permutation", 2, (int64_t[]){1, 0});
            w = graph_finish(g, t);
        }
        ck_assert_msg(w != NULL, "%s", diag_message());
        graph_add_output(g, graph_finish(g, tu_node(g, OP_MATMUL, 2, x, w)));
        int disp = 0;
        ck_assert_msg(run(g, fuse, (const void *[]){xs}, out, es * (uint64_t)(M * N), &disp) == 0, "%s", diag_message());
        if (fuse) ck_assert_msg(disp == 1, "fused dequantize + matmul should be one dispatch, got %d", disp);
        else ck_assert_msg(disp >= 2, "the unfused chain ran as %d dispatch(es)", disp);
        if (fuse) { /* resident: q and the scales, the zero points apart or paired with them (4 bytes a scale) */
            uint64_t sbytes = es * (uint64_t)(N * nb), want_bytes = qbytes + (expect_paired(c) ? 2 * sbytes : sbytes + (c->zero_zp ? 0 : zbytes));
            ck_assert_msg(run_const_bytes == want_bytes, "resident constants: %llu bytes, want %llu (scales %s)",
                          (unsigned long long)run_const_bytes, (unsigned long long)want_bytes, expect_paired(c) ? "paired" : "apart");
        }
        expect_close(fuse ? "fused" : "unfused", dt, out, want, mag, M * N);
        graph_free(g);
    }
    free(qv), free(zv), free(sv), free(xf), free(qs), free(zs), free(ss), free(xs), free(want), free(mag), free(out);
}

START_TEST(u4_nk_block32) { check_quant(&(QCase){DT_U4, true, 1, 256, 40, 32, false}); }
END_TEST
START_TEST(u4_kn_block16_m2) { check_quant(&(QCase){DT_U4, false, 2, 96, 33, 16, false}); }
END_TEST
START_TEST(i4_nk_block64) { check_quant(&(QCase){DT_I4, true, 1, 192, 17, 64, false}); }
END_TEST
START_TEST(u8_nk_per_channel) { check_quant(&(QCase){DT_U8, true, 1, 80, 9, 80, false}); }
END_TEST
START_TEST(i8_kn_zero_zp) { check_quant(&(QCase){DT_I8, false, 1, 64, 31, 32, true}); }
END_TEST
START_TEST(u4_odd_n_no_zp) { check_quant(&(QCase){DT_U4, true, 4, 48, 7, 16, true}); }
END_TEST
/* 16-byte units (32 int4) with blocks of 48: a block boundary inside every other unit, block
 * index by division (not a power of two); float32 activations and scales */
START_TEST(u4_block48_f32) { check_quant(&(QCase){DT_U4, true, 2, 192, 13, 48, false, true}); }
END_TEST
/* signed int4 with blocks of 16 (two blocks per unit), float32, [K, N] storage */
START_TEST(i4_kn_block16_f32) { check_quant(&(QCase){DT_I4, false, 1, 160, 11, 16, false, true}); }
END_TEST
/* K = 2080: 65 units of 32 (odd count: the two-unit loop and its tail), N % rows != 0 */
START_TEST(u4_long_rows) { check_quant(&(QCase){DT_U4, true, 1, 2080, 19, 32, false}); }
END_TEST
/* 8-bit, float32, K not a multiple of 32 */
START_TEST(i8_f32_k208) { check_quant(&(QCase){DT_I8, true, 3, 208, 10, 16, false, true}); }
END_TEST
/* 4-bit rows of K = 80 (8-byte units, K % 32 != 0) with signed zero points */
START_TEST(i4_half_units) { check_quant(&(QCase){DT_I4, true, 1, 80, 21, 16, false}); }
END_TEST

/* The float16-pair kernel (WEBNNC_MATVEC_HALF=1; the default on GPUs, while CPU devices run the
 * exact kernel) on the float16 layouts above; the device must have float16 arithmetic. */
static void force_half(bool on) {
    if (!on) {
        unsetenv("WEBNNC_MATVEC_HALF");
        return;
    }
    ck_assert_msg(wnrt_context_device(rt_ctx)->float16, "the device has no float16 arithmetic: the float16-pair kernel cannot be tested");
    setenv("WEBNNC_MATVEC_HALF", "1", 1);
}
START_TEST(half_kernel) {
    force_half(true);
    check_quant(&(QCase){DT_U4, true, 1, 2080, 19, 32, false});
    check_quant(&(QCase){DT_U4, true, 1, 256, 40, 32, false});
    check_quant(&(QCase){DT_I4, true, 1, 80, 21, 16, false});
    check_quant(&(QCase){DT_U4, true, 2, 192, 13, 48, false});
    check_quant(&(QCase){DT_I4, true, 4, 48, 7, 16, true});
    check_quant(&(QCase){DT_U4, false, 2, 96, 33, 16, false});
    force_half(false);
}
END_TEST
/* The float16-pair kernel with zero points apart from the scales (WEBNNC_MATVEC_PAIRED=0; also
 * where another node reads them). */
START_TEST(half_kernel_zp_apart) {
    force_half(true);
    setenv("WEBNNC_MATVEC_PAIRED", "0", 1);
    check_quant(&(QCase){DT_U4, true, 1, 256, 40, 32, false});
    check_quant(&(QCase){DT_I4, true, 1, 80, 21, 16, false});
    check_quant(&(QCase){DT_U4, false, 2, 96, 33, 16, false});
    check_quant(&(QCase){DT_U4, true, 1, 256, 40, 32, false, .x_fill = 30720, .zp_span = 2});
    unsetenv("WEBNNC_MATVEC_PAIRED");
    force_half(false);
}
END_TEST
/* activations of 30720 with non-negative q - zp: the float16 partial sums of the float16-pair
 * kernel overflow in most words, and the invocations recompute their units exactly (without the
 * fallback the outputs are Inf) */
START_TEST(half_overflow_fallback) {
    force_half(true);
    check_quant(&(QCase){DT_U4, true, 1, 256, 40, 32, true, .x_fill = 30720});
    check_quant(&(QCase){DT_U4, true, 2, 96, 9, 16, true, .x_fill = 30720});
    /* with zero points (q - zp >= -1): the exact recomputation reads them from the paired words */
    check_quant(&(QCase){DT_U4, true, 1, 256, 40, 32, false, .x_fill = 30720, .zp_span = 2});
    check_quant(&(QCase){DT_I4, true, 2, 96, 9, 16, false, .x_fill = 30720, .zp_span = 2});
    force_half(false);
}
END_TEST

/* The weights' geometry read from the parameters instead of fixed at pipeline creation
 * (WEBNNC_MATVEC_FIXED=0; the float16-pair kernel with zero points always reads them). */
START_TEST(geometry_from_params) {
    setenv("WEBNNC_MATVEC_FIXED", "0", 1);
    check_quant(&(QCase){DT_U4, true, 1, 256, 40, 32, false});
    check_quant(&(QCase){DT_U4, false, 2, 96, 33, 16, false});
    check_quant(&(QCase){DT_U4, true, 2, 192, 13, 48, false, true});
    check_quant(&(QCase){DT_I8, true, 3, 208, 10, 16, false, true});
    check_quant(&(QCase){DT_I4, true, 1, 80, 21, 16, false});
    unsetenv("WEBNNC_MATVEC_FIXED");
}
END_TEST

/* The workgroup reduction over workgroups of whole subgroups that are no power of two (GPUs round
 * long rows' workgroups up to one unit per invocation: k_matvec.c MV_LONG_WG; forced here). */
START_TEST(workgroups_not_power_of_two) {
    setenv("WEBNNC_MATVEC_TPR", "0", 1);
    static const char *sizes[] = {"96", "160"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        setenv("WEBNNC_MATVEC_WG", sizes[i], 1);
        check_quant(&(QCase){DT_U4, true, 1, 2080, 19, 32, false});
        check_quant(&(QCase){DT_U4, true, 2, 4864, 9, 32, false});
        check_quant(&(QCase){DT_I8, true, 3, 208, 10, 16, false, true});
        force_half(true);
        check_quant(&(QCase){DT_U4, true, 1, 2080, 19, 32, false});
        force_half(false);
    }
    unsetenv("WEBNNC_MATVEC_WG");
    unsetenv("WEBNNC_MATVEC_TPR");
}
END_TEST

/* Row groups of 2 .. subgroup-size invocations (rt_each_matvec_tpr): 1-4 activation rows, partial
 * row groups, 8-byte and split units, long rows, 8-bit, and the float16-pair kernel with its
 * overflow fallback. */
static void cluster_cases(void) {
    check_quant(&(QCase){DT_U4, true, 1, 256, 40, 32, false});
    check_quant(&(QCase){DT_U4, true, 4, 48, 7, 16, true});
    check_quant(&(QCase){DT_I4, true, 1, 80, 21, 16, false});
    check_quant(&(QCase){DT_U4, true, 2, 192, 13, 48, false, true});
    check_quant(&(QCase){DT_U4, true, 1, 2080, 19, 32, false});
    check_quant(&(QCase){DT_I8, true, 3, 208, 10, 16, false, true});
    force_half(true);
    check_quant(&(QCase){DT_U4, true, 2, 96, 33, 16, false});
    check_quant(&(QCase){DT_U4, true, 1, 256, 40, 32, true, .x_fill = 30720});
    force_half(false);
}
START_TEST(cluster_row_groups) { rt_each_matvec_tpr(cluster_cases); }
END_TEST

/* ---- not rewritten: K % 16 != 0 runs the generic kernels ------------------------------------ */
START_TEST(k_not_multiple_of_16) {
    float bs[20 * 3], xs[20], out[3];
    for (int i = 0; i < 60; i++) bs[i] = frand();
    for (int i = 0; i < 20; i++) xs[i] = frand();
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){1, 20});
    Value *b = graph_add_const(g, "b", DT_F32, 2, (int64_t[]){20, 3}, bs, sizeof bs);
    graph_add_output(g, graph_finish(g, tu_node(g, OP_MATMUL, 2, x, b)));
    int disp;
    ck_assert_msg(run(g, true, (const void *[]){xs}, out, sizeof out, &disp) == 0, "%s", diag_message());
    for (int n = 0; n < 3; n++) {
        double want = 0;
        for (int k = 0; k < 20; k++) want += (double)xs[k] * bs[k * 3 + n];
        ck_assert_msg(fabs(out[n] - want) < 1e-5, "n %d: got %g want %g", n, out[n], want);
    }
    graph_free(g);
}
END_TEST

/* ---- dense copies: 16-byte vectors + element tail, or element-wise when unaligned ------------ */

/* slice(x[start + count], start, count) of dtype dt: a dense copy from element `start`; want_disp
 * = dispatches expected (2: vectors + tail, 1: one path). */
static void check_dense_copy(DType dt, int64_t count, int64_t start, int want_disp) {
    uint64_t es = dtype_storage_bytes(dt, 1), total = (uint64_t)(start + count);
    uint8_t *in = malloc(total * es), *out = malloc((uint64_t)count * es);
    for (uint64_t i = 0; i < total * es; i++) in[i] = (uint8_t)irand(256);
    memset(out, 0, (uint64_t)count * es);
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", dt, 1, (int64_t[]){(int64_t)total});
    Node *n = tu_node(g, OP_SLICE, 1, x);
    node_set_ints(g, n, "starts", 1, (int64_t[]){start});
    node_set_dims(g, n, "sizes", 1, (Dim[]){dim_static(count)});
    graph_add_output(g, graph_finish(g, n));
    int disp = 0;
    ck_assert_msg(run(g, true, (const void *[]){in}, out, (uint64_t)count * es, &disp) == 0, "%s", diag_message());
    ck_assert_msg(disp == want_disp, "%s copy of %lld from %lld: %d dispatches, want %d", dtype_name(dt), (long long)count,
                  (long long)start, disp, want_disp);
    for (uint64_t i = 0; i < (uint64_t)count * es; i++)
        ck_assert_msg(out[i] == in[(uint64_t)start * es + i], "%s copy of %lld from %lld: byte %llu differs", dtype_name(dt),
                      (long long)count, (long long)start, (unsigned long long)i);
    graph_free(g);
    free(in), free(out);
}

START_TEST(copy_vectors_exact) { check_dense_copy(DT_I64, 3000, 0, 1); } /* 1500 vectors, 2 workgroups */
END_TEST
START_TEST(copy_vectors_tail) {
    check_dense_copy(DT_F16, 1001, 0, 2);  /* 125 vectors + 1 element */
    check_dense_copy(DT_U8, 1007, 0, 2);   /* 62 vectors + 15 bytes */
    check_dense_copy(DT_F32, 70001, 0, 2); /* 17500 vectors over many workgroups + 1 element */
}
END_TEST
START_TEST(copy_vectors_offset) { check_dense_copy(DT_F32, 101, 4, 2); } /* start 16 bytes in: aligned */
END_TEST
START_TEST(copy_unaligned_start) { check_dense_copy(DT_F32, 100, 3, 1); } /* 12 bytes in: element-wise */
END_TEST

/* ---- the plan-time re-layout helper -------------------------------------------------------- */
START_TEST(transpose_bits) {
    /* 4-bit [2, 3] = {1 2 3; 4 5 6} packed low nibble first -> [3, 2] = {1 4; 2 5; 3 6} */
    uint8_t src4[3] = {0x21, 0x43, 0x65}, dst4[3];
    plan_transpose_bits(src4, dst4, 4, 2, 3);
    ck_assert_uint_eq(dst4[0], 0x41);
    ck_assert_uint_eq(dst4[1], 0x52);
    ck_assert_uint_eq(dst4[2], 0x63);
    uint16_t src16[6] = {1, 2, 3, 4, 5, 6}, dst16[6];
    plan_transpose_bits(src16, dst16, 16, 2, 3);
    uint16_t want16[6] = {1, 4, 2, 5, 3, 6};
    ck_assert_mem_eq(dst16, want16, sizeof want16);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-matvec");
    TCase *tc = tcase_create("matvec");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, transpose_bits);
    tcase_add_test(tc, f16_kn);
    tcase_add_test(tc, geometry_from_params);
    tcase_add_test(tc, f16_nk_transposed);
    tcase_add_test(tc, f32_small_m);
    tcase_add_test(tc, f16_wide);
    tcase_add_test(tc, u4_nk_block32);
    tcase_add_test(tc, u4_kn_block16_m2);
    tcase_add_test(tc, i4_nk_block64);
    tcase_add_test(tc, u8_nk_per_channel);
    tcase_add_test(tc, i8_kn_zero_zp);
    tcase_add_test(tc, u4_odd_n_no_zp);
    tcase_add_test(tc, u4_block48_f32);
    tcase_add_test(tc, i4_kn_block16_f32);
    tcase_add_test(tc, u4_long_rows);
    tcase_add_test(tc, i8_f32_k208);
    tcase_add_test(tc, i4_half_units);
    tcase_add_test(tc, half_kernel);
    tcase_add_test(tc, half_kernel_zp_apart);
    tcase_add_test(tc, half_overflow_fallback);
    tcase_add_test(tc, cluster_row_groups);
    tcase_add_test(tc, workgroups_not_power_of_two);
    tcase_add_test(tc, k_not_multiple_of_16);
    tcase_add_test(tc, copy_vectors_exact);
    tcase_add_test(tc, copy_vectors_tail);
    tcase_add_test(tc, copy_vectors_offset);
    tcase_add_test(tc, copy_unaligned_start);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
