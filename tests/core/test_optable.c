/* test_optable.c - the op table (ops.def) as parsed by optable.c: names, name lookup round trip,
 * input slot and option schemas of a few ops, and that shape inference has a rule for every op. */
#include <string.h>

#include "core_test_util.h"

START_TEST(every_op_named_and_round_trips) {
    int spec = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        const OpInfo *info = op_info((OpId)op);
        ck_assert_ptr_nonnull(info);
        ck_assert_int_eq(info->id, op);
        ck_assert_ptr_nonnull(info->name);
        ck_assert_int_gt((int)strlen(info->name), 0);
        ck_assert_str_eq(op_name((OpId)op), info->name);
        ck_assert_int_eq(op_from_name(info->name), op);
        ck_assert_int_le(info->n_inputs, WN_MAX_INPUT_SLOTS);
        spec += (info->flags & OPF_SPEC) != 0;
        for (int i = 0; i < info->n_options; i++) {
            ck_assert_int_gt((int)strlen(info->options[i].key), 0);
            ck_assert_ptr_nonnull(strchr("iufbstIFADS", (int)info->options[i].type));
        }
    }
    /* docs/webnn-ops.md section 1: the current spec has 95 builder methods. */
    ck_assert_int_eq(spec, 95);
    ck_assert_int_eq(op_from_name("noSuchOp"), -1);
    ck_assert_ptr_null(op_info((OpId)-1));
    ck_assert_ptr_null(op_info(OP_COUNT));
    ck_assert_str_eq(op_name(OP_COUNT), "?");
}
END_TEST

START_TEST(schemas) {
    const OpInfo *conv = op_info((OpId)op_from_name("conv2d"));
    ck_assert_int_eq(conv->n_inputs, 3);
    ck_assert_str_eq(conv->inputs[0].name, "input");
    ck_assert_str_eq(conv->inputs[2].name, "bias");
    ck_assert(conv->inputs[2].optional && !conv->inputs[2].as_option);
    ck_assert_int_eq(op_min_inputs(conv), 2);
    ck_assert_int_eq(op_option_index(conv, "strides"), 1);
    ck_assert_int_eq(conv->options[op_option_index(conv, "groups")].type, AT_UINT);
    ck_assert_int_eq(op_option_index(conv, "label"), -1);

    const OpInfo *gemm = op_info(OP_GEMM);
    ck_assert_str_eq(gemm->inputs[2].name, "c");
    ck_assert(gemm->inputs[2].optional && gemm->inputs[2].as_option);
    ck_assert_int_eq(gemm->options[op_option_index(gemm, "alpha")].type, AT_FLOAT);

    const OpInfo *concat = op_info(OP_CONCAT);
    ck_assert(concat->n_inputs == 1 && concat->inputs[0].variadic);
    ck_assert_str_eq(concat->inputs[0].name, "inputs");

    const OpInfo *softmax = op_info(OP_SOFTMAX);
    ck_assert(softmax->n_options == 1 && softmax->options[0].required);
    ck_assert_int_eq(softmax->options[0].type, AT_UINT);

    const OpInfo *split = op_info(OP_SPLIT);
    ck_assert_int_eq(split->options[op_option_index(split, "splits")].type, AT_SPLITS);
    ck_assert(split->flags & OPF_MULTI);
    ck_assert(op_info(OP_RESHAPE)->options[0].type == AT_DIMS && op_info(OP_RESHAPE)->options[0].required);
    ck_assert(op_info(OP_LSTM)->n_inputs == 8 && op_info(OP_LSTM)->n_options == 6);
}
END_TEST

/* Inserting an op without operands must fail on operand validation, never for a missing rule. */
START_TEST(every_op_has_an_inference_rule) {
    for (int op = 0; op < OP_COUNT; op++) {
        Node *n = graph_new_node(tg, (OpId)op, "probe");
        ck_assert_int_eq(graph_insert_node(tg, n), -1);
        ck_assert_msg(strstr(diag_message(), "no shape inference rule") == NULL, "%s: %s", op_name((OpId)op), diag_message());
        ck_assert_msg(strstr(diag_message(), "operand") != NULL, "%s: %s", op_name((OpId)op), diag_message());
        diag_clear();
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-optable");
    TCase *tc = t_case("optable");
    tcase_add_test(tc, every_op_named_and_round_trips);
    tcase_add_test(tc, schemas);
    tcase_add_test(tc, every_op_has_an_inference_rule);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
