/* test_webnn_roundtrip.c - IR -> files -> IR -> files is byte-identical (graph JSON, weights,
 * manifest, text) for hand-built graphs covering every op family: element-wise, comparison,
 * logical, activations, cast, quantization, reductions, linear algebra, normalization (operand
 * options), convolution and pooling (positional bias), resample, recurrent (multi-output with
 * operand options), data movement (split, concat, reshape with dynamic dims, slice, pad...), and
 * operands after an absent optional one (written as options by slot name), the KV-cache bindings
 * (top-level "webnnc": {"kvCache": [...]}, restored into Graph.kv; bindings
 * that do not fit the graph are rejected naming the entry). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webnn_test_util.h"

static Graph *g;

static void setup(void) {
    diag_clear();
    g = graph_new("families");
}
static void teardown(void) {
    graph_free(g);
    g = NULL;
}

static void roundtrip(void) { free(tu_assert_roundtrip(g)); }

START_TEST(elementwise_and_activations) {
    Dim xs[2] = {dim_symbol(g, "batch", 16), dim_static(4)};
    Value *x = graph_add_input(g, "x", DT_F32, 2, xs);
    Value *w = tu_const_f32(g, "w", SHAPE(4, 4), 0.5f, -2.0f);
    Value *b = tu_const_f32(g, "b", SHAPE(4), 0.125f, 1.0f);
    Value *h = tu_finish(g, tu_node(g, OP_MATMUL, 2, x, w));
    Value *v = tu_finish(g, tu_node(g, OP_ADD, 2, h, b));
    for (int op = 0; op < OP_COUNT; op++) {
        const OpInfo *info = op_info((OpId)op);
        if (info->flags & OPF_ELTWISE_BINARY) v = tu_finish(g, tu_node(g, (OpId)op, 2, v, b));
        if ((info->flags & OPF_ELTWISE_UNARY) && !strcmp(info->name, "clamp")) continue;
        if ((info->flags & OPF_ELTWISE_UNARY) && info->n_options == 0 && op != OP_LOGICAL_NOT && op != OP_IS_NAN &&
            op != OP_IS_INFINITE)
            v = tu_finish(g, tu_node(g, (OpId)op, 1, v));
    }
    Node *n = tu_node(g, OP_ELU, 1, v);
    node_set_float(g, n, "alpha", 0.75);
    v = tu_finish(g, n);
    n = tu_node(g, OP_HARD_SIGMOID, 1, v);
    node_set_float(g, n, "alpha", 0.2);
    node_set_float(g, n, "beta", 0.5);
    v = tu_finish(g, n);
    n = tu_node(g, OP_CLAMP, 1, v);
    node_set_float(g, n, "minValue", -3.5);
    node_set_float(g, n, "maxValue", 1e30);
    v = tu_finish(g, n);
    Value *nan = tu_finish(g, tu_node(g, OP_IS_NAN, 1, v));
    Value *cmp = tu_finish(g, tu_node(g, OP_GREATER_OR_EQUAL, 2, v, b));
    Value *lg = tu_finish(g, tu_node(g, OP_LOGICAL_XOR, 2, cmp, nan));
    lg = tu_finish(g, tu_node(g, OP_LOGICAL_NOT, 1, lg));
    Value *wh = tu_finish(g, tu_node(g, OP_WHERE, 3, lg, v, h));
    Value *slope = tu_const_f32(g, "slope", SHAPE(4), 0.01f, 0.0f);
    wh = tu_finish(g, tu_node(g, OP_PRELU, 2, wh, slope));
    n = tu_node(g, OP_SOFTMAX, 1, wh);
    node_set_uint(g, n, "axis", 1);
    Value *sm = tu_finish(g, n);
    n = tu_node(g, OP_CAST, 1, sm);
    node_set_dtype(g, n, "to", DT_F16);
    graph_add_output(g, tu_finish(g, n));
    graph_add_output(g, h);
    roundtrip();
}
END_TEST

START_TEST(reductions_and_linalg) {
    Value *x = tu_input(g, "x", DT_F32, SHAPE(2, 3, 4));
    Node *n;
    for (int op = 0; op < OP_COUNT; op++) {
        if (!(op_info((OpId)op)->flags & OPF_REDUCE)) continue;
        n = tu_node(g, (OpId)op, 1, x);
        node_set_ints(g, n, "axes", 2, (int64_t[]){0, 2});
        node_set_bool(g, n, "keepDimensions", op % 2);
        graph_add_output(g, tu_finish(g, n));
    }
    n = tu_node(g, OP_ARG_MAX, 1, x);
    node_set_uint(g, n, "axis", 2);
    node_set_dtype(g, n, "outputDataType", DT_I32);
    graph_add_output(g, tu_finish(g, n));
    n = tu_node(g, OP_CUMULATIVE_SUM, 1, x);
    node_set_uint(g, n, "axis", 0);
    node_set_bool(g, n, "exclusive", true);
    graph_add_output(g, tu_finish(g, n));
    Value *a = tu_input(g, "a", DT_F32, SHAPE(3, 5));
    Value *bm = tu_const_f32(g, "bm", SHAPE(4, 5), 0.5f, 0.0f);
    Value *c = tu_const_f32(g, "c", SHAPE(3, 4), 1.0f, 0.5f);
    n = tu_node(g, OP_GEMM, 3, a, bm, c);
    node_set_float(g, n, "alpha", 2.0);
    node_set_bool(g, n, "bTranspose", true);
    graph_add_output(g, tu_finish(g, n));
    n = tu_node(g, OP_TRIANGULAR, 1, c);
    node_set_bool(g, n, "upper", false);
    node_set_int(g, n, "diagonal", -1);
    graph_add_output(g, tu_finish(g, n));
    roundtrip();
}
END_TEST

START_TEST(normalization_operand_options) {
    Value *x = tu_input(g, "x", DT_F32, SHAPE(2, 3, 4, 4));
    Value *s4 = tu_const_f32(g, "s4", SHAPE(4), 0.5f, 1.0f);
    Value *b4 = tu_const_f32(g, "b4", SHAPE(4), 0.25f, 0.0f);
    Value *m3 = tu_const_f32(g, "m3", SHAPE(3), 0.5f, 0.0f);
    Value *v3 = tu_const_f32(g, "v3", SHAPE(3), 0.5f, 1.0f);
    Value *one3 = tu_const_f32(g, "one3", SHAPE(3), 0.0f, 1.0f); /* splat: written as scalar */
    Node *n = tu_node(g, OP_LAYER_NORMALIZATION, 3, x, s4, b4);
    node_set_ints(g, n, "axes", 1, (int64_t[]){3});
    node_set_float(g, n, "epsilon", 1e-5);
    graph_add_output(g, tu_finish(g, n));
    n = tu_node(g, OP_LAYER_NORMALIZATION, 3, x, NULL, b4); /* bias without scale */
    node_set_ints(g, n, "axes", 1, (int64_t[]){3});
    graph_add_output(g, tu_finish(g, n));
    n = tu_node(g, OP_BATCH_NORMALIZATION, 5, x, m3, v3, one3, NULL);
    node_set_uint(g, n, "axis", 1);
    graph_add_output(g, tu_finish(g, n));
    n = tu_node(g, OP_INSTANCE_NORMALIZATION, 2, x, one3);
    node_set_string(g, n, "layout", "nchw");
    graph_add_output(g, tu_finish(g, n));
    roundtrip();
}
END_TEST

START_TEST(conv_pool_resample) {
    Value *x = tu_input(g, "image", DT_F32, SHAPE(1, 2, 8, 8));
    Value *f = tu_const_f32(g, "filter", SHAPE(4, 2, 3, 3), 0.125f, -0.5f);
    Value *bias = tu_const_f32(g, "bias", SHAPE(4), 1.0f, 0.0f);
    Node *n = tu_node(g, OP_CONV2D, 3, x, f, bias);
    node_set_ints(g, n, "padding", 4, (int64_t[]){1, 1, 1, 1});
    node_set_ints(g, n, "strides", 2, (int64_t[]){1, 1});
    Value *c = tu_finish(g, n);
    Value *c2 = tu_finish(g, tu_node(g, OP_CONV2D, 2, c, tu_const_f32(g, "f2", SHAPE(4, 4, 1, 1), 0.5f, 0.0f)));
    n = tu_node(g, OP_MAX_POOL2D, 1, c2);
    node_set_ints(g, n, "windowDimensions", 2, (int64_t[]){2, 2});
    node_set_ints(g, n, "strides", 2, (int64_t[]){2, 2});
    Value *p = tu_finish(g, n);
    n = tu_node(g, OP_AVERAGE_POOL2D, 1, p);
    node_set_string(g, n, "outputShapeRounding", "ceil");
    Value *ap = tu_finish(g, n);
    n = tu_node(g, OP_RESAMPLE2D, 1, p);
    node_set_string(g, n, "mode", "linear");
    node_set_floats(g, n, "scales", 2, (double[]){2.0, 0.5});
    node_set_ints(g, n, "axes", 2, (int64_t[]){2, 3});
    graph_add_output(g, tu_finish(g, n));
    graph_add_output(g, ap);
    roundtrip();
}
END_TEST

START_TEST(recurrent_multi_output) {
    Value *x = tu_input(g, "x", DT_F32, SHAPE(3, 2, 4)); /* steps, batch, input */
    Value *w = tu_const_f32(g, "gw", SHAPE(1, 15, 4), 0.1f, 0.0f);
    Value *r = tu_const_f32(g, "gr", SHAPE(1, 15, 5), 0.1f, -0.3f);
    Value *b = tu_const_f32(g, "gb", SHAPE(1, 15), 0.01f, 0.0f);
    Node *n = tu_node(g, OP_GRU, 4, x, w, r, b);
    node_set_uint(g, n, "steps", 3);
    node_set_uint(g, n, "hiddenSize", 5);
    node_set_bool(g, n, "returnSequence", true);
    const char *acts[] = {"sigmoid", "tanh"};
    node_set_strings(g, n, "activations", 2, acts);
    const char *names[] = {"gru_h", "gru_seq"};
    node_set_output_names(g, n, 2, names);
    tu_finish(g, n);
    ck_assert_int_eq(n->n_outputs, 2);
    graph_add_output(g, n->outputs[0]);
    graph_add_output(g, n->outputs[1]);
    Value *lw = tu_const_f32(g, "lw", SHAPE(1, 20, 4), 0.1f, 0.0f);
    Value *lr = tu_const_f32(g, "lr", SHAPE(1, 20, 5), 0.1f, 0.0f);
    n = tu_node(g, OP_LSTM, 3, x, lw, lr);
    node_set_uint(g, n, "steps", 3);
    node_set_uint(g, n, "hiddenSize", 5);
    node_set_string(g, n, "direction", "forward");
    tu_finish(g, n);
    ck_assert_int_eq(n->n_outputs, 2);
    graph_add_output(g, n->outputs[1]);
    roundtrip();
}
END_TEST

START_TEST(data_movement) {
    Dim xs[3] = {dim_symbol(g, "batch", 4), dim_symbol(g, "sequence_length", 2048), dim_static(8)};
    Value *x = graph_add_input(g, "x", DT_F32, 3, xs);
    Node *n = tu_node(g, OP_SPLIT, 1, x);
    node_set_uint(g, n, "splits", 2);
    node_set_uint(g, n, "axis", 2);
    tu_finish(g, n);
    ck_assert_int_eq(n->n_outputs, 2);
    Value *left = n->outputs[0], *right = n->outputs[1];
    n = tu_node(g, OP_SPLIT, 1, right);
    node_set_ints(g, n, "splits", 2, (int64_t[]){1, 3});
    node_set_uint(g, n, "axis", 2);
    const char *names[] = {"r1", "r3"};
    node_set_output_names(g, n, 2, names);
    tu_finish(g, n);
    Node *cn = tu_node(g, OP_CONCAT, 3, n->outputs[1], left, n->outputs[0]);
    node_set_uint(g, cn, "axis", 2);
    Value *cat = tu_finish(g, cn);
    n = tu_node(g, OP_RESHAPE, 1, cat);
    Dim ns[4] = {xs[0], xs[1], dim_static(2), dim_static(4)};
    node_set_dims(g, n, "newShape", 4, ns);
    Value *rs = tu_finish(g, n);
    n = tu_node(g, OP_TRANSPOSE, 1, rs);
    node_set_ints(g, n, "permutation", 4, (int64_t[]){0, 2, 1, 3});
    graph_add_output(g, tu_finish(g, n));
    Value *s = tu_input(g, "s", DT_F32, SHAPE(4, 6));
    n = tu_node(g, OP_SLICE, 1, s);
    node_set_ints(g, n, "starts", 2, (int64_t[]){1, 0});
    node_set_dims(g, n, "sizes", 2, (Dim[]){dim_static(2), dim_static(3)});
    node_set_ints(g, n, "strides", 2, (int64_t[]){1, 2});
    Value *sl = tu_finish(g, n);
    n = tu_node(g, OP_PAD, 1, sl);
    node_set_ints(g, n, "beginningPadding", 2, (int64_t[]){0, 1});
    node_set_ints(g, n, "endingPadding", 2, (int64_t[]){2, 0});
    node_set_string(g, n, "mode", "constant");
    node_set_float(g, n, "value", 0.5);
    Value *pd = tu_finish(g, n);
    n = tu_node(g, OP_TILE, 1, pd);
    node_set_ints(g, n, "repetitions", 2, (int64_t[]){1, 2});
    graph_add_output(g, tu_finish(g, n));
    int32_t idx[3] = {2, 0, 3};
    Value *iv = tu_const_raw(g, "idx", DT_I32, SHAPE(3), idx, sizeof idx);
    n = tu_node(g, OP_GATHER, 2, s, iv);
    node_set_uint(g, n, "axis", 0);
    Value *ga = tu_finish(g, n);
    n = tu_node(g, OP_EXPAND, 1, tu_const_f32(g, "row", SHAPE(1, 6), 1.0f, 0.0f));
    node_set_dims(g, n, "newShape", 2, (Dim[]){dim_static(3), dim_static(6)});
    graph_add_output(g, tu_finish(g, tu_node(g, OP_ADD, 2, ga, tu_finish(g, n))));
    roundtrip();
}
END_TEST

START_TEST(quantized_int4_and_dedup) {
    g->quantized = true;
    /* 3x5 = 15 int4 values (odd count: the IR's last byte has a padding nibble). */
    uint8_t packed[8];
    for (int i = 0; i < 8; i++) packed[i] = (uint8_t)(0x10 * ((i * 3 + 1) & 15) + ((i * 5 + 2) & 15));
    packed[7] &= 0x0F;
    Value *q = tu_const_raw(g, "q", DT_I4, SHAPE(3, 5), packed, sizeof packed);
    packed[7] |= 0xA0; /* same values, different padding nibble: still a duplicate */
    Value *q2 = tu_const_raw(g, "a_q_copy", DT_I4, SHAPE(3, 5), packed, sizeof packed);
    Value *scale = tu_const_f32(g, "scale", SHAPE(3, 1), 0.5f, 0.25f);
    uint8_t zp[2] = {0x08, 0x0F}; /* -8, 0, -1 */
    Value *zero = tu_const_raw(g, "zero", DT_I4, SHAPE(3, 1), zp, 2);
    Value *d1 = tu_finish(g, tu_node(g, OP_DEQUANTIZE_LINEAR, 3, q, scale, zero));
    Value *d2 = tu_finish(g, tu_node(g, OP_DEQUANTIZE_LINEAR, 3, q2, scale, zero));
    Value *w1 = tu_const_f32(g, "w1", SHAPE(5, 4), 0.5f, 0.0f);
    Value *w2 = tu_const_f32(g, "w2", SHAPE(5, 4), 0.5f, 0.0f); /* identical to w1 */
    Value *w3 = tu_const_f32(g, "w3", SHAPE(4, 5), 0.5f, 0.0f); /* same bytes, other shape */
    Value *m1 = tu_finish(g, tu_node(g, OP_MATMUL, 2, d1, w1));
    Value *m2 = tu_finish(g, tu_node(g, OP_MATMUL, 2, d2, w2));
    graph_add_output(g, tu_finish(g, tu_node(g, OP_ADD, 2, m1, m2)));
    graph_add_output(g, tu_finish(g, tu_node(g, OP_RELU, 1, w3)));
    char *j = tu_assert_roundtrip(g);
    ck_assert_ptr_nonnull(strstr(j, "\"quantized\": true"));
    ck_assert_ptr_nonnull(strstr(j, "\"q\": {\"dataType\": \"int4\", \"shape\": [3, 5], \"init\": {\"kind\": \"weights\", \"ref\": \"a_q_copy\"}}"));
    ck_assert_ptr_nonnull(strstr(j, "\"w2\": {\"dataType\": \"float32\", \"shape\": [5, 4], \"init\": {\"kind\": \"weights\", \"ref\": \"w1\"}}"));
    ck_assert_ptr_nonnull(strstr(j, "\"w3\": {\"dataType\": \"float32\", \"shape\": [4, 5], \"init\": {\"kind\": \"weights\", \"ref\": \"w3\"}}"));
    /* int4 [3,1]: inline, one byte per element, low nibble first */
    ck_assert_ptr_nonnull(strstr(j, "\"zero\": {\"dataType\": \"int4\", \"shape\": [3, 1], \"init\": {\"kind\": \"inlineBytes\", \"bytes\": [8, 0, 15]}}"));
    free(j);
}
END_TEST

/* A one-layer cache update: past [1, 2, 8, 4] --scatterElements(axis 2)--> present, with the
 * ONNX-interface total length as a dim of attention_mask. */
static void kv_graph(void) {
    Dim mask[2] = {dim_static(1), dim_symbol(g, "total_sequence_length", 8)};
    graph_add_output(g, tu_finish(g, tu_node(g, OP_RELU, 1, graph_add_input(g, "attention_mask", DT_F32, 2, mask))));
    Value *past = tu_input(g, "past_key_values_0_key", DT_F32, SHAPE(1, 2, 8, 4));
    int32_t rows[8] = {5, 5, 5, 5, 5, 5, 5, 5};
    Value *idx = tu_const_raw(g, "rows", DT_I32, SHAPE(1, 2, 1, 4), rows, sizeof rows);
    Value *upd = tu_input(g, "new_key", DT_F32, SHAPE(1, 2, 1, 4));
    Node *n = tu_node(g, OP_SCATTER_ELEMENTS, 3, past, idx, upd);
    node_set_uint(g, n, "axis", 2);
    node_set_output_names(g, n, 1, (const char *[]){"present"});
    Value *present = tu_finish(g, n);
    graph_add_output(g, present);
    g->kv = graph_alloc(g, sizeof *g->kv);
    g->kv[0] = (KvBinding){past->name, present->name, 2, 8, "total_sequence_length"};
    g->n_kv = 1;
}

START_TEST(kv_cache_bindings) {
    kv_graph();
    char *j = tu_assert_roundtrip(g); /* JSON of the re-read graph == JSON of g: the binding survived */
    const char *want = "\"webnnc\": {\n    \"kvCache\": [\n      {\"past\": \"past_key_values_0_key\", \"present\": \"present\", "
                       "\"axis\": 2, \"capacity\": 8, \"totalDim\": \"total_sequence_length\"}\n    ]\n  }\n}";
    ck_assert_msg(strstr(j, want) != NULL, "no kvCache key in %s", j);
    Graph *g2 = webnn_read_json(j, strlen(j), NULL);
    ck_assert_msg(g2 != NULL, "%s", diag_message());
    ck_assert_int_eq(g2->n_kv, 1);
    ck_assert_str_eq(g2->kv[0].past, "past_key_values_0_key");
    ck_assert_str_eq(g2->kv[0].present, "present");
    ck_assert_int_eq(g2->kv[0].axis, 2);
    ck_assert_int_eq(g2->kv[0].capacity, 8);
    ck_assert_str_eq(g2->kv[0].total_dim, "total_sequence_length");
    graph_free(g2);
    free(j);
}
END_TEST

/* The JSON of kv_graph() with `from` replaced by `to` is rejected with a message containing needle. */
static void kv_rejects(const char *j, const char *from, const char *to, const char *needle) {
    const char *at = strstr(j, from);
    ck_assert_msg(at != NULL, "fixture lacks %s", from);
    char *v = malloc(strlen(j) + strlen(to) + 1);
    memcpy(v, j, (size_t)(at - j));
    strcpy(v + (at - j), to);
    strcat(v, at + strlen(from));
    diag_clear();
    Graph *g2 = webnn_read_json(v, strlen(v), NULL);
    ck_assert_msg(g2 == NULL, "accepted: %s", v);
    ck_assert_msg(strstr(diag_message(), needle) != NULL, "message '%s' lacks '%s'", diag_message(), needle);
    ck_assert_msg(strchr(diag_message(), '\n') == NULL, "not one line: %s", diag_message());
    free(v);
}

START_TEST(kv_cache_bindings_rejected) {
    kv_graph();
    char *j = webnn_graph_json(g);
    ck_assert_ptr_nonnull(j);
    kv_rejects(j, "\"past\": \"past_key_values_0_key\"", "\"past\": \"new_key\"", "kvCache[0]");
    kv_rejects(j, "\"past\": \"past_key_values_0_key\"", "\"past\": \"nope\"", "'nope' is not a graph input");
    kv_rejects(j, "\"present\": \"present\", \"axis", "\"present\": \"attention_mask\", \"axis", "'attention_mask' is not a graph output");
    kv_rejects(j, "\"capacity\": 8", "\"capacity\": 9", "static size 9 on axis 2");
    kv_rejects(j, "\"axis\": 2, \"cap", "\"axis\": 7, \"cap", "axis 7");
    kv_rejects(j, "\"axis\": 2, \"cap", "\"axis\": \"2\", \"cap", "integer \"axis\"");
    kv_rejects(j, "\"totalDim\": \"total_sequence_length\"", "\"totalDim\": \"seq\"", "totalDim 'seq'");
    kv_rejects(j, "\"kvCache\": [", "\"kvCache\": 3, \"x\": [", "must be an array");
    kv_rejects(j, "\"webnnc\": {", "\"webnnc\": 1, \"y\": {", "\"webnnc\" must be an object");
    kv_rejects(j, "\"capacity\": 8, \"totalDim\": \"total_sequence_length\"}",
               "\"capacity\": 8}, {\"past\": \"past_key_values_0_key\", \"present\": \"present\", \"axis\": 2, \"capacity\": 8}",
               "bound twice");
    free(j);
}
END_TEST

/* Operands after an absent optional one: qkvProjection without skip (normScale and weight, both
 * required, follow the absent skip) and the bias after absent scales/zeroPoints; they are written as
 * options by slot name, and the reader puts each back into its slot. */
START_TEST(operands_after_absent_optional) {
    Value *x = tu_input(g, "x", DT_F32, SHAPE(1, 2, 8));
    Value *ns = tu_const_f32(g, "norm_scale", SHAPE(8), 0.5f, 1.0f);
    Value *w = tu_const_f32(g, "w", SHAPE(8, 12), 0.25f, -1.0f);
    Value *bias = tu_const_f32(g, "bias", SHAPE(12), 0.125f, 0.0f);
    Node *n = tu_node(g, OP_QKV_PROJECTION, 8, x, NULL, NULL, ns, w, NULL, NULL, bias);
    node_set_uint(g, n, "k", 8);
    node_set_uint(g, n, "n", 12);
    node_set_ints(g, n, "splits", 3, (int64_t[]){4, 4, 4});
    node_set_float(g, n, "epsilon", 1e-6);
    tu_finish(g, n);
    for (int i = 0; i < n->n_outputs; i++) graph_add_output(g, n->outputs[i]);
    /* skip present, then the absent `?@` skipBias: normScale must not land in skipBias's slot */
    Node *m = tu_node(g, OP_QKV_PROJECTION, 5, x, x, NULL, ns, w);
    node_set_uint(g, m, "k", 8);
    node_set_uint(g, m, "n", 12);
    node_set_ints(g, m, "splits", 2, (int64_t[]){4, 8});
    tu_finish(g, m);
    for (int i = 0; i < m->n_outputs; i++) graph_add_output(g, m->outputs[i]);
    char *j = tu_assert_roundtrip(g);
    ck_assert_msg(strstr(j, "\"inputs\": [\"x\"], \"options\": {\"normScale\": \"norm_scale\", \"weight\": \"w\", "
                            "\"bias\": \"bias\", \"epsilon\"") != NULL, "%s", j);
    char *tmp = tu_tmpdir();
    ck_assert_msg(webnn_write(g, tmp, NULL) == 0, "%s", diag_message());
    Graph *g2 = webnn_read(tmp);
    ck_assert_msg(g2 != NULL, "%s", diag_message());
    Node *r = g2->nodes[0];
    ck_assert_int_eq(r->op, OP_QKV_PROJECTION);
    ck_assert_int_eq(r->n_inputs, 8);
    const char *want[8] = {"x", NULL, NULL, "norm_scale", "w", NULL, NULL, "bias"};
    for (int i = 0; i < 8; i++) {
        if (want[i]) ck_assert_str_eq(r->inputs[i]->name, want[i]);
        else ck_assert_ptr_null(r->inputs[i]);
    }
    r = g2->nodes[1];
    ck_assert_int_eq(r->n_inputs, 5);
    ck_assert_ptr_eq(r->inputs[1], r->inputs[0]);
    ck_assert_ptr_null(r->inputs[2]);
    ck_assert_str_eq(r->inputs[3]->name, "norm_scale");
    ck_assert_str_eq(r->inputs[4]->name, "w");
    graph_free(g2);
    /* a required operand given only by name, and twice (positionally and by name) */
    const char *dup = strstr(j, "[\"x\"]");
    ck_assert_ptr_nonnull(dup);
    char *v = malloc(strlen(j) + 16);
    memcpy(v, j, (size_t)(dup - j));
    strcpy(v + (dup - j), "[\"x\", \"x\", \"x\", \"x\"]");
    strcat(v, dup + strlen("[\"x\"]"));
    diag_clear();
    ck_assert_ptr_null(webnn_read_json(v, strlen(v), tmp));
    ck_assert_msg(strstr(diag_message(), "'normScale' is given both positionally and as an option") != NULL, "%s",
                  diag_message());
    free(v);
    tu_rmtree(tmp);
    free(tmp);
    free(j);
}
END_TEST

/* A multi-output op with one output whose id is that output's name - what a fusion writes when a
 * single-split qkvProjection (final norm + lm_head) takes over the graph output `logits`: the reader
 * keeps the operand's name (it used to reserve the id first and rename the output `logits_1`, so
 * `webnnc run --expect` could not bind it). */
START_TEST(multi_output_op_id_equals_output) {
    Value *x = tu_input(g, "x", DT_F32, SHAPE(1, 2, 8));
    Value *ns = tu_const_f32(g, "norm_scale", SHAPE(8), 0.5f, 1.0f);
    Value *w = tu_const_f32(g, "w", SHAPE(8, 12), 0.25f, -1.0f);
    Node *n = tu_node(g, OP_QKV_PROJECTION, 5, x, NULL, NULL, ns, w);
    node_set_uint(g, n, "k", 8);
    node_set_uint(g, n, "n", 12);
    node_set_ints(g, n, "splits", 1, (int64_t[]){12});
    node_set_output_names(g, n, 1, (const char *const[]){"logits"});
    tu_finish(g, n);
    ck_assert_str_eq(n->id, "logits");
    graph_add_output(g, n->outputs[0]);
    char *j = tu_assert_roundtrip(g);
    ck_assert_msg(strstr(j, "{\"id\": \"logits\", \"op\": \"qkvProjection\"") != NULL, "%s", j);
    ck_assert_msg(strstr(j, "\"outputs\": [\"logits\"]") != NULL, "%s", j);
    char *tmp = tu_tmpdir();
    ck_assert_msg(webnn_write(g, tmp, NULL) == 0, "%s", diag_message());
    Graph *g2 = webnn_read(tmp);
    ck_assert_msg(g2 != NULL, "%s", diag_message());
    ck_assert_int_eq(g2->n_outputs, 1);
    ck_assert_str_eq(g2->outputs[0]->name, "logits");
    ck_assert_str_eq(g2->nodes[0]->id, "logits");
    graph_free(g2);
    /* an id naming the second of two outputs, and an id naming none of them */
    const char *other[] = {"{\"id\": \"b\", \"op\": \"split\", \"inputs\": [\"x\"], \"options\": {\"splits\": 2, \"axis\": 2}, \"outputs\": [\"a\", \"b\"]}",
                           "{\"id\": \"s\", \"op\": \"split\", \"inputs\": [\"x\"], \"options\": {\"splits\": 2, \"axis\": 2}, \"outputs\": [\"a\", \"b\"]}"};
    for (int k = 0; k < 2; k++) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"format\": \"webnn-graph-json\", \"version\": 2, \"name\": \"t\", \"inputs\": {\"x\": {\"dataType\": "
                 "\"float32\", \"shape\": [1, 2, 8]}}, \"consts\": {}, \"nodes\": [%s], \"outputs\": {\"a\": \"a\", "
                 "\"b\": \"b\"}}",
                 other[k]);
        diag_clear();
        Graph *g3 = webnn_read_json(doc, strlen(doc), tmp);
        ck_assert_msg(g3 != NULL, "%s", diag_message());
        ck_assert_str_eq(g3->outputs[0]->name, "a");
        ck_assert_str_eq(g3->outputs[1]->name, "b");
        ck_assert_str_eq(g3->nodes[0]->id, k == 0 ? "b" : "s");
        graph_free(g3);
    }
    tu_rmtree(tmp);
    free(tmp);
    free(j);
}
END_TEST

/* No op has an option key equal to one of its operand slot names: an operand written by name is
 * never mistaken for an option (and the reverse). */
START_TEST(operand_names_are_not_option_keys) {
    for (int op = 0; op < OP_COUNT; op++) {
        const OpInfo *info = op_info((OpId)op);
        for (int i = 0; i < info->n_inputs; i++)
            ck_assert_msg(op_option_index(info, info->inputs[i].name) < 0, "%s: operand '%s' is also an option", info->name,
                          info->inputs[i].name);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("webnn-roundtrip");
    TCase *tc = tcase_create("roundtrip");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, elementwise_and_activations);
    tcase_add_test(tc, reductions_and_linalg);
    tcase_add_test(tc, normalization_operand_options);
    tcase_add_test(tc, conv_pool_resample);
    tcase_add_test(tc, recurrent_multi_output);
    tcase_add_test(tc, data_movement);
    tcase_add_test(tc, quantized_int4_and_dedup);
    tcase_add_test(tc, kv_cache_bindings);
    tcase_add_test(tc, kv_cache_bindings_rejected);
    tcase_add_test(tc, operands_after_absent_optional);
    tcase_add_test(tc, multi_output_op_id_equals_output);
    tcase_add_test(tc, operand_names_are_not_option_keys);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
