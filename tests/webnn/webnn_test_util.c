/* webnn_test_util.c - helpers for the lib/webnn Check tests (see webnn_test_util.h). */
#include "webnn_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Value *tu_const_f32(Graph *g, const char *name, int rank, const int64_t *shape, float scale, float offset) {
    uint64_t n = 1;
    for (int i = 0; i < rank; i++) n *= (uint64_t)shape[i];
    float *data = malloc(n * sizeof *data);
    for (uint64_t i = 0; i < n; i++) data[i] = (float)(i % 13) * scale + offset;
    Value *v = graph_add_const_copy(g, name, DT_F32, rank, shape, data, n * sizeof *data);
    free(data);
    return v;
}

Value *tu_const_raw(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const void *data, uint64_t nbytes) {
    return graph_add_const_copy(g, name, dt, rank, shape, data, nbytes);
}

Value *tu_finish(Graph *g, Node *n) {
    int rc = graph_insert_node(g, n);
    ck_assert_msg(rc == 0, "insert %s failed: %s", op_name(n->op), diag_message());
    return n->outputs[0];
}

static void assert_same_file(const char *a, const char *b) {
    size_t la, lb;
    char *x = tu_read_file(a, &la), *y = tu_read_file(b, &lb);
    ck_assert_msg(x && y, "missing %s or %s", a, b);
    ck_assert_msg(la == lb && memcmp(x, y, la) == 0, "%s and %s differ", a, b);
    free(x);
    free(y);
}

char *tu_assert_roundtrip(Graph *g) {
    diag_clear();
    char *j1 = webnn_graph_json(g);
    ck_assert_msg(j1 != NULL, "webnn_graph_json: %s", diag_message());
    char *tmp = tu_tmpdir();
    char out1[4200], out2[4200];
    snprintf(out1, sizeof out1, "%s/one", tmp);
    snprintf(out2, sizeof out2, "%s/two", tmp);
    WebnnWriteOptions opt = {.text = true};
    ck_assert_msg(webnn_write(g, out1, &opt) == 0, "write: %s", diag_message());
    size_t len;
    char *written = tu_read_file(tu_path(out1, WN_GRAPH_FILE), &len);
    ck_assert_str_eq(written, j1);
    free(written);
    Graph *g2 = webnn_read(out1);
    ck_assert_msg(g2 != NULL, "read back: %s", diag_message());
    const char *seeds = getenv("WEBNN_SEED_DIR"); /* collect fuzzing seeds when asked */
    if (seeds) {
        static int k;
        char name[64];
        snprintf(name, sizeof name, "roundtrip_%d_%d.json", (int)getpid(), k++);
        tu_write_file(tu_path(seeds, name), j1);
    }
    char *j2 = webnn_graph_json(g2);
    ck_assert_msg(j2 != NULL, "json of re-read graph: %s", diag_message());
    ck_assert_str_eq(j1, j2);
    ck_assert_msg(webnn_write(g2, out2, &opt) == 0, "write again: %s", diag_message());
    const char *files[] = {WN_GRAPH_FILE, WN_WEIGHTS_FILE, WN_MANIFEST_FILE, WN_TEXT_FILE};
    for (int i = 0; i < 4; i++) assert_same_file(tu_path(out1, files[i]), tu_path(out2, files[i]));
    graph_free(g2);
    /* The text form reads back (with its weights) to a graph whose text is the same. */
    char *text = tu_read_file(tu_path(out1, WN_TEXT_FILE), &len);
    Graph *g3 = webnn_read(tu_path(out1, WN_TEXT_FILE));
    ck_assert_msg(g3 != NULL, "read the text form back: %s\n%s", diag_message(), text);
    char *text3 = webnn_graph_text(g3);
    ck_assert_msg(text3 != NULL, "text of the graph read from text: %s", diag_message());
    ck_assert_str_eq(text, text3);
    graph_free(g3);
    free(text);
    free(text3);
    free(j2);
    tu_rmtree(tmp);
    free(tmp);
    return j1;
}
