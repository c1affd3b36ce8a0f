/* cmd_inspect.c - `webnnc inspect FILE [--json]`: summary of an ONNX model or a webnn-graph. */
#include <stdio.h>

#include "args.h"
#include "core.h"
#include "convert.h"
#include "inspect.h"

static const ArgSpec specs[] = {
    {"json", 0, ARG_FLAG, NULL, "print a JSON object (keys: format, nodes, ops, inputs, outputs, parameterBytes, opsets; portable, extensionOps for webnn-graphs)"},
};

int cmd_inspect(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *path = r.pos[0];
    InputKind kind = convert_input_kind(path);
    if (kind == INPUT_UNKNOWN) {
        diag_error("not an ONNX model (.onnx or folder) or a webnn-graph (.webnn.json or folder)");
        return cli_fail(path, WN_EXIT_BAD_INPUT);
    }
    cJSON *s = summary_new(kind == INPUT_ONNX ? "onnx" : "webnn-graph-json");
    if (!s) {
        diag_error("out of memory");
        return cli_fail(path, WN_EXIT_BAD_INPUT);
    }
    diag_set_file(path);
    rc = kind == INPUT_ONNX ? inspect_onnx(path, s) : inspect_webnn(path, s);
    if (rc == 0) summary_print(s, args_count(&r, "json") > 0, stdout);
    cJSON_Delete(s);
    return rc == 0 ? WN_EXIT_OK : cli_fail(path, WN_EXIT_BAD_INPUT);
}
