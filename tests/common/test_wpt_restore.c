/* test_wpt_restore.c - the restoration of the WPT corpus's lost Infinity/NaN values
 * (tests/common/wpt_restore.c) on hand-made corpus and restoration files: a valid restoration
 * builds a case with the non-finite values; one that changes a finite value, leaves a null, uses an
 * unknown tag, names a missing case, restores nothing, or never meets its file fails with a message
 * naming the case and the JSON path; a null in an unlisted case fails the file.  Also the tags that
 * wpt_case.c accepts where numbers belong (exactly "Infinity", "-Infinity", "NaN"). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "test_util.h"
#include "wpt_restore.h"

/* JSON written with single quotes (no string here holds one), turned into a real JSON text. */
static void write_json(const char *name, const char *single_quoted) {
    char *text = strdup(single_quoted);
    ck_assert_ptr_nonnull(text);
    for (char *p = text; *p; p++)
        if (*p == '\'') *p = '"';
    tu_write_file(tu_path(tu_scratch, name), text);
    free(text);
}

/* The graph of case 'lost': input x (constant float32 [3]) -> clamp(minValue) -> y, with the given
 * JSON for x[0], x[1] (and what follows), minValue and y[0]. */
static const char *graph(const char *x0, const char *x1, const char *min_value, const char *y0) {
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{'inputs': {'x': {'data': [%s, %s, 1], 'descriptor': {'shape': [3], 'dataType': 'float32'}, "
             "'constant': true}}, 'operators': [{'name': 'clamp', 'arguments': [{'input': 'x'}, {'options': "
             "{'minValue': %s}}], 'outputs': 'y'}], 'expectedOutputs': {'y': {'data': [%s, 2.5, 1], "
             "'descriptor': {'shape': [3], 'dataType': 'float32'}}}}",
             x0, x1, min_value, y0);
    return buf;
}

/* The corpus's graph of 'lost', as the JS -> JSON conversion left it. */
#define LOST graph("null", "2.5", "null", "null")
#define RESTORED_OK graph("'-Infinity'", "2.5", "'NaN'", "'-Infinity'")

/* Writes clamp.json: case 'lost' and case 'intact' (identity of a fill, whose data is `intact`). */
static void write_corpus(const char *intact) {
    char text[4096];
    snprintf(text, sizeof text,
             "{'operation': 'clamp', 'tests': [{'name': 'lost', 'graph': %s}, {'name': 'intact', 'graph': "
             "{'inputs': {'z': {'data': %s, 'descriptor': {'shape': [2], 'dataType': 'float32'}}}, "
             "'operators': [{'name': 'identity', 'arguments': [{'input': 'z'}], 'outputs': 'w'}], "
             "'expectedOutputs': {'w': {'data': 3, 'descriptor': {'shape': [2], 'dataType': 'float32'}}}}}]}",
             LOST, intact);
    write_json("clamp.json", text);
}

/* Writes the restoration file with one entry. */
static void write_restore(const char *file, const char *name, const char *restored_graph) {
    char text[4096];
    snprintf(text, sizeof text, "{'about': 'test', 'cases': [{'file': '%s', 'name': '%s', 'graph': %s}]}", file,
             name, restored_graph);
    write_json("restore.json", text);
}

static WptFile *corpus;
static WptRestore *restore;

/* Loads clamp.json and restore.json from the scratch folder and applies; returns apply's result. */
static int load_and_apply(void) {
    corpus = wpt_file_load(tu_path(tu_scratch, "clamp.json"));
    ck_assert_msg(corpus != NULL, "%s", diag_message());
    restore = wpt_restore_load(tu_path(tu_scratch, "restore.json"));
    ck_assert_msg(restore != NULL, "%s", diag_message());
    return wpt_restore_apply(restore, corpus);
}

static void teardown(void) {
    wpt_file_free(corpus);
    wpt_restore_free(restore);
    corpus = NULL;
    restore = NULL;
    tu_scratch_teardown();
}

/* Applying fails and the message holds every one of the NULL-terminated fragments. */
static void expect_failure(const char *fragment, ...) {
    ck_assert_int_eq(load_and_apply(), -1);
    va_list ap;
    va_start(ap, fragment);
    for (const char *s = fragment; s; s = va_arg(ap, const char *))
        ck_assert_msg(strstr(diag_message(), s) != NULL, "'%s' not in: %s", s, diag_message());
    va_end(ap);
}

static float f32_at(const void *data, int k) {
    float x;
    memcpy(&x, (const char *)data + 4 * k, 4);
    return x;
}

START_TEST(valid_restoration_builds_non_finite_values) {
    write_corpus("3");
    write_restore("clamp", "lost", RESTORED_OK);
    ck_assert_int_eq(load_and_apply(), 1);
    ck_assert_int_eq(wpt_restore_check_used(restore), 0);
    WptCase *c = wpt_case_build(corpus, 0);
    ck_assert_msg(c != NULL, "%s", diag_message());
    const Node *n = c->g->nodes[0];
    ck_assert(isnan(node_float(n, "minValue", 0)));
    ck_assert(f32_at(n->inputs[0]->data, 0) == -INFINITY);
    ck_assert(f32_at(n->inputs[0]->data, 1) == 2.5f);
    ck_assert(c->outputs[0].expect[0] == -INFINITY);
    wpt_case_free(c);
}
END_TEST

START_TEST(changed_finite_value_fails) {
    write_corpus("3");
    write_restore("clamp", "lost", graph("'-Infinity'", "2.25", "'NaN'", "'-Infinity'"));
    expect_failure("restore.json: clamp: case 'lost'", "graph.inputs.x.data[1]", "2.25", "2.5", NULL);
}
END_TEST

START_TEST(tag_over_finite_value_fails) {
    write_corpus("3");
    write_restore("clamp", "lost", graph("'-Infinity'", "'Infinity'", "'NaN'", "'-Infinity'"));
    expect_failure("case 'lost'", "graph.inputs.x.data[1]", "only nulls may be restored", NULL);
}
END_TEST

START_TEST(extra_element_fails) {
    write_corpus("3");
    write_restore("clamp", "lost", graph("'-Infinity'", "2.5, 1", "'NaN'", "'-Infinity'"));
    expect_failure("case 'lost'", "graph.inputs.x.data", "4 entries", NULL);
}
END_TEST

START_TEST(null_left_fails) {
    write_corpus("3");
    write_restore("clamp", "lost", graph("'-Infinity'", "2.5", "'NaN'", "null"));
    expect_failure("case 'lost'", "graph.expectedOutputs.y.data[0]", "restored as null", NULL);
}
END_TEST

START_TEST(unknown_tag_fails) {
    write_corpus("3");
    write_restore("clamp", "lost", graph("'-Infinity'", "2.5", "'inf'", "'-Infinity'"));
    expect_failure("case 'lost'", "graph.operators[0].arguments[1].options.minValue", "\"inf\"", NULL);
}
END_TEST

START_TEST(missing_case_fails) {
    write_corpus("3");
    write_restore("clamp", "gone", RESTORED_OK);
    expect_failure("clamp: case 'gone' is not in the corpus file", NULL);
}
END_TEST

START_TEST(entry_without_null_fails) {
    write_corpus("3");
    write_restore("clamp", "intact",
                  "{'inputs': {'z': {'data': 3, 'descriptor': {'shape': [2], 'dataType': 'float32'}}}, "
                  "'operators': [{'name': 'identity', 'arguments': [{'input': 'z'}], 'outputs': 'w'}], "
                  "'expectedOutputs': {'w': {'data': 3, 'descriptor': {'shape': [2], 'dataType': 'float32'}}}}");
    expect_failure("case 'intact'", "restores no null", NULL);
}
END_TEST

START_TEST(unlisted_null_fails) {
    write_corpus("null");
    write_restore("clamp", "lost", RESTORED_OK);
    expect_failure("clamp: case 'intact': graph.inputs.z.data is null", NULL);
}
END_TEST

START_TEST(entry_for_absent_file_fails) {
    write_corpus("3");
    write_restore("clampx", "lost", RESTORED_OK);
    expect_failure("clamp: case 'lost': graph.inputs.x.data[0] is null", NULL);
    diag_clear();
    ck_assert_int_eq(wpt_restore_check_used(restore), -1);
    ck_assert_msg(strstr(diag_message(), "clampx: case 'lost' was never restored") != NULL, "%s", diag_message());
}
END_TEST

START_TEST(tags_are_exact) {
    double v = 0;
    ck_assert(wpt_nonfinite_tag("Infinity", &v) && v == INFINITY);
    ck_assert(wpt_nonfinite_tag("-Infinity", &v) && v == -INFINITY);
    ck_assert(wpt_nonfinite_tag("NaN", &v) && isnan(v));
    static const char *const not_tags[] = {"inf", "-inf", "infinity", "+Infinity", "nan", "NAN", "Infinity ", ""};
    for (size_t i = 0; i < sizeof not_tags / sizeof *not_tags; i++)
        ck_assert_msg(!wpt_nonfinite_tag(not_tags[i], NULL), "'%s' taken as a tag", not_tags[i]);
}
END_TEST

/* wpt_case_build takes the tags in data (also as a fill) and in float options, and nothing else. */
START_TEST(case_builder_takes_only_tags) {
    write_corpus("'Infinity'");
    write_restore("clamp", "lost", RESTORED_OK);
    ck_assert_int_eq(load_and_apply(), 1);
    WptCase *c = wpt_case_build(corpus, 1);
    ck_assert_msg(c != NULL, "%s", diag_message());
    ck_assert(c->n_inputs == 1 && f32_at(c->inputs[0].data, 1) == INFINITY);
    wpt_case_free(c);
    wpt_file_free(corpus);
    wpt_restore_free(restore);
    write_corpus("'inf'");
    ck_assert_int_eq(load_and_apply(), 1);
    diag_clear();
    ck_assert_ptr_null(wpt_case_build(corpus, 1));
    ck_assert_msg(strstr(diag_message(), "element 0 is not a number") != NULL, "%s", diag_message());
}
END_TEST

int main(void) {
    Suite *s = suite_create("common-wpt-restore");
    TCase *tc = tcase_create("restore");
    tcase_add_checked_fixture(tc, tu_scratch_setup, teardown);
    tcase_add_test(tc, valid_restoration_builds_non_finite_values);
    tcase_add_test(tc, changed_finite_value_fails);
    tcase_add_test(tc, tag_over_finite_value_fails);
    tcase_add_test(tc, extra_element_fails);
    tcase_add_test(tc, null_left_fails);
    tcase_add_test(tc, unknown_tag_fails);
    tcase_add_test(tc, missing_case_fails);
    tcase_add_test(tc, entry_without_null_fails);
    tcase_add_test(tc, unlisted_null_fails);
    tcase_add_test(tc, entry_for_absent_file_fails);
    tcase_add_test(tc, tags_are_exact);
    tcase_add_test(tc, case_builder_takes_only_tags);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
