/* webnn_test_util.c - helpers for the lib/webnn Check tests (see webnn_test_util.h). */
#include "webnn_test_util.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tu_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/webnn-test-XXXXXX", base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(buf));
    return strdup(buf);
}

static void rm_level(const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            chmod(p, 0755);
            if (depth > 0) rm_level(p, depth - 1);
            rmdir(p);
        } else {
            unlink(p);
        }
    }
    closedir(d);
}

void tu_rmtree(const char *dir) {
    chmod(dir, 0755);
    rm_level(dir, 2);
    rmdir(dir);
}

const char *tu_path(const char *dir, const char *name) {
    static char bufs[4][8192];
    static int k;
    char *b = bufs[k++ & 3];
    snprintf(b, 8192, "%s/%s", dir, name);
    return b;
}

char *tu_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    buf[got] = 0;
    if (len) *len = got;
    return buf;
}

void tu_write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

bool tu_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

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

Value *tu_input(Graph *g, const char *name, DType dt, int rank, const int64_t *shape) {
    Dim d[WN_MAX_RANK];
    for (int i = 0; i < rank; i++) d[i] = dim_static(shape[i]);
    return graph_add_input(g, name, dt, rank, d);
}

Node *tu_node(Graph *g, OpId op, int n_in, ...) {
    Node *n = graph_new_node(g, op, NULL);
    va_list ap;
    va_start(ap, n_in);
    for (int i = 0; i < n_in; i++) node_add_input(g, n, va_arg(ap, Value *));
    va_end(ap);
    return n;
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
    free(j2);
    tu_rmtree(tmp);
    free(tmp);
    return j1;
}

int tu_run_suite(Suite *s) {
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
