/* test_webnn_reader.c - the reader: accepts WPT-style spellings (operand-valued options,
 * positional optional operands, "label", one-element "outputs", version 1) and rejects bad
 * files with a one-line diagnostic naming the problem: truncated JSON, wrong format/version,
 * unknown op, forward reference, bad dtype, bad dims, wrong option types, unknown keys,
 * duplicate names, and weights problems (range past EOF, byteLength, hash, missing manifest). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "webnn_test_util.h"

static const char *base_json =
    "{\"format\": \"webnn-graph-json\", \"version\": 2, \"name\": \"t\",\n"
    " \"inputs\": {\"x\": {\"dataType\": \"float32\", \"shape\": [{\"name\": \"batch\", \"maxSize\": 4}, 3]}},\n"
    " \"consts\": {\"s\": {\"dataType\": \"float32\", \"shape\": [3], \"init\": {\"kind\": \"inlineBytes\", "
    "\"bytes\": [0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64]}},\n"
    "            \"k\": {\"dataType\": \"float32\", \"shape\": [], \"init\": {\"kind\": \"scalar\", \"value\": 2}}},\n"
    " \"nodes\": [{\"id\": \"m\", \"op\": \"mul\", \"inputs\": [\"x\", \"k\"], \"options\": {}},\n"
    "           {\"id\": \"y\", \"op\": \"softmax\", \"inputs\": [\"m\"], \"options\": {\"axis\": 1}}],\n"
    " \"outputs\": {\"y\": \"y\"}}\n";

/* base_json with the first occurrence of `from` replaced by `to` (asserts it occurs). */
static char *variant(const char *from, const char *to) {
    const char *at = strstr(base_json, from);
    ck_assert_msg(at != NULL, "fixture lacks %s", from);
    size_t pre = (size_t)(at - base_json);
    char *s = malloc(strlen(base_json) + strlen(to) + 1);
    memcpy(s, base_json, pre);
    strcpy(s + pre, to);
    strcat(s, at + strlen(from));
    return s;
}

/* Reading `json` (no weights folder) fails and the message contains every needle. */
static void rejects(const char *json, size_t len, const char *needle1, const char *needle2) {
    diag_clear();
    Graph *g = webnn_read_json(json, len, NULL);
    ck_assert_msg(g == NULL, "accepted: %s", json);
    const char *m = diag_message();
    ck_assert_msg(strstr(m, needle1) != NULL, "message '%s' lacks '%s'", m, needle1);
    ck_assert_msg(!needle2 || strstr(m, needle2) != NULL, "message '%s' lacks '%s'", m, needle2);
    ck_assert_msg(strchr(m, '\n') == NULL, "message is not one line: %s", m);
}

static void rejects_variant(const char *from, const char *to, const char *needle1, const char *needle2) {
    char *j = variant(from, to);
    rejects(j, strlen(j), needle1, needle2);
    free(j);
}

static Graph *accepts(const char *json) {
    diag_clear();
    Graph *g = webnn_read_json(json, strlen(json), NULL);
    ck_assert_msg(g != NULL, "rejected: %s", diag_message());
    return g;
}

START_TEST(base_is_valid) {
    Graph *g = accepts(base_json);
    ck_assert_int_eq(g->n_nodes, 2);
    ck_assert_int_eq(g->n_outputs, 1);
    ck_assert_str_eq(g->outputs[0]->name, "y");
    ck_assert_int_eq(g->inputs[0]->shape[0].v, 4);
    ck_assert_str_eq(dim_symbol_name(g, g->inputs[0]->shape[0]), "batch");
    /* scalar 2 fills the const; inline bytes are 1, 2, 3 */
    const Value *k = g->nodes[0]->inputs[1];
    ck_assert_float_eq(*(const float *)k->data, 2.0f);
    const float *s = NULL;
    for (int i = 0; i < g->n_values; i++)
        if (!strcmp(g->values[i]->name, "s")) s = g->values[i]->data;
    ck_assert_ptr_nonnull(s);
    ck_assert_float_eq(s[0], 1.0f);
    ck_assert_float_eq(s[2], 3.0f);
    graph_free(g);
}
END_TEST

START_TEST(truncated_json) {
    size_t len = strlen(base_json);
    for (size_t cut = 0; cut < len - 2; cut += 7) rejects(base_json, cut, "JSON", NULL);
}
END_TEST

START_TEST(wrong_format_and_version) {
    rejects_variant("webnn-graph-json", "webnn-graph", "format", NULL);
    rejects_variant("\"version\": 2", "\"version\": 3", "version", NULL);
    rejects_variant("\"version\": 2", "\"version\": \"2\"", "version", NULL);
    rejects("[1, 2]", 6, "JSON object", NULL);
}
END_TEST

START_TEST(unknown_op) { rejects_variant("\"op\": \"softmax\"", "\"op\": \"foo\"", "unknown op 'foo' at node y", NULL); }
END_TEST

START_TEST(forward_reference) {
    rejects_variant("\"inputs\": [\"x\", \"k\"]", "\"inputs\": [\"x\", \"y\"]", "node 'm'", "'y' is not defined before");
}
END_TEST

START_TEST(bad_dtypes_and_dims) {
    rejects_variant("\"dataType\": \"float32\", \"shape\": [{", "\"dataType\": \"float33\", \"shape\": [{", "'float33'", "input 'x'");
    rejects_variant("\"shape\": [3]", "\"shape\": [-3]", "const 's'", "out of range");
    rejects_variant("\"shape\": [3]", "\"shape\": [0]", "const 's'", "out of range");
    rejects_variant("\"shape\": [3]", "\"shape\": [1.5]", "const 's'", "dimension");
    rejects_variant("\"maxSize\": 4", "\"maxSize\": 0", "input 'x'", "maxSize");
    rejects_variant("\"maxSize\": 4", "\"maxSize\": -2", "input 'x'", "maxSize");
    rejects_variant("{\"name\": \"batch\", \"maxSize\": 4}", "{\"maxSize\": 4}", "input 'x'", "name");
    rejects_variant("\"shape\": [3]", "\"shape\": [{\"name\": \"n\", \"maxSize\": 3}]", "const 's'", "dynamic");
    rejects_variant("\"shape\": [3]", "\"shape\": [1, 1, 1, 1, 1, 1, 1, 1, 3]", "const 's'", "rank");
}
END_TEST

START_TEST(option_types_and_keys) {
    rejects_variant("\"axis\": 1", "\"axis\": \"1\"", "node 'y'", "option 'axis'");
    rejects_variant("\"axis\": 1", "\"axis\": -1", "node 'y'", "option 'axis'");
    rejects_variant("\"axis\": 1", "\"axis\": 1.5", "node 'y'", "option 'axis'");
    rejects_variant("\"axis\": 1", "\"axis\": 1, \"axes\": [1]", "node 'y'", "unknown option 'axes'");
    rejects_variant("\"axis\": 1", "\"axis\": 1, \"axis\": 0", "node 'y'", "twice");
    rejects_variant("{\"axis\": 1}", "{}", "node 'y'", "required option 'axis'");
    char *labelled = variant("\"axis\": 1", "\"axis\": 1, \"label\": \"any\"");
    graph_free(accepts(labelled));
    free(labelled);
}
END_TEST

START_TEST(names_consts_outputs) {
    rejects_variant("\"id\": \"m\"", "\"id\": \"x\"", "'x'", "already defined");
    rejects_variant("\"id\": \"m\", \"op\": \"mul\", \"inputs\": [\"x\", \"k\"]", "\"id\": \"y\", \"op\": \"mul\", \"inputs\": [\"x\", \"k\"]", "'y'", NULL);
    rejects_variant("\"outputs\": {\"y\": \"y\"}", "\"outputs\": {\"y\": \"nope\"}", "output 'y'", NULL);
    rejects_variant("\"outputs\": {\"y\": \"y\"}", "\"outputs\": {}", "outputs", NULL);
    rejects_variant("\"bytes\": [0, 0, 128, 63,", "\"bytes\": [0, 128, 63,", "const 's'", "12 bytes");
    rejects_variant("\"bytes\": [0, 0, 128, 63,", "\"bytes\": [0, 0, 256, 63,", "const 's'", "not a byte");
    rejects_variant("\"kind\": \"scalar\"", "\"kind\": \"zeros\"", "const 'k'", "'zeros'");
    rejects_variant("\"value\": 2", "\"value\": \"2\"", "const 'k'", "scalar");
    rejects_variant("\"kind\": \"scalar\", \"value\": 2", "\"kind\": \"weights\", \"ref\": \"k\"", "external weights", NULL);
}
END_TEST

START_TEST(wpt_style_spellings) {
    const char *json =
        "{\"format\": \"webnn-graph-json\", \"version\": 1,\n"
        " \"inputs\": {\"x\": {\"dataType\": \"float32\", \"shape\": [2, 3]}},\n"
        " \"consts\": {\"sc\": {\"dataType\": \"float32\", \"shape\": [3], \"init\": {\"kind\": \"scalar\", \"value\": 1.5}},\n"
        "            \"bi\": {\"dataType\": \"float32\", \"shape\": [3], \"init\": {\"kind\": \"scalar\", \"value\": -1}},\n"
        "            \"img\": {\"dataType\": \"float32\", \"shape\": [1, 1, 3, 3], \"init\": {\"kind\": \"scalar\", \"value\": 1}},\n"
        "            \"fl\": {\"dataType\": \"float32\", \"shape\": [2, 1, 1, 1], \"init\": {\"kind\": \"scalar\", \"value\": 2}},\n"
        "            \"cb\": {\"dataType\": \"float32\", \"shape\": [2], \"init\": {\"kind\": \"scalar\", \"value\": 0.5}}},\n"
        " \"nodes\": [\n"
        "  {\"id\": \"n1\", \"op\": \"layerNormalization\", \"inputs\": [\"x\"], \"options\": {\"axes\": [1], \"scale\": \"sc\", \"bias\": \"bi\", \"label\": \"ln\"}},\n"
        "  {\"id\": \"n2\", \"op\": \"layerNormalization\", \"inputs\": [\"x\", \"sc\"], \"options\": {\"axes\": [1]}, \"outputs\": [\"n2out\"]},\n"
        "  {\"id\": \"c1\", \"op\": \"conv2d\", \"inputs\": [\"img\", \"fl\"], \"options\": {\"bias\": \"cb\"}, \"outputs\": null},\n"
        "  {\"id\": \"parts\", \"op\": \"split\", \"inputs\": [\"x\"], \"options\": {\"splits\": [1, 2], \"axis\": 1}, \"outputs\": [\"p1\", \"p2\"]}\n"
        " ],\n"
        " \"outputs\": {\"out1\": \"n1\", \"n2out\": \"n2out\", \"c1\": \"c1\", \"p2\": \"p2\"}}\n";
    Graph *g = accepts(json);
    ck_assert_int_eq(g->n_nodes, 4);
    const Node *n1 = g->nodes[0], *n2 = g->nodes[1], *c1 = g->nodes[2], *sp = g->nodes[3];
    ck_assert_int_eq(n1->n_inputs, 3);
    ck_assert_str_eq(n1->inputs[1]->name, "sc");
    ck_assert_str_eq(n1->inputs[2]->name, "bi");
    ck_assert_str_eq(n2->inputs[1]->name, "sc");
    ck_assert_str_eq(n2->outputs[0]->name, "n2out");
    ck_assert_int_eq(c1->n_inputs, 3);
    ck_assert_str_eq(c1->inputs[2]->name, "cb");
    ck_assert_int_eq(sp->n_outputs, 2);
    ck_assert_str_eq(sp->id, "parts");
    ck_assert_int_eq(sp->outputs[1]->shape[1].v, 2);
    ck_assert_int_eq(g->n_outputs, 4);
    graph_free(g);
    /* Both spellings of an optional operand at once is an error. */
    const char *twice =
        "{\"format\": \"webnn-graph-json\", \"version\": 2,"
        " \"inputs\": {\"x\": {\"dataType\": \"float32\", \"shape\": [2, 3]}},"
        " \"nodes\": [{\"id\": \"n\", \"op\": \"layerNormalization\", \"inputs\": [\"x\", \"x\"], \"options\": {\"scale\": \"x\"}}],"
        " \"outputs\": {\"n\": \"n\"}}";
    rejects(twice, strlen(twice), "node 'n'", "both positionally and as an option");
}
END_TEST

/* A written graph folder whose files the weights tests then damage. */
static char *tmp, *out;

static void weights_setup(void) {
    diag_clear();
    tmp = tu_tmpdir();
    out = strdup(tu_path(tmp, "out"));
    Graph *g = graph_new("w");
    Value *x = tu_input(g, "x", DT_F32, SHAPE(2, 16));
    Value *w = tu_const_f32(g, "w", SHAPE(16, 4), 0.5f, -1.0f);
    graph_add_output(g, tu_finish(g, tu_node(g, OP_MATMUL, 2, x, w)));
    ck_assert_int_eq(webnn_write(g, out, NULL), 0);
    graph_free(g);
}

static void weights_teardown(void) {
    tu_rmtree(tmp);
    free(tmp);
    free(out);
}

static void edit_manifest(const char *from, const char *to) {
    char *m = tu_read_file(tu_path(out, WN_MANIFEST_FILE), NULL);
    char *at = strstr(m, from);
    ck_assert_msg(at != NULL, "manifest lacks %s", from);
    char *s = malloc(strlen(m) + strlen(to) + 1);
    memcpy(s, m, (size_t)(at - m));
    strcpy(s + (at - m), to);
    strcat(s, at + strlen(from));
    tu_write_file(tu_path(out, WN_MANIFEST_FILE), s);
    free(s);
    free(m);
}

static void read_fails(const char *needle1, const char *needle2) {
    diag_clear();
    Graph *g = webnn_read(out);
    ck_assert_msg(g == NULL, "accepted damaged weights");
    const char *m = diag_message();
    ck_assert_msg(strstr(m, needle1) && (!needle2 || strstr(m, needle2)), "message '%s' lacks '%s'/'%s'", m, needle1,
                  needle2 ? needle2 : "");
}

START_TEST(weights_intact) {
    Graph *g = webnn_read(out);
    ck_assert_msg(g != NULL, "%s", diag_message());
    const Value *w = g->nodes[0]->inputs[1];
    ck_assert_float_eq(((const float *)w->data)[1], -0.5f);
    graph_free(g);
    /* also through the file path and a <stem> */
    g = webnn_read(tu_path(out, WN_GRAPH_FILE));
    ck_assert_msg(g != NULL, "%s", diag_message());
    graph_free(g);
}
END_TEST

START_TEST(weights_past_eof) { edit_manifest("\"byteOffset\": 64", "\"byteOffset\": 128"); read_fails("const 'w'", "past the end"); }
END_TEST

START_TEST(weights_wrong_length) { edit_manifest("\"byteLength\": 256", "\"byteLength\": 252"); read_fails("const 'w'", "byteLength"); }
END_TEST

START_TEST(weights_hash_mismatch) {
    FILE *f = fopen(tu_path(out, WN_WEIGHTS_FILE), "r+b");
    fseek(f, 100, SEEK_SET);
    fputc(0x55, f);
    fclose(f);
    read_fails("const 'w'", "xxhash64 does not match");
}
END_TEST

START_TEST(weights_manifest_type) {
    edit_manifest("\"dataType\": \"float32\"", "\"dataType\": \"float16\"");
    read_fails("const 'w'", "dataType");
}
END_TEST

START_TEST(weights_manifest_missing) {
    ck_assert_int_eq(unlink(tu_path(out, WN_MANIFEST_FILE)), 0);
    read_fails("manifest", NULL);
}
END_TEST

START_TEST(weights_ref_unknown) { edit_manifest("\"w\": {", "\"v\": {"); read_fails("const 'w'", "not in manifest"); }
END_TEST

int main(void) {
    Suite *s = suite_create("webnn-reader");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, base_is_valid);
    tcase_add_test(tc, truncated_json);
    tcase_add_test(tc, wrong_format_and_version);
    tcase_add_test(tc, unknown_op);
    tcase_add_test(tc, forward_reference);
    tcase_add_test(tc, bad_dtypes_and_dims);
    tcase_add_test(tc, option_types_and_keys);
    tcase_add_test(tc, names_consts_outputs);
    tcase_add_test(tc, wpt_style_spellings);
    suite_add_tcase(s, tc);
    TCase *tw = tcase_create("weights");
    tcase_add_checked_fixture(tw, weights_setup, weights_teardown);
    tcase_add_test(tw, weights_intact);
    tcase_add_test(tw, weights_past_eof);
    tcase_add_test(tw, weights_wrong_length);
    tcase_add_test(tw, weights_hash_mismatch);
    tcase_add_test(tw, weights_manifest_type);
    tcase_add_test(tw, weights_manifest_missing);
    tcase_add_test(tw, weights_ref_unknown);
    suite_add_tcase(s, tw);
    return tu_run_suite(s);
}
