/* input_kind.c - classifies `webnnc` inputs by file name and folder contents (see input_kind.h). */
#include "input_kind.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

InputKind convert_input_kind(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        char buf[4096];
        int n = snprintf(buf, sizeof buf, "%s/model.webnn.json", path);
        if (n > 0 && (size_t)n < sizeof buf && stat(buf, &st) == 0) return INPUT_WEBNN;
        n = snprintf(buf, sizeof buf, "%s/model.webnn", path);
        if (n > 0 && (size_t)n < sizeof buf && stat(buf, &st) == 0) return INPUT_WEBNN;
        return INPUT_ONNX;
    }
    if (ends_with(path, ".onnx")) return INPUT_ONNX;
    if (ends_with(path, ".json") || ends_with(path, ".webnn")) return INPUT_WEBNN;
    return INPUT_UNKNOWN;
}
