/* test_decompose.c - the decomposition passes (passes/decompose_*.c) against the CPU reference
 * evaluation of the extension ops (lib/eval/eval_ext.c, ORT contrib-op semantics) on random inputs,
 * over many variants: matmulNBits bits 2/4/8, block sizes 16..128, K not a multiple of the block,
 * packed/float/absent zero points, bias, float16, negative scales, rank-1 input; rmsNorm/skipRmsNorm
 * float16 with float32 compute, bias, broadcast skip, sum output; rotaryEmbedding half-split and
 * interleaved, partial rotary, 3-D/4-D, head count inference, position offset, caches without
 * positions; gatherBlockQuantized packed 4-bit/2-bit/8-bit, int4/uint4 data, zero points, ragged
 * last block, negative indices; quickGelu.  Also hand-computed reference values and clean
 * failures on invalid extension nodes. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "decompose_test_util.h"
#include "core.h"
#include "eval.h"
#include "eval_internal.h"
#include "pass.h"
#include "test_util.h"

static Graph *g;

static void setup(void) {
    diag_clear();
    g = graph_new("t");
}

static void teardown(void) {
    graph_free(g);
    g = NULL;
}

#define SHAPE(...) (const int64_t[]){__VA_ARGS__}, (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
static Value *rnd(const char *name, DType dt, const int64_t *shape, int rank, double lo, double hi) {
    return dt_random(g, name, dt, rank, shape, lo, hi);
}

static double tol_for(DType dt) { return dt == DT_F16 ? 4e-3 : 2e-5; }

/* ---- matmulNBits ------------------------------------------------------------------------------ */

typedef struct {
    int bits, block, k, n;
    int zp;      /* 0 none, 1 packed uint8, 2 float */
    bool bias, f16, rank1;
} NBitsCase;

static void run_nbits(const NBitsCase *c) {
    DType dt = c->f16 ? DT_F16 : DT_F32;
    int64_t kb = (c->k + c->block - 1) / c->block, blob = c->block * c->bits / 8, zpb = (kb * c->bits + 7) / 8;
    Value *a = c->rank1 ? rnd("a", dt, SHAPE(c->k), -1, 1) : rnd("a", dt, SHAPE(2, 3, c->k), -1, 1);
    Value *b = rnd("b", DT_U8, SHAPE(c->n, kb, blob), 0, 255);
    Value *s = rnd("s", dt, SHAPE(c->n, kb), -0.2, 0.2); /* signed scales, as symmetric MLAS writes */
    Value *z = c->zp == 1 ? rnd("z", DT_U8, SHAPE(c->n, zpb), 0, 255) : c->zp == 2 ? rnd("z", dt, SHAPE(c->n, kb), 0, 3) : NULL;
    Value *bias = c->bias ? rnd("bias", dt, SHAPE(c->n), -1, 1) : NULL;
    Node *n = dt_node(g, OP_MATMUL_NBITS, 5, (Value *[]){a, b, s, z, bias});
    node_set_uint(g, n, "k", c->k);
    node_set_uint(g, n, "n", c->n);
    node_set_uint(g, n, "bits", c->bits);
    node_set_uint(g, n, "blockSize", c->block);
    dt_insert(g, n);
    double tol = tol_for(dt) * (c->f16 ? 4 : 1);
    dt_check(g, n, "decompose_matmul_nbits", tol, tol);
}

START_TEST(matmul_nbits_variants) {
    static const int bits[] = {2, 4, 8}, blocks[] = {16, 32, 64, 128};
    int i = 0;
    for (int bi = 0; bi < 3; bi++)
        for (int bl = 0; bl < 4; bl++)
            for (int zp = 0; zp < 3; zp++) {
                dt_seed((uint64_t)++i);
                NBitsCase c = {bits[bi], blocks[bl], blocks[bl] * 2 + (i % 3 == 0 ? 0 : 7 * (i % 5) + 1), 3 + i % 4, zp,
                               i % 2 == 0, i % 4 == 1, i % 7 == 3};
                teardown();
                setup();
                run_nbits(&c);
            }
}
END_TEST

/* Hand-computed: K = 16 (one block), N = 2, bits 4, default zero point 8.
 * Row 0: q = 0..15 (two per byte, low nibble first), scale -0.5 -> w[k] = (k - 8) * -0.5.
 * Row 1: q = 9 everywhere, scale 2 -> w = 2.  a = ones: y0 = sum (8-k)/2 = 4, y1 = 32. */
START_TEST(matmul_nbits_hand_computed) {
    double bytes[16], ones[16], sc[2] = {-0.5, 2};
    for (int i = 0; i < 8; i++) bytes[i] = (double)((2 * i) | ((2 * i + 1) << 4)), bytes[8 + i] = 0x99;
    for (int i = 0; i < 16; i++) ones[i] = 1;
    Value *a = dt_values(g, "a", DT_F32, 2, (const int64_t[]){1, 16}, ones);
    Value *b = dt_values(g, "b", DT_U8, 3, (const int64_t[]){2, 1, 8}, bytes);
    Value *s = dt_values(g, "s", DT_F32, 2, (const int64_t[]){2, 1}, sc);
    Node *n = dt_node(g, OP_MATMUL_NBITS, 3, (Value *[]){a, b, s});
    node_set_uint(g, n, "k", 16);
    node_set_uint(g, n, "n", 2);
    node_set_uint(g, n, "bits", 4);
    node_set_uint(g, n, "blockSize", 16);
    dt_insert(g, n);
    const void *out[1];
    uint64_t nb[1];
    ck_assert_int_eq(eval_node(g, n, out, nb), 0);
    ck_assert_float_eq(((const float *)out[0])[0], 4.0f);
    ck_assert_float_eq(((const float *)out[0])[1], 32.0f);
    dt_check(g, n, "decompose_matmul_nbits", 1e-6, 0);
}
END_TEST

START_TEST(matmul_nbits_rejects_dynamic_weight) {
    Dim bs[3] = {dim_static(4), dim_static(1), dim_static(8)};
    Value *a = rnd("a", DT_F32, SHAPE(1, 16), -1, 1);
    Value *b = graph_add_input(g, "b", DT_U8, 3, bs);
    Value *s = rnd("s", DT_F32, SHAPE(4, 1), -1, 1);
    Node *n = dt_node(g, OP_MATMUL_NBITS, 3, (Value *[]){a, b, s});
    node_set_uint(g, n, "k", 16);
    node_set_uint(g, n, "n", 4);
    node_set_uint(g, n, "bits", 4);
    node_set_uint(g, n, "blockSize", 16);
    dt_insert(g, n);
    graph_add_output(g, n->outputs[0]);
    const char *names[] = {"decompose_matmul_nbits"};
    ck_assert_int_eq(pass_run_list(g, names, 1, NULL), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "must be a constant"));
}
END_TEST

/* Invalid options and shapes fail at insertion with a diagnostic, never crash. */
START_TEST(matmul_nbits_invalid_nodes) {
    static const struct { int64_t k, n, bits, block; } bad[] = {{16, 4, 3, 16}, {16, 4, 4, 24}, {17, 4, 4, 16},
                                                               {16, 5, 4, 16}, {0, 4, 4, 16}, {16, 4, 4, 8}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        diag_clear();
        Value *a = rnd("a", DT_F32, SHAPE(1, 16), -1, 1);
        Value *b = rnd("b", DT_U8, SHAPE(4, 1, 8), 0, 255);
        Value *s = rnd("s", DT_F32, SHAPE(4, 1), -1, 1);
        Node *n = dt_node(g, OP_MATMUL_NBITS, 3, (Value *[]){a, b, s});
        node_set_uint(g, n, "k", bad[i].k);
        node_set_uint(g, n, "n", bad[i].n);
        node_set_uint(g, n, "bits", bad[i].bits);
        node_set_uint(g, n, "blockSize", bad[i].block);
        ck_assert_int_eq(graph_insert_node(g, n), -1);
        ck_assert_ptr_nonnull(strstr(diag_message(), "node ext"));
    }
}
END_TEST

/* ---- rmsNorm / skipRmsNorm --------------------------------------------------------------------- */

START_TEST(rms_norm_variants) {
    for (int i = 0; i < 12; i++) {
        teardown();
        setup();
        dt_seed(100 + (uint64_t)i);
        DType dt = i % 2 ? DT_F16 : DT_F32, st = (i % 6 == 5) ? DT_F32 : dt;
        int axis = i % 3 == 2 ? 1 : 2;
        Value *x = rnd("x", dt, SHAPE(2, 3, 8), -3, 3);
        Value *s = axis == 1 ? rnd("s", st, SHAPE(24), 0.5, 1.5) : rnd("s", st, SHAPE(8), -1.5, 1.5);
        Node *n = dt_node(g, OP_RMS_NORM, 2, (Value *[]){x, s});
        node_set_uint(g, n, "axis", axis);
        node_set_float(g, n, "epsilon", i % 4 ? 1e-6 : 1e-2);
        node_set_int(g, n, "stashType", i % 4 == 3 ? 0 : 1);
        dt_insert(g, n);
        dt_check(g, n, "decompose_rms_norm", tol_for(st == DT_F16 || dt == DT_F16 ? DT_F16 : DT_F32),
                 tol_for(dt));
    }
}
END_TEST

/* x = [3, 4] over one row: mean square = 12.5, rms = sqrt(12.5 + 0.5) = sqrt(13); scale 2. */
START_TEST(rms_norm_hand_computed) {
    Value *x = dt_values(g, "x", DT_F32, 2, (const int64_t[]){1, 2}, (const double[]){3, 4});
    Value *s = dt_values(g, "s", DT_F32, 1, (const int64_t[]){2}, (const double[]){2, 2});
    Node *n = dt_node(g, OP_RMS_NORM, 2, (Value *[]){x, s});
    node_set_uint(g, n, "axis", 1);
    node_set_float(g, n, "epsilon", 0.5);
    dt_insert(g, n);
    const void *out[1];
    uint64_t nb[1];
    ck_assert_int_eq(eval_node(g, n, out, nb), 0);
    ck_assert_float_eq_tol(((const float *)out[0])[0], (float)(6 / sqrt(13)), 1e-6);
    ck_assert_float_eq_tol(((const float *)out[0])[1], (float)(8 / sqrt(13)), 1e-6);
    dt_check(g, n, "decompose_rms_norm", 1e-6, 1e-6);
}
END_TEST

START_TEST(skip_rms_norm_variants) {
    for (int i = 0; i < 8; i++) {
        teardown();
        setup();
        dt_seed(200 + (uint64_t)i);
        DType dt = i % 2 ? DT_F16 : DT_F32;
        Value *x = rnd("x", dt, SHAPE(2, 3, 16), -2, 2);
        Value *skip = i % 4 >= 2 ? rnd("skip", dt, SHAPE(3, 16), -2, 2) : rnd("skip", dt, SHAPE(2, 3, 16), -2, 2);
        Value *gamma = rnd("gamma", dt, SHAPE(16), -1, 1);
        Value *bias = i % 3 == 0 ? rnd("bias", dt, SHAPE(16), -1, 1) : NULL;
        Node *n = dt_node(g, OP_SKIP_RMS_NORM, 4, (Value *[]){x, skip, gamma, bias});
        node_set_float(g, n, "epsilon", 1e-6);
        node_set_uint(g, n, "outputCount", i < 4 ? 2 : 1);
        dt_insert(g, n);
        ck_assert_int_eq(n->n_outputs, i < 4 ? 2 : 1);
        dt_check(g, n, "decompose_rms_norm", tol_for(dt), tol_for(dt));
    }
}
END_TEST

/* ---- rotaryEmbedding ------------------------------------------------------------------------------ */

typedef struct {
    bool four_d, inter;
    int heads, head, rot; /* rot 0 = full head */
    int pos_form;         /* 0 offset [1], 1 [B, S], 2 none (caches [B, S, half]) */
    bool give_heads, f16;
} RotCase;

static void run_rotary(const RotCase *c) {
    DType dt = c->f16 ? DT_F16 : DT_F32;
    int64_t B = 2, S = 3, N = c->heads, H = c->head, rot = c->rot ? c->rot : H, half = rot / 2, maxpos = 12;
    Value *x = c->four_d ? rnd("x", dt, SHAPE(B, N, S, H), -2, 2) : rnd("x", dt, SHAPE(B, S, N * H), -2, 2);
    Value *pos = NULL, *cos, *sin;
    if (c->pos_form == 2) {
        cos = rnd("cos", dt, SHAPE(B, S, half), -1, 1);
        sin = rnd("sin", dt, SHAPE(B, S, half), -1, 1);
    } else {
        cos = rnd("cos", dt, SHAPE(maxpos, half), -1, 1);
        sin = rnd("sin", dt, SHAPE(maxpos, half), -1, 1);
        pos = c->pos_form == 0 ? rnd("pos", DT_I64, SHAPE(1), 0, 9) : rnd("pos", DT_I64, SHAPE(B, S), 0, 11);
    }
    Node *n = dt_node(g, OP_ROTARY_EMBEDDING, 4, (Value *[]){x, pos, cos, sin});
    node_set_bool(g, n, "interleaved", c->inter);
    if (c->give_heads) node_set_uint(g, n, "numHeads", N);
    if (c->rot) node_set_uint(g, n, "rotaryEmbeddingDim", c->rot);
    dt_insert(g, n);
    dt_check(g, n, "decompose_rotary", tol_for(dt), tol_for(dt));
}

START_TEST(rotary_variants) {
    for (int i = 0; i < 48; i++) {
        teardown();
        setup();
        dt_seed(300 + (uint64_t)i);
        bool partial = i % 3 == 1;
        RotCase c = {.four_d = i % 2, .inter = (i / 2) % 2, .heads = 2 + i % 2, .head = 8, .rot = partial ? 4 : 0,
                     .pos_form = (i / 4) % 3, .give_heads = partial || i % 5 == 0, .f16 = i % 7 == 0};
        run_rotary(&c);
    }
}
END_TEST

/* One head of size 4, half-split, position 1: cos = [0, 1], sin = [1, 0] at row 1.
 * y[0] = x0*0 - x2*1, y[1] = x1*1 - x3*0, y[2] = x2*0 + x0*1, y[3] = x3*1 + x1*0. */
START_TEST(rotary_hand_computed) {
    Value *x = dt_values(g, "x", DT_F32, 3, (const int64_t[]){1, 1, 4}, (const double[]){1, 2, 3, 4});
    Value *pos = dt_values(g, "pos", DT_I64, 2, (const int64_t[]){1, 1}, (const double[]){1});
    Value *cos = dt_values(g, "cos", DT_F32, 2, (const int64_t[]){2, 2}, (const double[]){9, 9, 0, 1});
    Value *sin = dt_values(g, "sin", DT_F32, 2, (const int64_t[]){2, 2}, (const double[]){9, 9, 1, 0});
    Node *n = dt_node(g, OP_ROTARY_EMBEDDING, 4, (Value *[]){x, pos, cos, sin});
    dt_insert(g, n);
    const void *out[1];
    uint64_t nb[1];
    ck_assert_int_eq(eval_node(g, n, out, nb), 0);
    const float *y = out[0];
    ck_assert(y[0] == -3 && y[1] == 2 && y[2] == 1 && y[3] == 4);
    dt_check(g, n, "decompose_rotary", 0, 0);
}
END_TEST

/* A symbolic sequence length with the offset form decomposes (expand + cumulativeSum path). */
START_TEST(rotary_symbolic_offset) {
    Dim xs[3] = {dim_static(1), dim_symbol(g, "sequence_length", 64), dim_static(16)};
    Value *x = graph_add_input(g, "x", DT_F32, 3, xs);
    Value *pos = rnd("pos", DT_I64, SHAPE(1), 0, 3);
    Value *cos = rnd("cos", DT_F32, SHAPE(64, 4), -1, 1), *sin = rnd("sin", DT_F32, SHAPE(64, 4), -1, 1);
    Node *n = dt_node(g, OP_ROTARY_EMBEDDING, 4, (Value *[]){x, pos, cos, sin});
    dt_insert(g, n);
    graph_add_output(g, n->outputs[0]);
    const char *names[] = {"decompose_rotary"};
    ck_assert_msg(pass_run_list(g, names, 1, NULL) == 0, "%s", diag_message());
    ck_assert_msg(graph_verify(g, VERIFY_SPEC_ONLY) == 0, "%s", diag_message());
    ck_assert_str_eq(g->outputs[0]->name, n->outputs[0]->name[0] ? g->outputs[0]->name : "");
}
END_TEST

START_TEST(rotary_invalid_nodes) {
    Value *x = rnd("x", DT_F32, SHAPE(1, 2, 12), -1, 1);
    Value *cos = rnd("cos", DT_F32, SHAPE(8, 4), -1, 1), *sin = rnd("sin", DT_F32, SHAPE(8, 4), -1, 1);
    Value *pos = rnd("pos", DT_I64, SHAPE(1, 2), 0, 7);
    /* rotaryEmbeddingDim without numHeads; rot 6 != 2 * 4; hidden 12 not a multiple of heads 5 */
    static const int64_t heads[] = {0, 2, 5}, rots[] = {8, 6, 0};
    for (int i = 0; i < 3; i++) {
        diag_clear();
        Node *n = dt_node(g, OP_ROTARY_EMBEDDING, 4, (Value *[]){x, pos, cos, sin});
        if (heads[i]) node_set_uint(g, n, "numHeads", heads[i]);
        if (rots[i]) node_set_uint(g, n, "rotaryEmbeddingDim", rots[i]);
        ck_assert_int_eq(graph_insert_node(g, n), -1);
        ck_assert(diag_has_error());
    }
}
END_TEST

/* ---- gatherBlockQuantized ------------------------------------------------------------------------- */

static void run_gbq(const DtGbqCase *c) {
    Node *n = dt_gbq_node(g, c);
    DType dt = c->f16 ? DT_F16 : DT_F32;
    dt_check(g, n, "decompose_gather_block_quantized", tol_for(dt), tol_for(dt));
}

START_TEST(gather_block_quantized_variants) {
    static const DtGbqCase cases[] = {
        {DT_U8, 4, 32, 6, 64, false, false, false}, /* the ORT-GenAI tied-embedding form */
        {DT_U8, 4, 32, 6, 64, true, false, true},   {DT_U8, 4, 16, 5, 48, true, false, false},
        {DT_U8, 4, 32, 5, 48, false, false, false}, /* ragged last block */
        {DT_U8, 8, 16, 4, 40, true, false, false},  {DT_U8, 8, 64, 4, 64, false, false, true},
        {DT_U8, 2, 16, 4, 64, true, false, false},  {DT_U8, 2, 32, 4, 48, false, false, false},
        {DT_I4, 4, 16, 4, 32, false, false, false}, {DT_U4, 4, 16, 4, 32, true, false, false},
        {DT_I4, 4, 16, 4, 40, true, true, false},   {DT_U4, 4, 32, 5, 32, false, true, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        teardown();
        setup();
        dt_seed(400 + i);
        run_gbq(&cases[i]);
    }
}
END_TEST

/* uint8 bits 4, one row of 16 values: byte 0x21 holds 1 (low) then 2; default zero point 8, scale 0.5. */
START_TEST(gather_block_quantized_hand_computed) {
    double bytes[8] = {0x21, 0, 0, 0, 0, 0, 0, 0xF0};
    Value *data = dt_values(g, "data", DT_U8, 2, (const int64_t[]){1, 8}, bytes);
    Value *sc = dt_values(g, "s", DT_F32, 2, (const int64_t[]){1, 1}, (const double[]){0.5});
    Value *idx = dt_values(g, "i", DT_I64, 1, (const int64_t[]){1}, (const double[]){0});
    Node *n = dt_node(g, OP_GATHER_BLOCK_QUANTIZED, 3, (Value *[]){data, idx, sc});
    node_set_uint(g, n, "bits", 4);
    node_set_uint(g, n, "blockSize", 16);
    node_set_uint(g, n, "gatherAxis", 0);
    node_set_uint(g, n, "quantizeAxis", 1);
    dt_insert(g, n);
    const void *out[1];
    uint64_t nb[1];
    ck_assert_int_eq(eval_node(g, n, out, nb), 0);
    const float *y = out[0];
    ck_assert(y[0] == -3.5f && y[1] == -3.0f && y[2] == -4.0f && y[14] == -4.0f && y[15] == 3.5f);
    dt_check(g, n, "decompose_gather_block_quantized", 0, 0);
}
END_TEST

/* ---- quickGelu ------------------------------------------------------------------------------------- */

START_TEST(quick_gelu_variants) {
    static const double alphas[] = {-1, 1.0, 0.5};
    for (int i = 0; i < 6; i++) {
        teardown();
        setup();
        dt_seed(500 + (uint64_t)i);
        DType dt = i % 2 ? DT_F16 : DT_F32;
        Value *x = rnd("x", dt, SHAPE(3, 7), -6, 6);
        Node *n = dt_node(g, OP_QUICK_GELU, 1, &x);
        if (alphas[i / 2] > 0) node_set_float(g, n, "alpha", alphas[i / 2]);
        dt_insert(g, n);
        dt_check(g, n, "decompose_quick_gelu", tol_for(dt), tol_for(dt));
    }
}
END_TEST

/* x = 1 with the default alpha: 1 / (1 + e^-1.702). */
START_TEST(quick_gelu_hand_computed) {
    Value *x = dt_values(g, "x", DT_F32, 1, (const int64_t[]){1}, (const double[]){1});
    Node *n = dt_node(g, OP_QUICK_GELU, 1, &x);
    dt_insert(g, n);
    const void *out[1];
    uint64_t nb[1];
    ck_assert_int_eq(eval_node(g, n, out, nb), 0);
    ck_assert_float_eq_tol(((const float *)out[0])[0], 0.8457963f, 1e-6);
}
END_TEST

/* The decomposed nodes take the extension node's place: a consumer after it stays after them, and a
 * graph output keeps its name. */
START_TEST(splice_keeps_order_and_names) {
    Dim xs[2] = {dim_static(2), dim_static(8)};
    Value *x = graph_add_input(g, "x", DT_F32, 2, xs);
    Node *n = dt_node(g, OP_QUICK_GELU, 1, &x);
    const char *name = "act_out";
    node_set_output_names(g, n, 1, &name);
    dt_insert(g, n);
    Node *after = dt_node(g, OP_RELU, 1, &n->outputs[0]);
    dt_insert(g, after);
    graph_add_output(g, n->outputs[0]);
    graph_add_output(g, after->outputs[0]);
    const char *names[] = {"decompose_quick_gelu"};
    ck_assert_msg(pass_run_list(g, names, 1, NULL) == 0, "%s", diag_message());
    ck_assert_msg(graph_verify(g, VERIFY_SPEC_ONLY) == 0, "%s", diag_message());
    ck_assert_str_eq(g->outputs[0]->name, "act_out");
    ck_assert_int_eq(g->nodes[g->n_nodes - 1]->op, OP_RELU);
    ck_assert_ptr_eq(g->nodes[g->n_nodes - 1]->inputs[0], g->outputs[0]);
}
END_TEST

int main(void) {
    Suite *s = suite_create("decompose");
    TCase *tc = tcase_create("decompose");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, matmul_nbits_variants);
    tcase_add_test(tc, matmul_nbits_hand_computed);
    tcase_add_test(tc, matmul_nbits_rejects_dynamic_weight);
    tcase_add_test(tc, matmul_nbits_invalid_nodes);
    tcase_add_test(tc, rms_norm_variants);
    tcase_add_test(tc, rms_norm_hand_computed);
    tcase_add_test(tc, skip_rms_norm_variants);
    tcase_add_test(tc, rotary_variants);
    tcase_add_test(tc, rotary_hand_computed);
    tcase_add_test(tc, rotary_symbolic_offset);
    tcase_add_test(tc, rotary_invalid_nodes);
    tcase_add_test(tc, gather_block_quantized_variants);
    tcase_add_test(tc, gather_block_quantized_hand_computed);
    tcase_add_test(tc, quick_gelu_variants);
    tcase_add_test(tc, quick_gelu_hand_computed);
    tcase_add_test(tc, splice_keeps_order_and_names);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
