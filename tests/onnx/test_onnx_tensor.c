/* test_onnx_tensor.c - onnx_tensor_read: every supported dtype from raw_data and from the typed
 * fields (expected bytes written out by hand), unsupported dtypes, and shape/length refusals. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "onnx_test_util.h"

static OnnxModel *model;
static Graph *graph;

static void setup(void) {
    diag_clear();
    model = calloc(1, sizeof *model);
    model->path = strdup("unit.onnx");
    graph = graph_new("t");
}

static void teardown(void) {
    graph_free(graph);
    onnx_model_free(model);
}

static int read_tensor(TuTensor *x, OnnxTensorData *out) {
    diag_clear();
    return onnx_tensor_read(model, graph, &x->t, out);
}

static void expect_error(TuTensor *x, const char *needle) {
    OnnxTensorData d;
    ck_assert_int_eq(read_tensor(x, &d), -1);
    ck_assert_msg(diag_has_error(), "no diagnostic");
    ck_assert_msg(strstr(diag_message(), needle), "message \"%s\" lacks \"%s\"", diag_message(),
                  needle);
    ck_assert_msg(strstr(diag_message(), x->t.name), "message \"%s\" does not name the tensor",
                  diag_message());
    ck_assert_msg(strstr(diag_message(), "unit.onnx"), "message \"%s\" does not name the file",
                  diag_message());
}

/* Reads `x` and compares the result with dtype, byte count and bytes. */
static void expect_bytes(TuTensor *x, DType dt, const void *bytes, size_t n) {
    OnnxTensorData d;
    ck_assert_msg(read_tensor(x, &d) == 0, "read failed: %s", diag_message());
    ck_assert_int_eq(d.dtype, dt);
    ck_assert_uint_eq(d.nbytes, n);
    ck_assert_int_eq(d.rank, (int)x->t.n_dims);
    ck_assert(memcmp(d.data, bytes, n) == 0);
}

static const int64_t dim3[1] = {3};

/* ---- raw_data ------------------------------------------------------------------------------ */

START_TEST(raw_float32_in_place) {
    static const float v[3] = {1.5f, -2.0f, 0.25f};
    TuTensor x;
    tu_tensor_init(&x, "w", 1, 1, dim3);
    tu_tensor_raw(&x, v, sizeof v);
    OnnxTensorData d;
    ck_assert_int_eq(read_tensor(&x, &d), 0);
    ck_assert_int_eq(d.dtype, DT_F32);
    ck_assert_ptr_eq(d.data, v); /* referenced, not copied */
    ck_assert_uint_eq(d.nbytes, 12);
    ck_assert_int_eq(d.shape[0], 3);
}
END_TEST

START_TEST(raw_each_plain_dtype) {
    static const struct {
        int onnx;
        DType dt;
        size_t elem;
    } cases[] = {{10, DT_F16, 2}, {7, DT_I64, 8}, {6, DT_I32, 4}, {3, DT_I8, 1},
                 {2, DT_U8, 1},   {12, DT_U32, 4}, {13, DT_U64, 8}};
    static const uint8_t bytes[24] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                      13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TuTensor x;
        tu_tensor_init(&x, "t", cases[i].onnx, 1, dim3);
        tu_tensor_raw(&x, bytes, 3 * cases[i].elem);
        expect_bytes(&x, cases[i].dt, bytes, 3 * cases[i].elem);
    }
}
END_TEST

START_TEST(raw_bfloat16_to_float32) {
    /* bf16 0x3F80 = 1.0, 0xC020 = -2.5, 0x4049 = 3.140625 */
    static const uint8_t raw[6] = {0x80, 0x3F, 0x20, 0xC0, 0x49, 0x40};
    const float want[3] = {1.0f, -2.5f, 3.140625f};
    TuTensor x;
    tu_tensor_init(&x, "bf", 16, 1, dim3);
    tu_tensor_raw(&x, raw, sizeof raw);
    expect_bytes(&x, DT_F32, want, sizeof want);
}
END_TEST

START_TEST(raw_bool_normalized) {
    static const uint8_t raw[3] = {0, 1, 7};
    const uint8_t want[3] = {0, 1, 1};
    TuTensor x;
    tu_tensor_init(&x, "b", 9, 1, dim3);
    tu_tensor_raw(&x, raw, sizeof raw);
    expect_bytes(&x, DT_U8, want, 3);
}
END_TEST

START_TEST(raw_int4_packed) {
    /* int4 [1, -2, 7] -> bytes 0xE1 (low nibble 1, high nibble -2 = 0xE), 0x07 */
    static const uint8_t raw[2] = {0xE1, 0x07};
    TuTensor x;
    tu_tensor_init(&x, "q", 22, 1, dim3);
    tu_tensor_raw(&x, raw, 2);
    expect_bytes(&x, DT_I4, raw, 2);
    tu_tensor_init(&x, "q", 21, 1, dim3);
    tu_tensor_raw(&x, raw, 2);
    expect_bytes(&x, DT_U4, raw, 2);
    tu_tensor_raw(&x, raw, 1); /* 3 nibbles need 2 bytes */
    expect_error(&x, "raw_data has 1 bytes, expected 2");
}
END_TEST

START_TEST(raw_scalar_and_empty) {
    static const int64_t v = 42;
    TuTensor x;
    tu_tensor_init(&x, "s", 7, 0, NULL);
    tu_tensor_raw(&x, &v, 8);
    expect_bytes(&x, DT_I64, &v, 8);
    const int64_t dims[2] = {0, 5};
    tu_tensor_init(&x, "e", 1, 2, dims);
    OnnxTensorData d;
    ck_assert_int_eq(read_tensor(&x, &d), 0);
    ck_assert_uint_eq(d.nbytes, 0);
    ck_assert_int_eq(d.rank, 2);
}
END_TEST

START_TEST(raw_unaligned_is_copied_aligned) {
    static uint8_t storage[20];
    const float v[3] = {1.0f, 2.0f, 3.0f};
    memcpy(storage + 1, v, sizeof v);
    TuTensor x;
    tu_tensor_init(&x, "u", 1, 1, dim3);
    tu_tensor_raw(&x, storage + 1, sizeof v);
    OnnxTensorData d;
    ck_assert_int_eq(read_tensor(&x, &d), 0);
    ck_assert_uint_eq((uintptr_t)d.data % 4, 0);
    ck_assert(memcmp(d.data, v, sizeof v) == 0);
}
END_TEST

/* ---- typed fields ------------------------------------------------------------------------- */

START_TEST(typed_float_data) {
    float v[3] = {0.5f, -1.0f, 1e30f};
    TuTensor x;
    tu_tensor_init(&x, "f", 1, 1, dim3);
    x.t.n_float_data = 3;
    x.t.float_data = v;
    expect_bytes(&x, DT_F32, v, sizeof v);
}
END_TEST

START_TEST(typed_int32_data_family) {
    int32_t v[3] = {-1, 200, 3};
    TuTensor x;
    tu_tensor_init(&x, "i", 6, 1, dim3);
    x.t.n_int32_data = 3;
    x.t.int32_data = v;
    expect_bytes(&x, DT_I32, v, 12);

    const uint8_t want_i8[3] = {0xFF, 200, 3};
    x.t.data_type = 3;
    expect_bytes(&x, DT_I8, want_i8, 3);
    x.t.data_type = 2;
    expect_bytes(&x, DT_U8, want_i8, 3);

    int32_t b[3] = {1, 0, 5};
    const uint8_t want_b[3] = {1, 0, 1};
    x.t.int32_data = b;
    x.t.data_type = 9;
    expect_bytes(&x, DT_U8, want_b, 3);

    int32_t h[3] = {0x3C00, 0xC000, 0x7BFF}; /* 1.0, -2.0, 65504 as float16 bits */
    const uint8_t want_h[6] = {0x00, 0x3C, 0x00, 0xC0, 0xFF, 0x7B};
    x.t.int32_data = h;
    x.t.data_type = 10;
    expect_bytes(&x, DT_F16, want_h, 6);

    int32_t bf[3] = {0x3F80, 0xC020, 0x0000};
    const float want_bf[3] = {1.0f, -2.5f, 0.0f};
    x.t.int32_data = bf;
    x.t.data_type = 16;
    expect_bytes(&x, DT_F32, want_bf, sizeof want_bf);
}
END_TEST

START_TEST(typed_int4_one_byte_per_pair) {
    int32_t v[2] = {0xE1, 0x07};
    const uint8_t want[2] = {0xE1, 0x07};
    TuTensor x;
    tu_tensor_init(&x, "q4", 22, 1, dim3);
    x.t.n_int32_data = 2;
    x.t.int32_data = v;
    expect_bytes(&x, DT_I4, want, 2);
    x.t.n_int32_data = 3;
    int32_t three[3] = {1, 2, 3};
    x.t.int32_data = three;
    expect_error(&x, "has 3 values in int32_data, expected 2");
}
END_TEST

START_TEST(typed_int64_uint64) {
    int64_t v[3] = {-5, 1LL << 40, 7};
    TuTensor x;
    tu_tensor_init(&x, "l", 7, 1, dim3);
    x.t.n_int64_data = 3;
    x.t.int64_data = v;
    expect_bytes(&x, DT_I64, v, sizeof v);

    uint64_t u[3] = {1, 0xFFFFFFFFull, 0x1234567890ull};
    tu_tensor_init(&x, "u64", 13, 1, dim3);
    x.t.n_uint64_data = 3;
    x.t.uint64_data = u;
    expect_bytes(&x, DT_U64, u, sizeof u);
    const uint32_t want32[3] = {1, 0xFFFFFFFFu, 0x34567890u};
    x.t.data_type = 12;
    expect_bytes(&x, DT_U32, want32, sizeof want32);
}
END_TEST

START_TEST(typed_wrong_count_and_missing) {
    float v[2] = {1, 2};
    TuTensor x;
    tu_tensor_init(&x, "short", 1, 1, dim3);
    x.t.n_float_data = 2;
    x.t.float_data = v;
    expect_error(&x, "has 2 values in float_data, expected 3");
    tu_tensor_init(&x, "nodata", 1, 1, dim3);
    expect_error(&x, "has no data");
    /* values in the wrong field for the type */
    tu_tensor_init(&x, "wrongfield", 7, 1, dim3);
    float f[3] = {1, 2, 3};
    x.t.n_float_data = 3;
    x.t.float_data = f;
    expect_error(&x, "has no data");
}
END_TEST

/* ---- refusals ------------------------------------------------------------------------------ */

START_TEST(unsupported_types) {
    static const struct {
        int code;
        const char *name;
    } cases[] = {{11, "DOUBLE"}, {8, "STRING"},      {5, "INT16"}, {4, "UINT16"},
                 {14, "COMPLEX64"}, {15, "COMPLEX128"}, {0, "UNDEFINED"}, {17, "17"}, {99, "99"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TuTensor x;
        tu_tensor_init(&x, "bad", cases[i].code, 1, dim3);
        char want[64];
        snprintf(want, sizeof want, "unsupported data type %s", cases[i].name);
        expect_error(&x, want);
    }
}
END_TEST

START_TEST(wrong_raw_length) {
    static const float v[4] = {0};
    TuTensor x;
    tu_tensor_init(&x, "w", 1, 1, dim3);
    tu_tensor_raw(&x, v, 16);
    expect_error(&x, "raw_data has 16 bytes, expected 12");
    tu_tensor_raw(&x, v, 0);
    expect_error(&x, "raw_data has 0 bytes, expected 12");
}
END_TEST

START_TEST(bad_dims) {
    static const float v[3] = {0};
    TuTensor x;
    const int64_t neg[2] = {3, -1};
    tu_tensor_init(&x, "neg", 1, 2, neg);
    tu_tensor_raw(&x, v, 12);
    expect_error(&x, "negative dimension -1");

    const int64_t huge[3] = {1LL << 40, 1LL << 40, 4};
    tu_tensor_init(&x, "huge", 1, 3, huge);
    tu_tensor_raw(&x, v, 12);
    expect_error(&x, "element count overflows");

    const int64_t wrap[2] = {INT64_MAX, INT64_MAX}; /* product wraps to 1 in 64 bits */
    tu_tensor_init(&x, "wrap", 1, 2, wrap);
    tu_tensor_raw(&x, v, 4);
    expect_error(&x, "element count overflows");

    const int64_t deep[9] = {1, 1, 1, 1, 1, 1, 1, 1, 3};
    tu_tensor_init(&x, "deep", 1, 9, deep);
    tu_tensor_raw(&x, v, 12);
    expect_error(&x, "rank 9 exceeds");
}
END_TEST

START_TEST(raw_and_typed_conflict) {
    static const float v[3] = {0};
    float f[3] = {0};
    TuTensor x;
    tu_tensor_init(&x, "both", 1, 1, dim3);
    tu_tensor_raw(&x, v, 12);
    x.t.n_float_data = 3;
    x.t.float_data = f;
    expect_error(&x, "more than one place");
}
END_TEST

int main(void) {
    Suite *s = suite_create("onnx_tensor");
    TCase *tc = tcase_create("tensor");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, raw_float32_in_place);
    tcase_add_test(tc, raw_each_plain_dtype);
    tcase_add_test(tc, raw_bfloat16_to_float32);
    tcase_add_test(tc, raw_bool_normalized);
    tcase_add_test(tc, raw_int4_packed);
    tcase_add_test(tc, raw_scalar_and_empty);
    tcase_add_test(tc, raw_unaligned_is_copied_aligned);
    tcase_add_test(tc, typed_float_data);
    tcase_add_test(tc, typed_int32_data_family);
    tcase_add_test(tc, typed_int4_one_byte_per_pair);
    tcase_add_test(tc, typed_int64_uint64);
    tcase_add_test(tc, typed_wrong_count_and_missing);
    tcase_add_test(tc, unsupported_types);
    tcase_add_test(tc, wrong_raw_length);
    tcase_add_test(tc, bad_dims);
    tcase_add_test(tc, raw_and_typed_conflict);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
