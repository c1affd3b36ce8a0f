/* test_webnn_format.c - exact bytes of the writer's output for a small graph, checked against
 * hand-written expectations: graph JSON, .webnn text, WGWT header, 64-byte alignment, manifest
 * fields and XXH64 values recomputed here from the written file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "webnn_test_util.h"

static Value *named(Graph *g, Node *n, const char *name) {
    node_set_output_names(g, n, 1, &name);
    return tu_finish(g, n);
}

/* The graph of the format document's example, with W grown to 4x3 so it goes to the weights. */
static Graph *head_graph(void) {
    Graph *g = graph_new("head");
    Dim xs[2] = {dim_symbol(g, "batch", 16), dim_static(4)};
    Value *x = graph_add_input(g, "x", DT_F32, 2, xs);
    Value *w = tu_const_f32(g, "W", SHAPE(4, 3), 0.25f, -1.0f);
    Value *b = tu_const_f32(g, "b", SHAPE(3), 1.0f, 0.0f);
    float half = 0.5f;
    Value *hv = graph_add_const_copy(g, "half", DT_F32, 0, NULL, &half, 4);
    Value *h = named(g, tu_node(g, OP_MATMUL, 2, x, w), "h");
    Value *hb = named(g, tu_node(g, OP_ADD, 2, h, b), "hb");
    Value *hs = named(g, tu_node(g, OP_MUL, 2, hb, hv), "hs");
    Node *sm = tu_node(g, OP_SOFTMAX, 1, hs);
    node_set_uint(g, sm, "axis", 1);
    graph_add_output(g, named(g, sm, "probs"));
    return g;
}

static const char *expected_json =
    "{\n"
    "  \"format\": \"webnn-graph-json\",\n"
    "  \"version\": 2,\n"
    "  \"name\": \"head\",\n"
    "  \"inputs\": {\n"
    "    \"x\": {\"dataType\": \"float32\", \"shape\": [{\"name\": \"batch\", \"maxSize\": 16}, 4]}\n"
    "  },\n"
    "  \"consts\": {\n"
    "    \"W\": {\"dataType\": \"float32\", \"shape\": [4, 3], \"init\": {\"kind\": \"weights\", \"ref\": \"W\"}},\n"
    "    \"b\": {\"dataType\": \"float32\", \"shape\": [3], \"init\": {\"kind\": \"inlineBytes\", \"bytes\": [0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64]}},\n"
    "    \"half\": {\"dataType\": \"float32\", \"shape\": [], \"init\": {\"kind\": \"scalar\", \"value\": 0.5}}\n"
    "  },\n"
    "  \"nodes\": [\n"
    "    {\"id\": \"h\", \"op\": \"matmul\", \"inputs\": [\"x\", \"W\"], \"options\": {}},\n"
    "    {\"id\": \"hb\", \"op\": \"add\", \"inputs\": [\"h\", \"b\"], \"options\": {}},\n"
    "    {\"id\": \"hs\", \"op\": \"mul\", \"inputs\": [\"hb\", \"half\"], \"options\": {}},\n"
    "    {\"id\": \"probs\", \"op\": \"softmax\", \"inputs\": [\"hs\"], \"options\": {\"axis\": 1}}\n"
    "  ],\n"
    "  \"outputs\": {\n"
    "    \"probs\": \"probs\"\n"
    "  }\n"
    "}\n";

static const char *expected_text =
    "webnn_graph \"head\" v2 {\n"
    "  inputs {\n"
    "    x: f32[dyn(\"batch\", 16), 4];\n"
    "  }\n"
    "  consts {\n"
    "    W: f32[4, 3] @weights(\"W\");\n"
    "    b: f32[3] @bytes([0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64]);\n"
    "    half: f32[] @scalar(0.5);\n"
    "  }\n"
    "  nodes {\n"
    "    h = matmul(x, W);\n"
    "    hb = add(h, b);\n"
    "    hs = mul(hb, half);\n"
    "    probs = softmax(hs, axis=1);\n"
    "  }\n"
    "  outputs { probs; }\n"
    "}\n";

START_TEST(json_exact) {
    Graph *g = head_graph();
    char *j = webnn_graph_json(g);
    ck_assert_msg(j != NULL, "%s", diag_message());
    ck_assert_str_eq(j, expected_json);
    free(j);
    graph_free(g);
}
END_TEST

START_TEST(text_exact) {
    Graph *g = head_graph();
    char *t = webnn_graph_text(g);
    ck_assert_msg(t != NULL, "%s", diag_message());
    ck_assert_str_eq(t, expected_text);
    free(t);
    graph_free(g);
}
END_TEST

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

START_TEST(weights_and_manifest_bytes) {
    Graph *g = head_graph();
    char *tmp = tu_tmpdir();
    const char *out = tu_path(tmp, "out");
    ck_assert_msg(webnn_write(g, out, NULL) == 0, "%s", diag_message());
    ck_assert(!tu_exists(tu_path(out, WN_TEXT_FILE))); /* text only when asked */
    size_t len;
    unsigned char *w = (unsigned char *)tu_read_file(tu_path(out, WN_WEIGHTS_FILE), &len);
    ck_assert_uint_eq(len, 64 + 48);
    ck_assert(memcmp(w, "WGWT\x01\x00\x00\x00", 8) == 0);
    for (int i = 8; i < 64; i++) ck_assert_uint_eq(w[i], 0);
    /* W[i] = (i % 13) * 0.25 - 1: element 0 is -1.0f = 0xBF800000, element 5 is 0.25f = 0x3E800000 */
    ck_assert_uint_eq(le32(w + 64), 0xBF800000u);
    ck_assert_uint_eq(le32(w + 64 + 5 * 4), 0x3E800000u);
    char want[512];
    snprintf(want, sizeof want,
             "{\n  \"format\": \"wg-weights-manifest\",\n  \"version\": 1,\n  \"endianness\": \"little\",\n"
             "  \"tensors\": {\n    \"W\": {\"dataType\": \"float32\", \"shape\": [4, 3], \"byteOffset\": 64, "
             "\"byteLength\": 48, \"layout\": \"row-major\", \"xxhash64\": \"%016llx\"}\n  }\n}\n",
             (unsigned long long)XXH64(w + 64, 48, 0));
    char *m = tu_read_file(tu_path(out, WN_MANIFEST_FILE), NULL);
    ck_assert_str_eq(m, want);
    free(m);
    free(w);
    tu_rmtree(tmp);
    free(tmp);
    graph_free(g);
}
END_TEST

START_TEST(floats_shortest_and_typed) {
    Graph *g = graph_new("f");
    Value *x = tu_input(g, "x", DT_F32, SHAPE(2, 3));
    Node *n = tu_node(g, OP_CLAMP, 1, x);
    node_set_float(g, n, "minValue", 0.1);
    node_set_float(g, n, "maxValue", 6);
    Value *c = tu_finish(g, n);
    Node *l = tu_node(g, OP_LINEAR, 1, c);
    node_set_float(g, l, "alpha", 1e-5);
    node_set_float(g, l, "beta", -0.0);
    Value *y = tu_finish(g, l);
    graph_add_output(g, y);
    char *j = webnn_graph_json(g);
    ck_assert_msg(j != NULL, "%s", diag_message());
    ck_assert_ptr_nonnull(strstr(j, "{\"minValue\": 0.1, \"maxValue\": 6.0}"));
    ck_assert_ptr_nonnull(strstr(j, "{\"alpha\": 1e-05, \"beta\": -0.0}"));
    free(j);
    graph_free(g);
}
END_TEST

START_TEST(nonfinite_option_fails) {
    Graph *g = graph_new("f");
    Value *x = tu_input(g, "x", DT_F32, SHAPE(2));
    Node *n = tu_node(g, OP_CLAMP, 1, x);
    node_set_float(g, n, "maxValue", 1.0 / 0.0);
    graph_add_output(g, tu_finish(g, n));
    diag_clear();
    ck_assert_ptr_null(webnn_graph_text(g));
    ck_assert_ptr_nonnull(strstr(diag_message(), "maxValue"));
    diag_clear();
    ck_assert_ptr_null(webnn_graph_json(g));
    graph_free(g);
}
END_TEST

START_TEST(expression_dim_fails) {
    Graph *g = graph_new("e");
    Dim d[1] = {dim_add(g, dim_symbol(g, "past", 8), dim_symbol(g, "seq", 8))};
    Value *x = graph_add_input(g, "x", DT_F32, 1, d);
    graph_add_output(g, tu_finish(g, tu_node(g, OP_RELU, 1, x)));
    diag_clear();
    ck_assert_ptr_null(webnn_graph_json(g));
    ck_assert_ptr_nonnull(strstr(diag_message(), "'x'"));
    graph_free(g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("webnn-format");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, json_exact);
    tcase_add_test(tc, text_exact);
    tcase_add_test(tc, weights_and_manifest_bytes);
    tcase_add_test(tc, floats_shortest_and_typed);
    tcase_add_test(tc, nonfinite_option_fails);
    tcase_add_test(tc, expression_dim_fails);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
