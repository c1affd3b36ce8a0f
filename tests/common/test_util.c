/* test_util.c - helpers shared by the Check unit tests of every module (test_util.h). */
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"

#define RMTREE_MAX_DEPTH 16

int tu_run_suite(Suite *s) {
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}

char *tu_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/webnnc-test-XXXXXX", base && *base ? base : "/tmp");
    ck_assert_msg(mkdtemp(buf) != NULL, "mkdtemp %s failed", buf);
    char *dir = strdup(buf);
    ck_assert_ptr_nonnull(dir);
    return dir;
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
    rm_level(dir, RMTREE_MAX_DEPTH);
    rmdir(dir);
}

char *tu_scratch;

void tu_scratch_setup(void) {
    diag_clear();
    tu_scratch = tu_tmpdir();
}

void tu_scratch_teardown(void) {
    tu_rmtree(tu_scratch);
    free(tu_scratch);
    tu_scratch = NULL;
}

const char *tu_path(const char *dir, const char *name) {
    static char bufs[4][8192];
    static int k;
    char *b = bufs[k++ & 3];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

char *tu_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *buf = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!buf || got != (size_t)n) {
        free(buf);
        return NULL;
    }
    buf[got] = 0;
    if (len) *len = got;
    return buf;
}

void tu_write_bytes(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_msg(!len || fwrite(data, 1, len, f) == len, "cannot write %s", path);
    ck_assert_msg(fclose(f) == 0, "cannot write %s", path);
}

void tu_write_file(const char *path, const char *text) { tu_write_bytes(path, text, strlen(text)); }

bool tu_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

Value *tu_input(Graph *g, const char *name, DType dt, int rank, const int64_t *shape) {
    Dim d[WN_MAX_RANK];
    ck_assert_int_le(rank, WN_MAX_RANK);
    for (int i = 0; i < rank; i++) d[i] = dim_static(shape[i]);
    return graph_add_input(g, name, dt, rank, d);
}

Node *tu_node_va(Graph *g, OpId op, int n_in, va_list operands) {
    Node *n = graph_new_node(g, op, NULL);
    for (int i = 0; i < n_in; i++) node_add_input(g, n, va_arg(operands, Value *));
    return n;
}

Node *tu_node(Graph *g, OpId op, int n_in, ...) {
    va_list ap;
    va_start(ap, n_in);
    Node *n = tu_node_va(g, op, n_in, ap);
    va_end(ap);
    return n;
}
