/* test_webnn_limits.c - implementation limits files (impl_limits.h): the Chromium 153 file in
 * ../shared/webnn-limits reads with facts checked against its JSON (95 ops, add's operands,
 * rank ranges, maxTensorByteLength, nhwc, int4 but no uint4), and every malformed shape is refused
 * with one error naming the file and the key.  The shared corpus: $WEBNNC_SHARED, else
 * $WEBNNC_SOURCE_ROOT/../shared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impl_limits.h"
#include "webnn_test_util.h"

START_TEST(reads_chromium_limits) {
    const char *shared = getenv("WEBNNC_SHARED"), *root = getenv("WEBNNC_SOURCE_ROOT");
    ck_assert(shared || root);
    char path[4096];
    snprintf(path, sizeof path, "%s%s/webnn-limits/chromium-153-cpu.json", shared ? shared : root, shared ? "" : "/../shared");
    ImplLimits *l = wn_impl_limits_read(path);
    ck_assert_msg(l != NULL, "%s", diag_message());
    ck_assert_int_eq(l->n_ops, 95);
    ck_assert_uint_eq(l->max_tensor_byte_length, 2147483647u);
    ck_assert_str_eq(l->preferred_input_layout, "nhwc");
    const OperandSupport *a = wn_impl_limits_find(l, "add", "a");
    ck_assert_ptr_nonnull(a);
    ck_assert(wn_operand_supports(a, DT_I64, 6));
    ck_assert(!wn_operand_supports(a, DT_I64, 7));
    ck_assert(!wn_operand_supports(a, DT_U8, 2));
    const OperandSupport *am = wn_impl_limits_find(l, "argMax", "input");
    ck_assert_int_eq(am->rank_min, 1);
    ck_assert(!wn_operand_supports(am, DT_F32, 0));
    ck_assert(wn_operand_supports(&l->constant, DT_I4, 2));
    ck_assert(!wn_operand_supports(&l->constant, DT_U4, 2));
    ck_assert_ptr_null(wn_impl_limits_find(l, "add", "c"));
    wn_impl_limits_free(l);
}
END_TEST

static void expect_refused(const char *json, const char *needle) {
    diag_clear();
    ImplLimits *l = wn_impl_limits_parse(json, strlen(json), "lim.json");
    ck_assert_msg(l == NULL, "accepted: %s", json);
    ck_assert_msg(strstr(diag_message(), needle) != NULL, "'%s' lacks '%s'", diag_message(), needle);
    ck_assert_ptr_null(strchr(diag_message(), '\n'));
    ck_assert(strncmp(diag_message(), "lim.json: ", 10) == 0);
}

START_TEST(refuses_malformed) {
    expect_refused("[1]", "not a JSON object");
    expect_refused("{\"add\": 3}", "add: must be an object of operands");
    expect_refused("{\"add\": {\"a\": {}}}", "add.a: \"dataTypes\" must be an array");
    expect_refused("{\"add\": {\"a\": {\"dataTypes\": [1]}}}", "add.a: \"dataTypes\" must be an array");
    expect_refused("{\"add\": {\"a\": {\"dataTypes\": [], \"rankRange\": {\"min\": 3, \"max\": 2}}}}", "add.a: \"rankRange\"");
    expect_refused("{\"add\": {\"a\": {\"dataTypes\": [], \"rankRange\": {\"min\": -1, \"max\": 2}}}}", "\"rankRange\"");
    expect_refused("{\"add\": {\"a\": {\"dataTypes\": [], \"rankRange\": {\"min\": 0.5, \"max\": 2}}}}", "\"rankRange\"");
    expect_refused("{\"input\": []}", "input: must be an object");
    expect_refused("{\"maxTensorByteLength\": -5}", "maxTensorByteLength: must be a positive integer");
    expect_refused("{\"maxTensorByteLength\": 1e300}", "maxTensorByteLength");
    expect_refused("{\"preferredInputLayout\": \"hwcn\"}", "preferredInputLayout: must be \"nchw\" or \"nhwc\"");
    expect_refused("{\"add\": {\"a\": {\"dataTypes\": [\"float32\"", "not a JSON object");
}
END_TEST

START_TEST(unknown_type_names_are_ignored) {
    const char *j = "{\"add\": {\"a\": {\"dataTypes\": [\"float32\", \"bfloat16\"]}}}";
    ImplLimits *l = wn_impl_limits_parse(j, strlen(j), "lim.json");
    ck_assert_ptr_nonnull(l);
    const OperandSupport *a = wn_impl_limits_find(l, "add", "a");
    ck_assert_uint_eq(a->data_types, 1u << DT_F32);
    ck_assert(wn_operand_supports(a, DT_F32, 200)); /* no rankRange: any rank */
    wn_impl_limits_free(l);
}
END_TEST

int main(void) {
    Suite *s = suite_create("webnn-limits");
    TCase *tc = tcase_create("limits");
    tcase_add_test(tc, reads_chromium_limits);
    tcase_add_test(tc, refuses_malformed);
    tcase_add_test(tc, unknown_type_names_are_ignored);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
