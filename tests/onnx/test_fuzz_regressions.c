/* test_fuzz_regressions.c - every input under tests/fuzz/regressions/onnx_load/ once crashed the loader or
 * importer under libFuzzer.  Each must now load and import without crashing: either cleanly or
 * with a one-line diagnostic.  (Run under ASan+UBSan in CI, where the original crashes abort.) */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "onnx_import.h"
#include "onnx_model.h"
#include "onnx_test_util.h"

START_TEST(regressions_import_cleanly) {
    const char *root = getenv("WEBNNC_SOURCE_ROOT");
    ck_assert_ptr_nonnull(root);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions/onnx_load", root);
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "missing %s", dir);
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        static unsigned char buf[1 << 20];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        diag_clear();
        OnnxModel *m = onnx_model_load_buffer(buf, len, NULL);
        if (m) {
            ImportOptions opt = {0};
            Graph *g = onnx_import(m, &opt);
            if (g) graph_free(g);
            else onnx_model_free(m);
        }
        if (diag_has_error()) ck_assert_ptr_null(strchr(diag_message(), '\n'));
        count++;
    }
    closedir(d);
    ck_assert_int_gt(count, 0);
}
END_TEST

int main(void) {
    TCase *tc = tcase_create("fuzz_regressions");
    tcase_add_test(tc, regressions_import_cleanly);
    Suite *s = suite_create("onnx_fuzz_regressions");
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
