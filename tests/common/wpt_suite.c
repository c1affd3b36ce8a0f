/* wpt_suite.c - the shared WPT suite driver (wpt_suite.h); the corpus's lost non-finite values
 * are restored from testdata/wpt/nonfinite_restore.json (wpt_restore.h) as each file loads. */
#include "wpt_suite.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "wpt_restore.h"

#define MAX_FILES 256

static char wpt_dir[4096];
static char *files[MAX_FILES];
static int n_files;
static WptRunFn run_fn;
static const WptXfail *xf_list;
static size_t xf_count;
static int total_pass, total_fail, total_xfail, total_restored;
static WptRestore *restore;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool find_files(void) {
    const char *root = getenv("WEBNNC_SOURCE_ROOT");
    snprintf(wpt_dir, sizeof wpt_dir, "%s/../shared/wpt-webnn", root ? root : ".");
    DIR *d = opendir(wpt_dir);
    if (!d) return false;
    struct dirent *e;
    while ((e = readdir(d)) && n_files < MAX_FILES) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) files[n_files++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(files, (size_t)n_files, sizeof *files, cmp_str);
    return n_files > 0;
}

static const char *expected_failure(const char *file, const char *name) {
    for (size_t i = 0; i < xf_count; i++)
        if (!strcmp(xf_list[i].file, file) && !strcmp(xf_list[i].name, name)) return xf_list[i].reason;
    return NULL;
}

/* The restoration file beside the sources (WEBNNC_SOURCE_ROOT, like the corpus). */
static WptRestore *load_restore(void) {
    const char *root = getenv("WEBNNC_SOURCE_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/testdata/wpt/nonfinite_restore.json", root ? root : ".");
    diag_clear();
    return wpt_restore_load(path);
}

START_TEST(wpt_file) {
    ck_assert_int_lt(_i, n_files);
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", wpt_dir, files[_i]);
    diag_clear();
    WptFile *f = wpt_file_load(path);
    ck_assert_msg(f != NULL, "%s: %s", path, diag_message());
    int restored = wpt_restore_apply(restore, f);
    if (restored < 0) { /* every case of the file counts as failed */
        fprintf(stderr, "FAIL %s\n", diag_message());
        printf("wpt %-28s restoration failed: %d cases not run\n", files[_i], wpt_file_case_count(f));
        total_fail += wpt_file_case_count(f);
        wpt_file_free(f);
        ck_abort_msg("%s", diag_message());
    }
    total_restored += restored;
    int pass = 0, fail = 0, xfail = 0, count = wpt_file_case_count(f);
    char stem[256];
    snprintf(stem, sizeof stem, "%s", files[_i]);
    stem[strlen(stem) - 5] = 0; /* drop ".json" */
    char first_failure[1024] = "";
    for (int i = 0; i < count; i++) {
        diag_clear();
        char why[600] = "";
        const char *name = wpt_file_case_name(f, i);
        WptCase *c = wpt_case_build(f, i);
        const char *reason = c ? run_fn(c, why, sizeof why) : diag_message();
        const char *xf = expected_failure(stem, name);
        if (!reason && !xf) {
            pass++;
        } else if (reason && xf) {
            xfail++;
        } else {
            fail++;
            fprintf(stderr, "FAIL %s: %s: %s\n", stem, name, reason ? reason : "passes but is listed as an expected failure");
            if (!first_failure[0]) snprintf(first_failure, sizeof first_failure, "%s: %s", name, reason ? reason : "unexpected pass");
        }
        wpt_case_free(c);
    }
    printf("wpt %-28s %3d passed, %3d failed, %d expected failures\n", files[_i], pass, fail, xfail);
    fflush(stdout);
    total_pass += pass;
    total_fail += fail;
    total_xfail += xfail;
    wpt_file_free(f);
    ck_assert_msg(fail == 0, "%s: %d of %d cases failed, first: %s", files[_i], fail, count, first_failure);
}
END_TEST

int wpt_suite_main(const char *suite_name, WptRunFn run, const WptXfail *xfails, size_t n_xfails) {
    const char *ci = getenv("CI");
    bool under_ci = ci && !strcmp(ci, "true");
    if (!find_files()) {
        fprintf(stderr, "%s: %s not found%s\n", suite_name, wpt_dir, under_ci ? " (CI=true: failing)" : "; skipping");
        return under_ci ? 1 : 77;
    }
    if (!(restore = load_restore())) {
        fprintf(stderr, "%s: %s\n", suite_name, diag_message());
        return 1;
    }
    run_fn = run;
    xf_list = xfails;
    xf_count = n_xfails;
    Suite *s = suite_create(suite_name);
    TCase *tc = tcase_create("wpt");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, wpt_file, 0, n_files);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    diag_clear();
    if (wpt_restore_check_used(restore) < 0) {
        fprintf(stderr, "FAIL %s\n", diag_message());
        failed++;
    }
    wpt_restore_free(restore);
    printf("wpt restored: %d cases whose Infinity/NaN the corpus lost (testdata/wpt/nonfinite_restore.json)\n",
           total_restored);
    printf("wpt total: %d passed, %d failed, %d expected failures\n", total_pass, total_fail, total_xfail);
    for (int i = 0; i < n_files; i++) free(files[i]);
    return failed ? 1 : 0;
}
