/* test_reader_limits.c - one test per resource limit of input_limits.def: each reader refuses an
 * input one step past the limit with one error line naming the limit ("above the limit NAME (N)")
 * and accepts the same input at the limit.  Limits are lowered with input_limit_set so that small
 * real files (testdata/tiny_mlp.onnx and what webnn_write makes of it) cross them; the JSON nesting
 * and string-length defaults are also crossed at their real values.  A FIFO in place of a file is
 * refused without blocking.  The tokenizer limits use a small hand-written tokenizer.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core.h"
#include "genai_config.h"
#include "impl_limits.h"
#include "onnx_import.h"
#include "tensor_file.h"
#include "test_util.h"
#include "tokenizer.h"
#include "webnn_io.h"

static void restore_limits(void) {
    for (int l = 0; l < LIMIT_COUNT; l++) input_limit_set((InputLimit)l, 0);
    tu_scratch_teardown();
}

static const char *tiny_mlp(void) {
    static char path[4096];
    snprintf(path, sizeof path, "%s/testdata/tiny_mlp.onnx", getenv("WEBNNC_SOURCE_ROOT"));
    return path;
}

static uint64_t file_size(const char *path) {
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

/* The last error names `limit` with its current value, on one line. */
static void expect_limit(InputLimit limit) {
    char want[128];
    snprintf(want, sizeof want, "above the limit %s (%llu)", input_limit_name(limit),
             (unsigned long long)input_limit(limit));
    ck_assert_msg(diag_has_error(), "no error; expected '%s'", want);
    ck_assert_msg(strstr(diag_message(), want) != NULL, "'%s' lacks '%s'", diag_message(), want);
    ck_assert_ptr_null(strchr(diag_message(), '\n'));
    diag_clear();
}

static bool onnx_loads(const char *path) {
    diag_clear();
    OnnxModel *m = onnx_model_load(path);
    onnx_model_free(m);
    return m != NULL;
}

/* tiny_mlp imported (batch fixed to 1) and written as a webnn-graph folder; returns the folder. */
static const char *webnn_folder(void) {
    OnnxModel *m = onnx_model_load(tiny_mlp());
    ck_assert_ptr_nonnull(m);
    DimSetting fix = {"batch", 1};
    ImportOptions opt = {.fix = &fix, .n_fix = 1};
    Graph *g = onnx_import(m, &opt);
    ck_assert_msg(g != NULL, "%s", diag_message());
    char *out = strdup(tu_path(tu_scratch, "out"));
    ck_assert_int_eq(webnn_write(g, out, NULL), 0);
    graph_free(g);
    static char keep[4096];
    snprintf(keep, sizeof keep, "%s", out);
    free(out);
    return keep;
}

static bool webnn_reads(const char *dir) {
    diag_clear();
    Graph *g = webnn_read(dir);
    graph_free(g);
    return g != NULL;
}

static const char *write_npy6(void) {
    const char *path = tu_path(tu_scratch, "x.npy");
    const float v[6] = {0};
    const int64_t shape[2] = {2, 3};
    ck_assert_int_eq(onnx_tensor_file_write_npy(path, DT_F32, 2, shape, v), 0);
    return path;
}

static bool npy_reads(const char *path) {
    TensorFile t;
    diag_clear();
    int rc = onnx_tensor_file_read(path, &t);
    if (rc == 0) onnx_tensor_file_free(&t);
    return rc == 0;
}

static bool genai_reads(const char *text) {
    const char *path = tu_path(tu_scratch, "genai_config.json");
    tu_write_file(path, text);
    GenaiConfig cfg;
    diag_clear();
    return onnx_genai_config_read(path, &cfg) == 0;
}

/* `limit` set one byte below the size of `file`, then to its size: read(arg) fails naming the
 * limit, then succeeds. */
static void size_limit_case(InputLimit limit, const char *file, bool (*read)(const char *), const char *arg) {
    uint64_t n = file_size(file);
    input_limit_set(limit, n - 1);
    ck_assert(!read(arg));
    expect_limit(limit);
    input_limit_set(limit, n);
    ck_assert_msg(read(arg), "%s", diag_message());
}

/* A tokenizer.json with 5 vocab entries and 2 merges. */
static const char *write_tokenizer(void) {
    const char *path = tu_path(tu_scratch, "tokenizer.json");
    tu_write_file(path, "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"c\": 2, \"ab\": 3, \"abc\": 4},"
                        " \"merges\": [\"a b\", \"ab c\"]}}");
    static char keep[4096];
    snprintf(keep, sizeof keep, "%s", path);
    return keep;
}

static bool tokenizer_reads(const char *path) {
    diag_clear();
    Tokenizer *t = tokenizer_load(path);
    tokenizer_free(t);
    return t != NULL;
}

/* `limit` set to `at` - 1, then to `at`: the tokenizer fails naming the limit, then loads. */
static void tokenizer_count_case(InputLimit limit, uint64_t at) {
    const char *path = write_tokenizer();
    input_limit_set(limit, at - 1);
    ck_assert(!tokenizer_reads(path));
    expect_limit(limit);
    input_limit_set(limit, at);
    ck_assert_msg(tokenizer_reads(path), "%s", diag_message());
}

START_TEST(tokenizer_file_size) {
    const char *path = write_tokenizer();
    size_limit_case(LIMIT_TOKENIZER_FILE_BYTES, path, tokenizer_reads, path);
}
END_TEST

static bool text_reads(const char *path) { /* tokenize --file */
    size_t len;
    diag_clear();
    char *text = input_file_read(path, LIMIT_TEXT_FILE_BYTES, &len);
    free(text);
    return text != NULL;
}

START_TEST(text_file_size) {
    const char *path = write_tokenizer(); /* any small file */
    size_limit_case(LIMIT_TEXT_FILE_BYTES, path, text_reads, path);
}
END_TEST

START_TEST(vocab_size) { tokenizer_count_case(LIMIT_VOCAB_SIZE, 5); }
END_TEST

START_TEST(merges_count) { tokenizer_count_case(LIMIT_MERGES_COUNT, 2); }
END_TEST

START_TEST(onnx_file_size) {
    size_limit_case(LIMIT_ONNX_FILE_BYTES, tiny_mlp(), onnx_loads, tiny_mlp());
}
END_TEST

START_TEST(graph_json_size) {
    const char *dir = webnn_folder();
    size_limit_case(LIMIT_GRAPH_JSON_BYTES, tu_path(dir, WN_GRAPH_FILE), webnn_reads, dir);
}
END_TEST

START_TEST(manifest_size) {
    const char *dir = webnn_folder();
    size_limit_case(LIMIT_MANIFEST_BYTES, tu_path(dir, WN_MANIFEST_FILE), webnn_reads, dir);
}
END_TEST

START_TEST(config_file_size) {
    const char *text = "{\"search\": {\"max_length\": 64}}";
    input_limit_set(LIMIT_CONFIG_JSON_BYTES, strlen(text) - 1);
    ck_assert(!genai_reads(text));
    expect_limit(LIMIT_CONFIG_JSON_BYTES);
    const char *lim = tu_path(tu_scratch, "limits.json");
    tu_write_file(lim, "{\"maxTensorByteLength\": 1024, \"preferredInputLayout\": \"nchw\"}"); /* longer */
    ck_assert_ptr_null(wn_impl_limits_read(lim));
    expect_limit(LIMIT_CONFIG_JSON_BYTES);
    input_limit_set(LIMIT_CONFIG_JSON_BYTES, strlen(text));
    ck_assert(genai_reads(text));
}
END_TEST

START_TEST(tensor_file_size) {
    const char *path = write_npy6();
    size_limit_case(LIMIT_TENSOR_FILE_BYTES, path, npy_reads, path);
}
END_TEST

/* {"search": {"max_length": 8}, "x": [[[...]]]} with `depth` levels in all. */
static char *nested_config(int depth) {
    char *s = malloc(64 + 2 * (size_t)depth);
    int k = sprintf(s, "{\"search\": {\"max_length\": 8}, \"x\": ");
    for (int i = 1; i < depth; i++) s[k++] = '[';
    for (int i = 1; i < depth; i++) s[k++] = ']';
    strcpy(s + k, "}");
    return s;
}

START_TEST(json_nesting) {
    uint64_t max = input_limit(LIMIT_JSON_NESTING); /* the real default (64) */
    char *at = nested_config((int)max), *past = nested_config((int)max + 1);
    ck_assert(genai_reads(at));
    ck_assert(!genai_reads(past));
    expect_limit(LIMIT_JSON_NESTING);
    diag_clear();
    ck_assert_ptr_null(webnn_read_json(past, strlen(past), NULL));
    expect_limit(LIMIT_JSON_NESTING);
    ck_assert_ptr_null(wn_impl_limits_parse(past, strlen(past), "l.json"));
    expect_limit(LIMIT_JSON_NESTING);
    free(at);
    free(past);
}
END_TEST

START_TEST(protobuf_nesting) {
    /* model > graph > node > attribute: tiny_mlp needs depth 4 at most (tensor types: 5) */
    input_limit_set(LIMIT_PROTO_NESTING, 2);
    ck_assert(!onnx_loads(tiny_mlp()));
    expect_limit(LIMIT_PROTO_NESTING);
    input_limit_set(LIMIT_PROTO_NESTING, 0);
    ck_assert(onnx_loads(tiny_mlp()));
}
END_TEST

START_TEST(string_length) {
    uint64_t max = input_limit(LIMIT_STRING_LENGTH); /* the real default (64 KiB) */
    char *s = malloc(max + 64);
    for (int over = 0; over < 2; over++) {
        int k = sprintf(s, "{\"search\": {\"max_length\": 8}, \"");
        memset(s + k, 'k', max + (uint64_t)over);
        strcpy(s + k + max + over, "\": 1}");
        ck_assert(genai_reads(s) == !over);
    }
    expect_limit(LIMIT_STRING_LENGTH);
    free(s);
    /* ONNX names: tiny_mlp's longest name is short; a limit of 2 bytes is crossed */
    input_limit_set(LIMIT_STRING_LENGTH, 2);
    ck_assert(!onnx_loads(tiny_mlp()));
    expect_limit(LIMIT_STRING_LENGTH);
}
END_TEST

START_TEST(node_count) {
    const char *dir = webnn_folder();
    input_limit_set(LIMIT_NODE_COUNT, 5); /* tiny_mlp: 6 ONNX nodes */
    ck_assert(!onnx_loads(tiny_mlp()));
    expect_limit(LIMIT_NODE_COUNT);
    input_limit_set(LIMIT_NODE_COUNT, 6);
    ck_assert(onnx_loads(tiny_mlp()));
    input_limit_set(LIMIT_NODE_COUNT, 1);
    ck_assert(!webnn_reads(dir));
    expect_limit(LIMIT_NODE_COUNT);
    const char *lim = "{\"add\": {\"a\": {\"dataTypes\": []}}, \"sub\": {\"a\": {\"dataTypes\": []}}}";
    ck_assert_ptr_null(wn_impl_limits_parse(lim, strlen(lim), "l.json"));
    expect_limit(LIMIT_NODE_COUNT);
}
END_TEST

START_TEST(onnx_dims_product) {
    const char *npy = write_npy6();
    const char *dir = webnn_folder(); /* tiny_mlp's largest constant: 8 x 16 = 128 elements */
    input_limit_set(LIMIT_TENSOR_ELEMENTS, 5);
    ck_assert(!npy_reads(npy));
    expect_limit(LIMIT_TENSOR_ELEMENTS);
    ck_assert(!webnn_reads(dir));
    expect_limit(LIMIT_TENSOR_ELEMENTS);
    OnnxModel *m = onnx_model_load(tiny_mlp());
    ck_assert_ptr_nonnull(m);
    Graph *g = graph_new("t");
    OnnxTensorData d;
    bool refused = false;
    for (size_t i = 0; i < m->proto->graph->n_initializer && !refused; i++)
        refused = onnx_tensor_read(m, g, m->proto->graph->initializer[i], &d) != 0;
    ck_assert(refused);
    expect_limit(LIMIT_TENSOR_ELEMENTS);
    graph_free(g);
    onnx_model_free(m);
    input_limit_set(LIMIT_TENSOR_ELEMENTS, 6);
    ck_assert(npy_reads(npy));
}
END_TEST

/* A FIFO where a file is expected is refused at once instead of blocking the reader. */
START_TEST(fifo_is_refused) {
    const char *npy = tu_path(tu_scratch, "x.npy");
    ck_assert_int_eq(mkfifo(npy, 0600), 0);
    ck_assert(!npy_reads(npy));
    ck_assert_ptr_nonnull(strstr(diag_message(), "not a regular file"));
    const char *dir = tu_path(tu_scratch, "m");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    ck_assert_int_eq(mkfifo(tu_path(dir, "model.onnx"), 0600), 0);
    ck_assert(!onnx_loads(dir));
}
END_TEST

int main(void) {
    Suite *s = suite_create("reader-limits");
    TCase *tc = tcase_create("limits");
    tcase_add_checked_fixture(tc, tu_scratch_setup, restore_limits);
    tcase_add_test(tc, tokenizer_file_size);
    tcase_add_test(tc, vocab_size);
    tcase_add_test(tc, text_file_size);
    tcase_add_test(tc, merges_count);
    tcase_add_test(tc, onnx_file_size);
    tcase_add_test(tc, graph_json_size);
    tcase_add_test(tc, manifest_size);
    tcase_add_test(tc, config_file_size);
    tcase_add_test(tc, tensor_file_size);
    tcase_add_test(tc, json_nesting);
    tcase_add_test(tc, protobuf_nesting);
    tcase_add_test(tc, string_length);
    tcase_add_test(tc, node_count);
    tcase_add_test(tc, onnx_dims_product);
    tcase_add_test(tc, fifo_is_refused);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
