/* report.c - `--json` report objects (see report.h). */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>

#include "core.h"

static cJSON *checked(cJSON *j) {
    if (!j) abort(); /* out of memory */
    return j;
}

cJSON *report_new(const char *command) {
    cJSON *r = checked(cJSON_CreateObject());
    checked(cJSON_AddStringToObject(r, "command", command));
    return r;
}

cJSON *report_add_object(cJSON *to, const char *key) { return checked(cJSON_AddObjectToObject(to, key)); }
cJSON *report_add_array(cJSON *to, const char *key) { return checked(cJSON_AddArrayToObject(to, key)); }

int report_end(cJSON *r, int code) {
    checked(cJSON_AddBoolToObject(r, "ok", code == WN_EXIT_OK));
    checked(cJSON_AddNumberToObject(r, "exitCode", code));
    if (code != WN_EXIT_OK && diag_has_error()) {
        const char *file = diag_file();
        char line[1400];
        snprintf(line, sizeof line, "%s%s%s", file && *file ? file : "", file && *file ? ": " : "", diag_message());
        checked(cJSON_AddStringToObject(r, "error", line));
    }
    char *text = cJSON_Print(r);
    if (!text) abort();
    printf("%s\n", text);
    fflush(stdout);
    free(text);
    cJSON_Delete(r);
    return code;
}

int report_fail(cJSON *r, const char *file, int code) {
    cli_fail(file, code);
    return r ? report_end(r, code) : code;
}
