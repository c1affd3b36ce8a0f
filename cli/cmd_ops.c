/* cmd_ops.c - `webnnc ops [--onnx]`: the WebNN op table (ops.def) with operand slots, options and
 * family (the layer tables' grouping, op_families.def), or the ONNX ops the importer handles
 * (onnx_supported_ops), one per line. */
#include <stdio.h>

#include "args.h"
#include "core.h"
#include "onnx.h"
#include "report.h"

static const ArgSpec specs[] = {
    {"onnx", 0, ARG_FLAG, NULL, "list the ONNX ops the importer handles (domain-qualified outside ai.onnx)"},
    ARG_SPEC_JSON,
};

static const char *attr_type_name(AttrType t) {
    switch (t) {
    case AT_INT: return "int";
    case AT_UINT: return "uint";
    case AT_FLOAT: return "float";
    case AT_BOOL: return "bool";
    case AT_STRING: return "string";
    case AT_DTYPE: return "dataType";
    case AT_INTS: return "int[]";
    case AT_FLOATS: return "float[]";
    case AT_STRINGS: return "string[]";
    case AT_DIMS: return "dim[]";
    case AT_SPLITS: return "uint|uint[]";
    }
    return "?";
}

/* "layerNormalization(input, scale?, bias?) {axes: int[], epsilon: float}  [spec] norm" */
static void print_op(const OpInfo *info) {
    printf("%s(", info->name);
    for (int i = 0; i < info->n_inputs; i++) {
        const OpInputSlot *s = &info->inputs[i];
        printf("%s%s%s%s", i ? ", " : "", s->name, s->optional ? "?" : "", s->variadic ? "..." : "");
    }
    printf(")");
    for (int i = 0; i < info->n_options; i++) {
        const OpOptionSlot *o = &info->options[i];
        printf("%s%s: %s%s", i ? ", " : " {", o->key, attr_type_name(o->type), o->required ? " (required)" : "");
    }
    printf("%s  [%s] %s\n", info->n_options ? "}" : "", (info->flags & OPF_SPEC) ? "spec" : "extension",
           op_family_name(info->family));
}

/* {"name", "operands": [{"name", "optional", "variadic"}], "options": [{"key", "type", "required"}], "spec",
 *  "family"} */
static void json_op(cJSON *list, const OpInfo *info) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(list, o);
    cJSON_AddStringToObject(o, "name", info->name);
    cJSON *in = report_add_array(o, "operands"), *opts = report_add_array(o, "options");
    for (int i = 0; i < info->n_inputs; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToArray(in, e);
        cJSON_AddStringToObject(e, "name", info->inputs[i].name);
        cJSON_AddBoolToObject(e, "optional", info->inputs[i].optional);
        cJSON_AddBoolToObject(e, "variadic", info->inputs[i].variadic);
    }
    for (int i = 0; i < info->n_options; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToArray(opts, e);
        cJSON_AddStringToObject(e, "key", info->options[i].key);
        cJSON_AddStringToObject(e, "type", attr_type_name(info->options[i].type));
        cJSON_AddBoolToObject(e, "required", info->options[i].required);
    }
    cJSON_AddBoolToObject(o, "spec", (info->flags & OPF_SPEC) != 0);
    cJSON_AddStringToObject(o, "family", op_family_name(info->family));
}

int cmd_ops(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 0, 0, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    cJSON *report = args_count(&r, "json") ? report_new(self->name) : NULL;
    if (args_count(&r, "onnx")) {
        int n = 0;
        const char *const *names = onnx_supported_ops(&n);
        cJSON *list = report ? report_add_array(report, "onnxOps") : NULL;
        for (int i = 0; i < n; i++) {
            if (list)
                cJSON_AddItemToArray(list, cJSON_CreateString(names[i]));
            else
                printf("%s\n", names[i]);
        }
        return report ? report_end(report, WN_EXIT_OK) : WN_EXIT_OK;
    }
    cJSON *list = report ? report_add_array(report, "ops") : NULL;
    for (int op = 0; op < OP_COUNT; op++) {
        if (list)
            json_op(list, op_info((OpId)op));
        else
            print_op(op_info((OpId)op));
    }
    return report ? report_end(report, WN_EXIT_OK) : WN_EXIT_OK;
}
