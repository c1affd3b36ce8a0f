/* test_onnx_external.c - external data: happy paths (offset/length, subfolder, one mapping per
 * file, folder loading) and every refusal (absolute path, "..", symlink escaping the folder,
 * missing file, range past the end, length mismatch, bad numbers, no folder). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "onnx_test_util.h"

static char *dir;
static Graph *graph;
static const float payload[3] = {1.25f, -3.0f, 4096.0f};

/* data.bin: 16 bytes of 0xAA, then the three floats of `payload` (28 bytes). */
static void setup(void) {
    diag_clear();
    dir = tu_tmpdir();
    uint8_t data[28];
    memset(data, 0xAA, 16);
    memcpy(data + 16, payload, 12);
    tu_write_bytes(tu_path(dir, "data.bin"), data, sizeof data);
    graph = graph_new("t");
}

static void teardown(void) {
    graph_free(graph);
    tu_rmtree(dir);
    free(dir);
}

/* Packs a model holding tensor `x` and loads it from memory with `model_dir`. */
static OnnxModel *load_with(TuTensor *x, const char *model_dir) {
    TuModel tm;
    tu_model_init(&tm);
    tu_model_add_init(&tm, &x->t);
    size_t len;
    uint8_t *buf = tu_pack(&tm.model, &len);
    OnnxModel *m = onnx_model_load_buffer(buf, len, model_dir);
    free(buf);
    ck_assert_msg(m != NULL, "load failed: %s", diag_message());
    return m;
}

static int read_external(const char *loc, const char *off, const char *len, OnnxTensorData *d) {
    TuTensor x;
    const int64_t dims[1] = {3};
    tu_tensor_init(&x, "ext_w", 1, 1, dims);
    tu_tensor_external(&x, loc, off, len);
    OnnxModel *m = load_with(&x, dir);
    diag_clear();
    int rc = onnx_tensor_read(m, graph, m->proto->graph->initializer[0], d);
    if (rc == 0) ck_assert(memcmp(d->data, payload, 12) == 0);
    onnx_model_attach(graph, m);
    return rc;
}

static void expect_refused(const char *loc, const char *off, const char *len, const char *needle) {
    OnnxTensorData d;
    ck_assert_int_eq(read_external(loc, off, len, &d), -1);
    ck_assert_msg(strstr(diag_message(), needle), "message \"%s\" lacks \"%s\"", diag_message(),
                  needle);
    ck_assert_msg(strstr(diag_message(), "ext_w"), "message \"%s\" does not name the tensor",
                  diag_message());
}

START_TEST(offset_and_length) {
    OnnxTensorData d;
    ck_assert_msg(read_external("data.bin", "16", "12", &d) == 0, "%s", diag_message());
    ck_assert_int_eq(d.dtype, DT_F32);
    ck_assert_uint_eq(d.nbytes, 12);
}
END_TEST

START_TEST(length_optional) {
    OnnxTensorData d;
    ck_assert_msg(read_external("data.bin", "16", NULL, &d) == 0, "%s", diag_message());
}
END_TEST

START_TEST(subfolder_and_dot) {
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    uint8_t data[12];
    memcpy(data, payload, 12);
    tu_write_bytes(tu_path(sub, "w.bin"), data, 12);
    OnnxTensorData d;
    ck_assert_msg(read_external("sub/w.bin", NULL, NULL, &d) == 0, "%s", diag_message());
    ck_assert_msg(read_external("./sub/./w.bin", "0", "12", &d) == 0, "%s", diag_message());
}
END_TEST

START_TEST(one_mapping_per_file_no_copy) {
    TuTensor a, b;
    const int64_t dims[1] = {3};
    tu_tensor_init(&a, "a", 1, 1, dims);
    tu_tensor_external(&a, "data.bin", "16", "12");
    tu_tensor_init(&b, "b", 1, 1, dims);
    tu_tensor_external(&b, "data.bin", "0", "12");
    TuModel tm;
    tu_model_init(&tm);
    tu_model_add_init(&tm, &a.t);
    tu_model_add_init(&tm, &b.t);
    size_t len;
    uint8_t *buf = tu_pack(&tm.model, &len);
    OnnxModel *m = onnx_model_load_buffer(buf, len, dir);
    free(buf);
    ck_assert_ptr_nonnull(m);
    OnnxTensorData da, db;
    ck_assert_int_eq(onnx_tensor_read(m, graph, m->proto->graph->initializer[0], &da), 0);
    ck_assert_int_eq(onnx_tensor_read(m, graph, m->proto->graph->initializer[1], &db), 0);
    /* both point into the same mapping, 16 bytes apart */
    ck_assert_ptr_eq((const uint8_t *)db.data + 16, da.data);
    ck_assert(memcmp(da.data, payload, 12) == 0);
    onnx_model_free(m);
}
END_TEST

START_TEST(refuse_absolute) {
    char abs[1024];
    snprintf(abs, sizeof abs, "%s/data.bin", dir);
    expect_refused(abs, "16", "12", "relative path");
}
END_TEST

START_TEST(refuse_dotdot) {
    expect_refused("../data.bin", "16", "12", "relative path");
    expect_refused("sub/../data.bin", "16", "12", "relative path");
    expect_refused("..", "16", "12", "relative path");
    expect_refused("", "16", "12", "relative path");
}
END_TEST

START_TEST(refuse_symlink_outside) {
    char *other = tu_tmpdir();
    uint8_t data[28];
    memcpy(data + 16, payload, 12);
    tu_write_bytes(tu_path(other, "secret.bin"), data, sizeof data);
    char target[1024], link[1024];
    snprintf(target, sizeof target, "%s/secret.bin", other);
    snprintf(link, sizeof link, "%s/link.bin", dir);
    ck_assert_int_eq(symlink(target, link), 0);
    expect_refused("link.bin", "16", "12", "outside the model folder");
    tu_rmtree(other);
    free(other);
}
END_TEST

START_TEST(symlink_inside_is_fine) {
    char link[1024];
    snprintf(link, sizeof link, "%s/alias.bin", dir);
    ck_assert_int_eq(symlink("data.bin", link), 0);
    OnnxTensorData d;
    ck_assert_msg(read_external("alias.bin", "16", "12", &d) == 0, "%s", diag_message());
}
END_TEST

START_TEST(refuse_missing_and_folder) {
    expect_refused("nope.bin", "0", "12", "not found");
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/adir", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    expect_refused("adir", "0", "12", "not a regular file");
}
END_TEST

START_TEST(refuse_range) {
    expect_refused("data.bin", "20", "12", "past the end");
    expect_refused("data.bin", "29", NULL, "past the end");
    expect_refused("data.bin", "18446744073709551615", "12", "past the end");
}
END_TEST

START_TEST(refuse_length_mismatch) {
    expect_refused("data.bin", "16", "8", "does not match");
    expect_refused("data.bin", "0", "16", "does not match");
}
END_TEST

START_TEST(refuse_bad_numbers) {
    expect_refused("data.bin", "-1", "12", "bad external data offset");
    expect_refused("data.bin", "1x", "12", "bad external data offset");
    expect_refused("data.bin", "16", "99999999999999999999999", "bad external data length");
    expect_refused(NULL, "16", "12", "without a location");
}
END_TEST

START_TEST(refuse_without_folder) {
    TuTensor x;
    const int64_t dims[1] = {3};
    tu_tensor_init(&x, "ext_w", 1, 1, dims);
    tu_tensor_external(&x, "data.bin", "16", "12");
    OnnxModel *m = load_with(&x, NULL);
    OnnxTensorData d;
    diag_clear();
    ck_assert_int_eq(onnx_tensor_read(m, graph, m->proto->graph->initializer[0], &d), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "no folder"));
    onnx_model_free(m);
}
END_TEST

START_TEST(folder_load_with_config) {
    TuTensor x;
    const int64_t dims[1] = {3};
    tu_tensor_init(&x, "w", 1, 1, dims);
    tu_tensor_external(&x, "data.bin", "16", "12");
    TuModel tm;
    tu_model_init(&tm);
    tu_model_add_init(&tm, &x.t);
    size_t len;
    uint8_t *buf = tu_pack(&tm.model, &len);
    tu_write_bytes(tu_path(dir, "model.onnx"), buf, len);
    free(buf);
    OnnxModel *m = onnx_model_load(dir);
    ck_assert_msg(m != NULL, "%s", diag_message());
    ck_assert_ptr_null(m->genai_config_path);
    OnnxTensorData d;
    ck_assert_int_eq(onnx_tensor_read(m, graph, m->proto->graph->initializer[0], &d), 0);
    ck_assert(memcmp(d.data, payload, 12) == 0);
    ck_assert_int_eq(onnx_model_opset(m, ""), 17);
    ck_assert_int_eq(onnx_model_opset(m, "ai.onnx"), 17);
    ck_assert_int_eq(onnx_model_opset(m, "com.microsoft"), 0);
    onnx_model_attach(graph, m); /* freed (and unmapped) by graph_free */

    tu_write_bytes(tu_path(dir, "genai_config.json"), "{}", 2);
    char file[1024];
    snprintf(file, sizeof file, "%s/model.onnx", dir);
    m = onnx_model_load(file);
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(m->genai_config_path);
    ck_assert_ptr_nonnull(strstr(m->genai_config_path, "genai_config.json"));
    onnx_model_free(m);
}
END_TEST

START_TEST(folder_without_model) {
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/empty", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    ck_assert_ptr_null(onnx_model_load(sub));
    ck_assert_ptr_nonnull(strstr(diag_message(), "no model.onnx"));
    diag_clear();
    snprintf(sub, sizeof sub, "%s/missing.onnx", dir);
    ck_assert_ptr_null(onnx_model_load(sub));
    ck_assert_ptr_nonnull(strstr(diag_message(), "missing.onnx"));
}
END_TEST


/* A data file larger than 2 GiB (sparse): the tensor sits past the 3 GiB mark. */
START_TEST(data_file_over_2gib) {
    char path[1024];
    snprintf(path, sizeof path, "%s/big.bin", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    const off_t at = (off_t)3 << 30;
    ck_assert_int_eq(pwrite(fd, payload, 12, at), 12);
    close(fd);
    OnnxTensorData d;
    ck_assert_msg(read_external("big.bin", "3221225472", "12", &d) == 0, "%s", diag_message());
    expect_refused("big.bin", "3221225476", "12", "past the end");
}
END_TEST

int main(void) {
    Suite *s = suite_create("onnx_external");
    TCase *tc = tcase_create("external");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, offset_and_length);
    tcase_add_test(tc, length_optional);
    tcase_add_test(tc, subfolder_and_dot);
    tcase_add_test(tc, one_mapping_per_file_no_copy);
    tcase_add_test(tc, refuse_absolute);
    tcase_add_test(tc, refuse_dotdot);
    tcase_add_test(tc, refuse_symlink_outside);
    tcase_add_test(tc, symlink_inside_is_fine);
    tcase_add_test(tc, refuse_missing_and_folder);
    tcase_add_test(tc, refuse_range);
    tcase_add_test(tc, refuse_length_mismatch);
    tcase_add_test(tc, refuse_bad_numbers);
    tcase_add_test(tc, refuse_without_folder);
    tcase_add_test(tc, folder_load_with_config);
    tcase_add_test(tc, folder_without_model);
    tcase_add_test(tc, data_file_over_2gib);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
