/* test_webnn_text.c - the .webnn text reader (graph_text_read.c): a hand-written graph in the
 * grammar's spellings (comments, "v" 2, @quantized, dyn dims, @bytes/@scalar/@weights, a const
 * without annotation, options with arrays, objects, strings, identifiers, booleans, bracketed
 * operand lists, multi-output nodes, "outputs { a, b }") reads to the expected JSON; malformed
 * text is rejected with one line naming the file and the line; the limits (token length, nesting)
 * hold; every input under tests/fuzz/regressions/webnn_text/ reads or is rejected with one line. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webnn_test_util.h"

static const char *sample =
    "# a comment line\n"
    "webnn_graph \"t\" v 2 @quantized {\n"
    "  inputs { x: f32[dyn(\"batch\", 4), 6]; }  # trailing comment\n"
    "  consts {\n"
    "    s: f32[6] @bytes([0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64, 0, 0, 192, 64]);\n"
    "    k: f32[] @scalar(-2.5e-1);\n"
    "  }\n"
    "  nodes {\n"
    "    m = mul(x, k);\n"
    "    a = add(m, s);\n"
    "    [p, q] = split(a, splits=[2, 4], axis=1);\n"
    "    c = concat([q, p], axis=1);\n"
    "    r = reshape(c, newShape=[{\"name\": \"batch\", \"maxSize\": 4}, 3, 2]);\n"
    "    y = softmax(r, axis=2);\n"
    "  }\n"
    "  outputs { y, p; }\n"
    "}\n";

START_TEST(reads_every_spelling) {
    diag_clear();
    Graph *g = webnn_read_text(sample, strlen(sample), NULL);
    ck_assert_msg(g != NULL, "%s", diag_message());
    ck_assert(g->quantized);
    ck_assert_int_eq(g->n_inputs, 1);
    ck_assert_int_eq(g->n_outputs, 2);
    ck_assert_int_eq(graph_node_count(g), 6);
    char *json = webnn_graph_json(g);
    ck_assert_msg(json != NULL, "%s", diag_message());
    const char *needles[] = {"{\"name\": \"batch\", \"maxSize\": 4}", "\"kind\": \"scalar\", \"value\": -0.25",
                             "\"op\": \"split\"", "\"splits\": [2, 4]", "\"inputs\": [\"q\", \"p\"]",
                             "\"newShape\": [{\"name\": \"batch\", \"maxSize\": 4}, 3, 2]", "\"quantized\": true"};
    for (size_t i = 0; i < sizeof needles / sizeof *needles; i++)
        ck_assert_msg(strstr(json, needles[i]) != NULL, "missing %s in\n%s", needles[i], json);
    /* Its own text form reads back to the same text. */
    char *t1 = webnn_graph_text(g);
    Graph *g2 = webnn_read_text(t1, strlen(t1), NULL);
    ck_assert_msg(g2 != NULL, "%s\n%s", diag_message(), t1);
    char *t2 = webnn_graph_text(g2);
    ck_assert_str_eq(t1, t2);
    free(json);
    free(t1);
    free(t2);
    graph_free(g2);
    graph_free(g);
}
END_TEST

/* `text` is rejected with one line containing "graph text:LINE:" and `needle`. */
static void rejects(const char *text, int line, const char *needle) {
    diag_clear();
    Graph *g = webnn_read_text(text, strlen(text), NULL);
    ck_assert_msg(g == NULL, "accepted: %s", text);
    const char *m = diag_message();
    char where[64];
    snprintf(where, sizeof where, "graph text:%d: ", line);
    ck_assert_msg(line == 0 || strstr(m, where), "'%s' lacks '%s' for: %s", m, where, text);
    ck_assert_msg(strstr(m, needle), "'%s' lacks '%s' for: %s", m, needle, text);
    ck_assert_ptr_null(strchr(m, '\n'));
}

START_TEST(rejects_malformed_text) {
    rejects("", 1, "starts with webnn_graph, found the end of the file");
    rejects("{\"format\": 1}", 1, "starts with webnn_graph");
    rejects("webnn_graph t v2 {}", 1, "expected the graph name string");
    rejects("webnn_graph \"t\" version2 {}", 1, "expected the version (v1 or v2)");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f33[2]; }\n}", 2, "unknown data type 'f33'");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[2] }\n}", 2, "expected ';' after the declaration");
    rejects("webnn_graph \"t\" v2 {\n widgets { }\n}", 2, "unknown block 'widgets'");
    rejects("webnn_graph \"t\" v2 {\n consts { w: f32[2] @magic(1); }\n}", 2, "unknown annotation @magic");
    rejects("webnn_graph \"t\" v2 {\n consts { w: f32[2] @bytes(1); }\n}", 2, "expected '[' of the byte list");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[2]; }\n nodes { y = relu(x, 3); }\n}", 3,
            "expected an operand name or NAME=value, found number 3");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[2]; }\n nodes { y = relu(x; }\n}", 3, "expected ',' between arguments");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[2]; }\n nodes { y = relu(\"x); }\n}", 3, "unterminated string");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[dyn(batch, 4)]; }\n}", 2, "expected the dynamic dimension's name");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[2]; }\n outputs { x; }\n} extra", 4, "expected the end of the file");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[2]; }\n nodes { y = relu(x, a=\"\\q\"); }\n}", 3, "bad escape");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[2]; }\n nodes { y = relu(x, a=1e999); }\n}", 3, "out of range");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[2]; }\n nodes { y = relu(x, a=\x01); }\n}", 3, "unexpected byte 0x01");
    /* What parses is then checked as the JSON reader checks it (file name, no line). */
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[2]; }\n nodes { y = frobnicate(x); }\n outputs { y; }\n}", 0,
            "frobnicate");
    rejects("webnn_graph \"t\" v2 {\n inputs { x: f32[0]; }\n outputs { x; }\n}", 0, "dimension");
}
END_TEST

START_TEST(limits) {
    size_t n = 70000;
    char *long_name = malloc(n + 200);
    memset(long_name, 'a', n);
    strcpy(long_name + n, ": f32[1]; } }");
    char *text = malloc(n + 300);
    snprintf(text, n + 300, "webnn_graph \"t\" v2 { inputs { %s", long_name);
    rejects(text, 1, "identifier longer than 65536 bytes");
    /* strings: the limit counts the string's bytes, not its escaped spelling (6 bytes per control byte) */
    snprintf(text, n + 300, "webnn_graph \"%.65537s\" v2 { inputs { x: f32[1]; } outputs { x; } }", long_name);
    rejects(text, 1, "string longer than 65536 bytes");
    strcpy(text, "webnn_graph \"");
    for (int i = 0; i < 11000; i++) strcat(text + 12 + 6 * i, "\\u0001");
    strcat(text, "\" v2 { inputs { x: f32[1]; } outputs { x; } }");
    Graph *g = webnn_read_text(text, strlen(text), NULL);
    ck_assert_msg(g != NULL, "%s", diag_message());
    char *again = webnn_graph_text(g);
    ck_assert_ptr_nonnull(again);
    Graph *g2 = webnn_read_text(again, strlen(again), NULL);
    ck_assert_msg(g2 != NULL, "the writer's spelling of a long escaped name reads back: %s", diag_message());
    graph_free(g2);
    graph_free(g);
    free(again);
    char deep[400] = "webnn_graph \"t\" v2 {\n inputs { x: f32[2]; }\n nodes { y = relu(x, a=";
    for (int i = 0; i < 40; i++) strcat(deep, "[");
    rejects(deep, 3, "nested deeper than 32");
    free(long_name);
    free(text);
}
END_TEST

START_TEST(regressions_read_cleanly) {
    const char *root = getenv("WEBNNC_SOURCE_ROOT");
    ck_assert_ptr_nonnull(root);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions/webnn_text", root);
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "missing %s", dir);
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        size_t len;
        char *text = tu_read_file(tu_path(dir, e->d_name), &len);
        diag_clear();
        Graph *g = webnn_read_text(text, len, NULL);
        if (g) graph_free(g);
        else ck_assert_msg(diag_has_error() && !strchr(diag_message(), '\n'), "%s: %s", e->d_name, diag_message());
        free(text);
        count++;
    }
    closedir(d);
    ck_assert_int_gt(count, 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("webnn_text");
    TCase *tc = tcase_create("text");
    tcase_add_test(tc, reads_every_spelling);
    tcase_add_test(tc, rejects_malformed_text);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, regressions_read_cleanly);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
