/* test_webnn_outdir.c - webnn_write's atomic output folder: a previous webnnc output is
 * replaced, anything else is left alone, and on every failure (foreign folder, a file in the
 * way, a write failing half way through the weights) no temporary folder is left behind. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "webnn_test_util.h"


/* Number of entries in tu_scratch (the output folder's parent). */
static int entries(void) {
    DIR *d = opendir(tu_scratch);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static Graph *graph_with_weights(const char *name, int64_t k) {
    Graph *g = graph_new(name);
    Value *x = tu_input(g, "x", DT_F32, SHAPE(1, k));
    Value *w = tu_const_f32(g, "w", SHAPE(k, 64), 0.25f, 1.0f);
    graph_add_output(g, tu_finish(g, tu_node(g, OP_MATMUL, 2, x, w)));
    return g;
}

START_TEST(replaces_previous_output) {
    const char *out = tu_path(tu_scratch, "out");
    Graph *a = graph_with_weights("first", 8), *b = graph_with_weights("second", 16);
    WebnnWriteOptions text = {.text = true};
    ck_assert_int_eq(webnn_write(a, out, &text), 0);
    ck_assert(tu_exists(tu_path(out, WN_TEXT_FILE)));
    ck_assert_int_eq(webnn_write(b, out, NULL), 0);
    char *j = tu_read_file(tu_path(out, WN_GRAPH_FILE), NULL);
    ck_assert_ptr_nonnull(strstr(j, "\"name\": \"second\""));
    ck_assert(!tu_exists(tu_path(out, WN_TEXT_FILE))); /* the old folder is gone as a whole */
    ck_assert_int_eq(entries(), 1);
    free(j);
    graph_free(a);
    graph_free(b);
}
END_TEST

/* The pre-commit check sees the finished files in the temporary folder; when it fails, the
 * write fails and neither the output nor the temporary folder remains. */
static int check_calls;
static int check_sees_files(const char *dir, void *ctx) {
    check_calls++;
    ck_assert(tu_exists(tu_path(dir, WN_GRAPH_FILE)));
    ck_assert(tu_exists(tu_path(dir, WN_WEIGHTS_FILE)));
    ck_assert(tu_exists(tu_path(dir, WN_MANIFEST_FILE)));
    return *(int *)ctx;
}

START_TEST(failed_check_leaves_nothing) {
    char out[4096]; /* tu_path's buffer is reused by the check */
    snprintf(out, sizeof out, "%s", tu_path(tu_scratch, "out"));
    Graph *g = graph_with_weights("checked", 8);
    int verdict = -1;
    WebnnWriteOptions opt = {.check = check_sees_files, .check_ctx = &verdict};
    check_calls = 0;
    ck_assert_int_ne(webnn_write(g, out, &opt), 0);
    ck_assert_int_eq(check_calls, 1);
    ck_assert_int_eq(entries(), 0);
    verdict = 0;
    diag_clear();
    ck_assert_msg(webnn_write(g, out, &opt) == 0, "%s", diag_message());
    ck_assert_int_eq(check_calls, 2);
    ck_assert(tu_exists(tu_path(out, WN_GRAPH_FILE)));
    ck_assert_int_eq(entries(), 1);
    graph_free(g);
}
END_TEST

START_TEST(refuses_foreign_folder) {
    char out[8192];
    snprintf(out, sizeof out, "%s/out", tu_scratch);
    Graph *a = graph_with_weights("a", 8);
    ck_assert_int_eq(webnn_write(a, out, NULL), 0);
    tu_write_file(tu_path(out, "notes.txt"), "keep me");
    diag_clear();
    ck_assert_int_eq(webnn_write(a, out, NULL), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "not replacing"));
    ck_assert(tu_exists(tu_path(out, "notes.txt")));
    ck_assert_int_eq(entries(), 1);
    graph_free(a);
}
END_TEST

START_TEST(file_in_the_way) {
    const char *out = tu_path(tu_scratch, "out");
    tu_write_file(out, "x");
    Graph *a = graph_with_weights("a", 8);
    ck_assert_int_eq(webnn_write(a, out, NULL), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "not a folder"));
    ck_assert_int_eq(entries(), 1);
    graph_free(a);
}
END_TEST

START_TEST(missing_parent) {
    Graph *a = graph_with_weights("a", 8);
    ck_assert_int_eq(webnn_write(a, tu_path(tu_scratch, "no/such/out"), NULL), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "temporary folder"));
    ck_assert_int_eq(entries(), 0);
    graph_free(a);
}
END_TEST

START_TEST(failure_half_way_through_weights) {
    /* 4096 x 64 floats = 1 MiB of weights; files may not exceed 256 KiB in this process. */
    Graph *a = graph_with_weights("big", 4096);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {256 << 10, 256 << 10};
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    ck_assert_int_eq(webnn_write(a, tu_path(tu_scratch, "out"), NULL), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), WN_WEIGHTS_FILE));
    ck_assert_int_eq(entries(), 0);
    graph_free(a);
}
END_TEST

int main(void) {
    Suite *s = suite_create("webnn-outdir");
    TCase *tc = tcase_create("outdir");
    tcase_add_checked_fixture(tc, tu_scratch_setup, tu_scratch_teardown);
    tcase_add_test(tc, replaces_previous_output);
    tcase_add_test(tc, failed_check_leaves_nothing);
    tcase_add_test(tc, refuses_foreign_folder);
    tcase_add_test(tc, file_in_the_way);
    tcase_add_test(tc, missing_parent);
    tcase_add_test(tc, failure_half_way_through_weights);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
