/* test_webnn_outfile.c - output files never write through a planted symlink (the write side of
 * CVE-2025-51480: `run --output-dir DIR` with DIR/logits.npy -> some file): OutFile (outdir.h) and
 * onnx_tensor_file_write_npy, which `run --output-dir` uses, replace a link at the output's name and
 * leave its target untouched; a dangling link does not create its target; a failed or aborted
 * write leaves an existing file as it was and no temporary file behind; a folder at the name is
 * refused; webnn_write refuses an output folder that is a symlink. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outdir.h"
#include "tensor_file.h"
#include "webnn_test_util.h"

/* Entries of tu_scratch/sub, hidden ones (temporary files) included. */
static int entries_in(const char *sub) {
    DIR *d = opendir(tu_path(tu_scratch, sub));
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static bool is_regular_not_link(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void assert_victim_untouched(void) {
    char *v = tu_read_file(tu_path(tu_scratch, "victim"), NULL);
    ck_assert_str_eq(v, "precious");
    free(v);
}

/* Plants tu_scratch/name -> tu_scratch/target; returns the link's path (static). */
static const char *plant_link(const char *name, const char *target) {
    static char link[4096];
    snprintf(link, sizeof link, "%s", tu_path(tu_scratch, name));
    ck_assert_int_eq(symlink(tu_path(tu_scratch, target), link), 0);
    return link;
}

static void setup_out_and_victim(void) {
    tu_scratch_setup();
    ck_assert_int_eq(mkdir(tu_path(tu_scratch, "out"), 0755), 0);
    tu_write_file(tu_path(tu_scratch, "victim"), "precious");
}

START_TEST(npy_replaces_planted_symlink) {
    const char *link = plant_link("out/logits.npy", "victim");
    const float data[3] = {1, 2, 3};
    const int64_t shape[1] = {3};
    ck_assert_int_eq(onnx_tensor_file_write_npy(link, DT_F32, 1, shape, data), 0);
    assert_victim_untouched();
    ck_assert(is_regular_not_link(link));
    TensorFile t;
    ck_assert_int_eq(onnx_tensor_file_read(link, &t), 0);
    ck_assert_int_eq(t.rank, 1);
    ck_assert_int_eq(t.shape[0], 3);
    ck_assert_mem_eq(t.data, data, sizeof data);
    onnx_tensor_file_free(&t);
    ck_assert_int_eq(entries_in("out"), 1);
}
END_TEST

START_TEST(dangling_symlink_target_not_created) {
    const char *link = plant_link("out/y.npy", "created-through-link");
    const int64_t shape[1] = {1};
    const int32_t v = 7;
    ck_assert_int_eq(onnx_tensor_file_write_npy(link, DT_I32, 1, shape, &v), 0);
    ck_assert(!tu_exists(tu_path(tu_scratch, "created-through-link")));
    ck_assert(is_regular_not_link(link));
}
END_TEST

START_TEST(abort_leaves_existing_file) {
    const char *path = tu_path(tu_scratch, "victim");
    OutFile f;
    ck_assert_int_eq(wn_outfile_open(&f, path), 0);
    ck_assert_int_eq(wn_outfile_write(&f, "partial", 7), 0);
    wn_outfile_abort(&f);
    assert_victim_untouched();
    ck_assert_int_eq(entries_in("."), 2); /* out/ and victim: no temporary file left */
}
END_TEST

START_TEST(commit_replaces_file) {
    const char *path = tu_path(tu_scratch, "victim");
    OutFile f;
    ck_assert_int_eq(wn_outfile_open(&f, path), 0);
    ck_assert_int_eq(wn_outfile_write(&f, "new", 3), 0);
    ck_assert_int_eq(wn_outfile_commit(&f), 0);
    char *v = tu_read_file(path, NULL);
    ck_assert_str_eq(v, "new");
    free(v);
    ck_assert_int_eq(entries_in("."), 2);
}
END_TEST

START_TEST(folder_at_the_name_is_refused) {
    OutFile f;
    ck_assert_int_eq(wn_outfile_open(&f, tu_path(tu_scratch, "out")), 0);
    ck_assert_int_eq(wn_outfile_write(&f, "x", 1), 0);
    ck_assert_int_eq(wn_outfile_commit(&f), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "is a folder"));
    ck_assert_int_eq(entries_in("."), 2);
    ck_assert_int_eq(entries_in("out"), 0);
}
END_TEST

START_TEST(webnn_write_refuses_symlinked_outdir) {
    const char *link = plant_link("linked-out", "out");
    Graph *g = graph_new("g");
    Value *x = tu_input(g, "x", DT_F32, SHAPE(1, 4));
    graph_add_output(g, tu_finish(g, tu_node(g, OP_RELU, 1, x)));
    ck_assert_int_eq(webnn_write(g, link, NULL), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "not a folder"));
    ck_assert_int_eq(entries_in("out"), 0);
    ck_assert_int_eq(entries_in("."), 3); /* out/, victim, the link: no temporary folder */
    graph_free(g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("webnn-outfile");
    TCase *tc = tcase_create("outfile");
    tcase_add_checked_fixture(tc, setup_out_and_victim, tu_scratch_teardown);
    tcase_add_test(tc, npy_replaces_planted_symlink);
    tcase_add_test(tc, dangling_symlink_target_not_created);
    tcase_add_test(tc, abort_leaves_existing_file);
    tcase_add_test(tc, commit_replaces_file);
    tcase_add_test(tc, folder_at_the_name_is_refused);
    tcase_add_test(tc, webnn_write_refuses_symlinked_outdir);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
