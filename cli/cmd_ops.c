/* cmd_ops.c - `webnnc ops [--onnx]`: the WebNN op table (ops.def) with operand slots and options,
 * or the ONNX ops the importer handles (onnx_supported_ops), one per line. */
#include <stdio.h>

#include "args.h"
#include "diag.h"
#include "onnx_import.h"

static const ArgSpec specs[] = {
    {"onnx", 0, ARG_FLAG, NULL, "list the ONNX ops the importer handles (domain-qualified outside ai.onnx)"},
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

/* "layerNormalization(input, scale?, bias?) {axes: int[], epsilon: float}  [spec]" */
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
    printf("%s  [%s]\n", info->n_options ? "}" : "", (info->flags & OPF_SPEC) ? "spec" : "extension");
}

int cmd_ops(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 0, 0, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    if (args_count(&r, "onnx")) {
        int n = 0;
        const char *const *names = onnx_supported_ops(&n);
        for (int i = 0; i < n; i++) printf("%s\n", names[i]);
        return WN_EXIT_OK;
    }
    for (int op = 0; op < OP_COUNT; op++) print_op(op_info((OpId)op));
    return WN_EXIT_OK;
}
