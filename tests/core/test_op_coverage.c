/* test_op_coverage.c - walks every op of lib/core/ops.def and asserts that each layer handles it
 * or marks it unsupported with a non-empty reason: shape inference and the CPU evaluator (each
 * op in the table of the family ops.def names, lib/core/op_support.h), the runtime kernel table
 * (runtime/kernels.def) and, for ops run by the unary/binary shaders, their op codes
 * (runtime/k_eltwise.c).  A failure lists every layer/op pair that is missing or misplaced.
 * The lookup itself (DEFINE_OP_SUPPORT) is checked on small tables that have each kind of gap. */
#include <stdio.h>
#include <string.h>

#include "core_test_util.h"
#include "core.h"
#include "rt_model.h"

typedef OpSupport (*SupportFn)(OpId op, const char **reason);

/* Appends one line per op the layer misses (or files under another family) to buf; returns how
 * many ops the layer handles.  Unsupported ops must carry a reason. */
static int audit_layer(const char *layer, SupportFn support, bool allow_not_applicable, char *buf, size_t len) {
    int handled = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        const char *reason = NULL;
        OpSupport s = support((OpId)op, &reason);
        const char *problem = NULL;
        char line[256];
        switch (s) {
        case OPSUP_HANDLED: handled++; break;
        case OPSUP_UNSUPPORTED:
            if (!reason || !*reason) problem = "is marked unsupported without a reason";
            break;
        case OPSUP_NOT_APPLICABLE:
            if (!allow_not_applicable) problem = "is reported not applicable";
            break;
        case OPSUP_MISPLACED:
            snprintf(line, sizeof line, "%s: op '%s' (family %s) is filed under family %s\n", layer,
                     op_name((OpId)op), op_family_name(op_info((OpId)op)->family), reason ? reason : "?");
            strncat(buf, line, len - strlen(buf) - 1);
            break;
        case OPSUP_MISSING:
        default: problem = "is neither handled nor marked unsupported with a reason"; break;
        }
        if (problem) {
            snprintf(line, sizeof line, "%s: op '%s' (family %s) %s\n", layer, op_name((OpId)op),
                     op_family_name(op_info((OpId)op)->family), problem);
            strncat(buf, line, len - strlen(buf) - 1);
        }
    }
    return handled;
}

static void assert_layer_covers(const char *layer, SupportFn support, bool allow_not_applicable, int min_handled) {
    static char buf[16384];
    buf[0] = 0;
    int handled = audit_layer(layer, support, allow_not_applicable, buf, sizeof buf);
    ck_assert_msg(buf[0] == 0, "op coverage gaps:\n%s", buf);
    ck_assert_msg(handled >= min_handled, "%s handles only %d ops", layer, handled);
}

START_TEST(every_op_names_a_family) {
    for (int op = 0; op < OP_COUNT; op++) {
        const OpInfo *info = op_info((OpId)op);
        ck_assert_msg((int)info->family >= 0 && info->family < OPFAM_COUNT, "op '%s' has no family", info->name);
        ck_assert_str_ne(op_family_name(info->family), "?");
    }
    ck_assert_str_eq(op_family_name(op_info(OP_CUMULATIVE_SUM)->family), "reduce");
    ck_assert_str_eq(op_family_name(op_info(OP_GROUP_QUERY_ATTENTION)->family), "gqa");
    ck_assert_str_eq(op_family_name(OPFAM_COUNT), "?");
}
END_TEST

START_TEST(shape_inference_covers_every_op) { assert_layer_covers("infer", infer_support, false, 1); }
END_TEST

START_TEST(evaluator_covers_every_op) { assert_layer_covers("eval", eval_support, false, 1); }
END_TEST

START_TEST(runtime_kernels_cover_every_op) { assert_layer_covers("kernels", kernel_support, false, 1); }
END_TEST

START_TEST(eltwise_codes_cover_the_eltwise_kernels) {
    assert_layer_covers("eltwise-codes", kernel_eltwise_code_support, true, 1);
    ck_assert_int_eq(kernel_eltwise_code_support(OP_ADD, NULL), OPSUP_HANDLED);
    ck_assert_int_eq(kernel_eltwise_code_support(OP_TANH, NULL), OPSUP_HANDLED);
    ck_assert_int_eq(kernel_eltwise_code_support(OP_MATMUL, NULL), OPSUP_NOT_APPLICABLE);
}
END_TEST

/* ---- the lookup on tables with gaps -------------------------------------------------------- */
typedef struct {
    int (*fn)(void);
    const char *unsupported;
} FakeEntry;

static int fake_fn(void) { return 0; }

static FakeEntry fake_tables[OPFAM_COUNT][OP_COUNT];
DEFINE_OP_SUPPORT(fake_support, fake_tables)

START_TEST(lookup_reports_each_kind_of_gap) {
    memset(fake_tables, 0, sizeof fake_tables);
    OpFamily eltwise = op_info(OP_ADD)->family, reduce = op_info(OP_REDUCE_SUM)->family;
    fake_tables[eltwise][OP_ADD].fn = fake_fn;
    fake_tables[eltwise][OP_SUB] = (FakeEntry)OP_UNSUPPORTED("no subtraction here");
    fake_tables[eltwise][OP_MUL] = (FakeEntry)OP_UNSUPPORTED("");
    fake_tables[eltwise][OP_REDUCE_SUM].fn = fake_fn; /* reduceSum filed under eltwise */
    fake_tables[reduce][OP_REDUCE_SUM].fn = fake_fn;
    const char *why = NULL;
    ck_assert_int_eq(fake_support(OP_ADD, &why), OPSUP_HANDLED);
    ck_assert_int_eq(fake_support(OP_SUB, &why), OPSUP_UNSUPPORTED);
    ck_assert_str_eq(why, "no subtraction here");
    ck_assert_int_eq(fake_support(OP_MUL, &why), OPSUP_MISSING); /* an empty reason is no reason */
    ck_assert_int_eq(fake_support(OP_DIV, &why), OPSUP_MISSING);
    ck_assert_int_eq(fake_support(OP_REDUCE_SUM, &why), OPSUP_MISPLACED);
    ck_assert_str_eq(why, "eltwise");
    ck_assert_int_eq(fake_support(OP_COUNT, &why), OPSUP_MISSING);

    char buf[16384] = "";
    audit_layer("fake", fake_support, false, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "fake: op 'mul' (family eltwise) is neither handled"));
    ck_assert_ptr_nonnull(strstr(buf, "fake: op 'reduceSum' (family reduce) is filed under family eltwise"));
    ck_assert_ptr_null(strstr(buf, "'sub'"));
    ck_assert_ptr_null(strstr(buf, "'add'"));
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-op_coverage");
    TCase *tc = t_case("op_coverage");
    tcase_add_test(tc, every_op_names_a_family);
    tcase_add_test(tc, shape_inference_covers_every_op);
    tcase_add_test(tc, evaluator_covers_every_op);
    tcase_add_test(tc, runtime_kernels_cover_every_op);
    tcase_add_test(tc, eltwise_codes_cover_the_eltwise_kernels);
    tcase_add_test(tc, lookup_reports_each_kind_of_gap);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
