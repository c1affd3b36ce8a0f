/* test_rt_ext.c - the extension-op kernels quickGelu/silu, rmsNorm, skipRmsNorm, rotaryEmbedding and
 * gatherBlockQuantized on the Vulkan runtime against the CPU reference (lib/eval/eval_ext.c, ORT
 * semantics), random operands over several shapes and variants, float32 and float16. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_rt_ext.h"

/* f32: a few ulp; f16: one rounding of the f16 output (the kernels compute in f32). */
#define TOL_F32 2e-6
#define TOL_F16 1e-3

static double rtol(DType dt) { return dt == DT_F16 ? TOL_F16 : TOL_F32; }

static Node *node(Graph *g, OpId op, int n_in, Value *const *in) {
    Node *n = graph_new_node(g, op, NULL);
    for (int i = 0; i < n_in; i++) node_add_input(g, n, in[i]);
    return n;
}

static void insert(Graph *g, Node *n) { ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message()); }

/* ---- quickGelu / silu -------------------------------------------------------------------------- */

static void check_act(OpId op, DType dt, int64_t count, double alpha) {
    Graph *g = graph_new("t");
    unsigned s = 11;
    Value *x = ext_rand(g, "x", dt, 2, (int64_t[]){3, count}, &s, -8, 8);
    Node *n = node(g, op, 1, &x);
    if (alpha != 0) node_set_float(g, n, "alpha", alpha);
    insert(g, n);
    char label[64];
    snprintf(label, sizeof label, "%s %s alpha %g", op_name(op), dtype_name(dt), alpha);
    ext_check(g, n, rtol(dt), 1e-7, label);
    graph_free(g);
}

START_TEST(quick_gelu) {
    check_act(OP_QUICK_GELU, DT_F32, 1000, 0);
    check_act(OP_QUICK_GELU, DT_F32, 77, 0.5);
    check_act(OP_QUICK_GELU, DT_F16, 513, 0);
}
END_TEST

/* ---- rmsNorm / skipRmsNorm --------------------------------------------------------------------- */

static void check_rms(DType dt, DType scale_dt, int rank, const int64_t *shape, int axis) {
    Graph *g = graph_new("t");
    unsigned s = 5 + (unsigned)axis;
    int64_t size = 1;
    for (int i = axis; i < rank; i++) size *= shape[i];
    Value *in[2] = {ext_rand(g, "x", dt, rank, shape, &s, -3, 3), ext_rand(g, "scale", scale_dt, 1, &size, &s, -2, 2)};
    Node *n = node(g, OP_RMS_NORM, 2, in);
    node_set_uint(g, n, "axis", axis);
    node_set_float(g, n, "epsilon", 1e-5);
    insert(g, n);
    char label[96];
    snprintf(label, sizeof label, "rmsNorm %s/%s rank %d axis %d", dtype_name(dt), dtype_name(scale_dt), rank, axis);
    ext_check(g, n, rtol(dt == DT_F16 || scale_dt == DT_F16 ? DT_F16 : DT_F32), 1e-6, label);
    graph_free(g);
}

START_TEST(rms_norm) {
    check_rms(DT_F32, DT_F32, 3, (int64_t[]){2, 3, 64}, 2);
    check_rms(DT_F32, DT_F32, 3, (int64_t[]){2, 3, 1000}, 2); /* rows longer than the workgroup */
    check_rms(DT_F32, DT_F32, 2, (int64_t[]){3, 2500}, 1);    /* ... than the values it holds (ext_rms_norm.comp HELD) */
    check_rms(DT_F32, DT_F32, 3, (int64_t[]){2, 5, 7}, 1);    /* normalize over the last two dims */
    check_rms(DT_F32, DT_F32, 2, (int64_t[]){4, 9}, 0);       /* one row: the whole tensor */
    check_rms(DT_F16, DT_F16, 3, (int64_t[]){1, 4, 896}, 2);
    check_rms(DT_F32, DT_F16, 2, (int64_t[]){3, 128}, 1);     /* stashType-style mixed dtypes */
}
END_TEST

static void check_skip(DType dt, int rank, const int64_t *shape, int skip_rank, bool bias, bool sum) {
    Graph *g = graph_new("t");
    unsigned s = 9;
    int64_t H = shape[rank - 1];
    Value *in[4] = {ext_rand(g, "x", dt, rank, shape, &s, -3, 3),
                    ext_rand(g, "skip", dt, skip_rank, shape + rank - skip_rank, &s, -3, 3),
                    ext_rand(g, "scale", dt, 1, &H, &s, -2, 2), bias ? ext_rand(g, "bias", dt, 1, &H, &s, -1, 1) : NULL};
    Node *n = node(g, OP_SKIP_RMS_NORM, bias ? 4 : 3, in);
    node_set_float(g, n, "epsilon", 1e-6);
    if (sum) node_set_uint(g, n, "outputCount", 2);
    insert(g, n);
    char label[96];
    snprintf(label, sizeof label, "skipRmsNorm %s rank %d skip rank %d bias %d sum %d", dtype_name(dt), rank, skip_rank, bias,
             sum);
    ext_check(g, n, rtol(dt), 1e-6, label);
    graph_free(g);
}

START_TEST(skip_rms_norm) {
    check_skip(DT_F32, 3, (int64_t[]){2, 3, 64}, 3, true, true);
    check_skip(DT_F32, 3, (int64_t[]){2, 3, 300}, 2, false, true); /* skip [S, H] broadcast over batch */
    check_skip(DT_F32, 3, (int64_t[]){2, 4, 48}, 1, true, false);  /* skip [H] */
    check_skip(DT_F16, 3, (int64_t[]){1, 5, 896}, 3, true, true);
    check_skip(DT_F32, 3, (int64_t[]){1, 2, 2100}, 3, true, true); /* rows past the held values, sum written */
}
END_TEST

/* ---- rotaryEmbedding --------------------------------------------------------------------------- */

typedef struct {
    DType dt, pos_dt;
    bool four_d, interleaved;
    int pos_form; /* 0 offset [1], 1 [B, S], 2 absent */
    int64_t B, S, N, H, rot, max_pos;
    int64_t offset;
} RotCase;

static void check_rotary(RotCase c) {
    Graph *g = graph_new("t");
    unsigned s = 3;
    int64_t half = c.rot / 2;
    int64_t xs[4] = {c.B, c.four_d ? c.N : c.S, c.four_d ? c.S : c.N * c.H, c.H};
    Value *x = ext_rand(g, "x", c.dt, c.four_d ? 4 : 3, xs, &s, -2, 2), *pos = NULL, *cs, *sn;
    if (c.pos_form == 2) {
        int64_t cshape[3] = {c.B, c.S, half};
        cs = ext_rand(g, "cos", c.dt, 3, cshape, &s, -1, 1);
        sn = ext_rand(g, "sin", c.dt, 3, cshape, &s, -1, 1);
    } else {
        int64_t cshape[2] = {c.max_pos, half};
        cs = ext_rand(g, "cos", c.dt, 2, cshape, &s, -1, 1);
        sn = ext_rand(g, "sin", c.dt, 2, cshape, &s, -1, 1);
        if (c.pos_form == 0) {
            pos = ext_ints(g, "pos", c.pos_dt, 1, (int64_t[]){1}, &c.offset);
        } else {
            int64_t ids[64];
            for (int64_t i = 0; i < c.B * c.S; i++) ids[i] = (i * 7 + c.offset) % (c.max_pos + 4) - 2; /* some clamp */
            pos = ext_ints(g, "pos", c.pos_dt, 2, (int64_t[]){c.B, c.S}, ids);
        }
    }
    Node *n = node(g, OP_ROTARY_EMBEDDING, 4, (Value *[]){x, pos, cs, sn});
    node_set_bool(g, n, "interleaved", c.interleaved);
    if (!c.four_d) node_set_uint(g, n, "numHeads", c.N);
    if (c.rot != c.H) node_set_uint(g, n, "rotaryEmbeddingDim", c.rot);
    insert(g, n);
    char label[128];
    snprintf(label, sizeof label, "rotary %s %dD interleaved %d pos form %d H %lld rot %lld", dtype_name(c.dt),
             c.four_d ? 4 : 3, c.interleaved, c.pos_form, (long long)c.H, (long long)c.rot);
    ext_check(g, n, rtol(c.dt), 1e-6, label);
    graph_free(g);
}

START_TEST(rotary) {
    check_rotary((RotCase){DT_F32, DT_I64, false, false, 1, 2, 5, 3, 16, 16, 12, 0});
    check_rotary((RotCase){DT_F32, DT_I64, false, true, 1, 2, 5, 3, 16, 16, 12, 3});
    check_rotary((RotCase){DT_F32, DT_I32, true, false, 1, 2, 4, 2, 32, 16, 20, 1}); /* 4-D, partial */
    check_rotary((RotCase){DT_F32, DT_I64, true, true, 0, 1, 3, 4, 8, 8, 16, 5});   /* offset form */
    check_rotary((RotCase){DT_F32, DT_I32, false, false, 0, 1, 3, 2, 8, 8, 6, 4});  /* offset, clamped */
    check_rotary((RotCase){DT_F32, DT_I64, false, false, 2, 2, 3, 2, 12, 8, 0, 0}); /* per-token caches */
    check_rotary((RotCase){DT_F16, DT_I64, false, false, 1, 1, 7, 4, 64, 64, 32, 2});
    check_rotary((RotCase){DT_F16, DT_I64, true, true, 1, 2, 3, 2, 64, 32, 16, 0});
}
END_TEST

/* ---- gatherBlockQuantized ---------------------------------------------------------------------- */

typedef struct {
    DType data_dt, out_dt, idx_dt;
    int bits, block, ga, qa;
    int rank;
    int64_t shape[4]; /* stored data shape */
    bool zp;
    int idx_rank;
    int64_t idx_shape[2];
} GbqCase;

static void check_gbq(GbqCase c) {
    Graph *g = graph_new("t");
    unsigned s = 17;
    bool packed = c.data_dt == DT_U8;
    int64_t comps = packed ? 8 / c.bits : 1, qdim = c.shape[c.qa] * comps, nb = (qdim + c.block - 1) / c.block;
    int64_t sshape[4], zshape[4];
    for (int i = 0; i < c.rank; i++) sshape[i] = zshape[i] = c.shape[i];
    sshape[c.qa] = nb;
    zshape[c.qa] = packed ? (nb + comps - 1) / comps : nb;
    Value *data = packed ? ext_rand(g, "data", DT_U8, c.rank, c.shape, &s, 0, 0)
                         : ext_rand(g, "data", c.data_dt, c.rank, c.shape, &s, c.data_dt == DT_I4 ? -8 : 0, c.data_dt == DT_I4 ? 8 : 16);
    Value *scales = ext_rand(g, "scales", c.out_dt, c.rank, sshape, &s, 0.01, 0.2);
    Value *zp = NULL;
    if (c.zp)
        zp = packed ? ext_rand(g, "zp", DT_U8, c.rank, zshape, &s, 0, 0)
                    : ext_rand(g, "zp", c.data_dt, c.rank, zshape, &s, c.data_dt == DT_I4 ? -8 : 0, c.data_dt == DT_I4 ? 8 : 16);
    int64_t D = c.ga == c.qa ? qdim : c.shape[c.ga], idx[8], icount = 1;
    for (int i = 0; i < c.idx_rank; i++) icount *= c.idx_shape[i];
    for (int64_t i = 0; i < icount; i++) idx[i] = (i * 5 + 1) % (D + 3) - (i % 3 == 2 ? D : 1); /* incl. negative, out of range */
    Value *ix = ext_ints(g, "idx", c.idx_dt, c.idx_rank, c.idx_shape, idx);
    Node *n = node(g, OP_GATHER_BLOCK_QUANTIZED, c.zp ? 4 : 3, (Value *[]){data, ix, scales, zp});
    node_set_uint(g, n, "bits", c.bits);
    node_set_uint(g, n, "blockSize", c.block);
    node_set_uint(g, n, "gatherAxis", c.ga);
    node_set_uint(g, n, "quantizeAxis", c.qa);
    insert(g, n);
    char label[128];
    snprintf(label, sizeof label, "gbq %s->%s bits %d block %d ga %d qa %d zp %d", dtype_name(c.data_dt),
             dtype_name(c.out_dt), c.bits, c.block, c.ga, c.qa, c.zp);
    ext_check(g, n, rtol(c.out_dt), 1e-7, label);
    graph_free(g);
}

/* Every case in one dispatch, then with the table bound 2 (and 3) rows at a time, as a table bigger than
 * maxStorageBufferRange runs (WEBNNC_GBQ_ROWS: each dispatch writes the outputs of its rows, the
 * first also the zeros of out-of-range indices; the gather-columns case keeps one binding). */
START_TEST(gather_block_quantized) {
    static const char *const rows[] = {NULL, "2", "3"};
    for (int mode = 0; mode < 3; mode++) {
        if (rows[mode]) setenv("WEBNNC_GBQ_ROWS", rows[mode], 1);
        check_gbq((GbqCase){DT_U8, DT_F32, DT_I64, 4, 32, 0, 1, 2, {10, 40}, false, 1, {5}});   /* 80 values, last block partial */
        check_gbq((GbqCase){DT_U8, DT_F32, DT_I32, 4, 16, 0, 1, 2, {7, 24}, true, 2, {2, 3}}); /* 3 blocks: odd zp row */
        check_gbq((GbqCase){DT_U8, DT_F16, DT_I64, 8, 16, 0, 1, 2, {6, 48}, true, 1, {4}});
        check_gbq((GbqCase){DT_U8, DT_F32, DT_I64, 2, 16, 0, 1, 2, {5, 12}, true, 1, {3}});
        check_gbq((GbqCase){DT_U4, DT_F32, DT_I64, 4, 16, 0, 1, 2, {9, 32}, true, 1, {6}});
        check_gbq((GbqCase){DT_I4, DT_F16, DT_I32, 4, 16, 1, 0, 2, {32, 6}, true, 1, {4}}); /* gather columns, quantized rows */
        check_gbq((GbqCase){DT_I4, DT_F32, DT_I64, 4, 16, 0, 2, 3, {3, 2, 20}, false, 1, {5}});
        unsetenv("WEBNNC_GBQ_ROWS");
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-ext");
    TCase *tc = tcase_create("ext");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, quick_gelu);
    tcase_add_test(tc, rms_norm);
    tcase_add_test(tc, skip_rms_norm);
    tcase_add_test(tc, rotary);
    tcase_add_test(tc, gather_block_quantized);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
