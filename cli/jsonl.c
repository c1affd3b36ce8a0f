/* jsonl.c - the JSON-lines request loop (jsonl.h). */
#include "jsonl.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"

static int answer(FILE *out, cJSON *o) {
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!s) abort();
    int rc = fprintf(out, "%s\n", s) < 0 || fflush(out) != 0 ? -1 : 0;
    free(s);
    return rc;
}

long jsonl_each(FILE *in, FILE *out, JsonlHandler handler, void *ctx) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long errors = 0;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, in)) >= 0) {
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (len == 0) continue;
        diag_clear();
        cJSON *req = json_within_limits(line, (size_t)len, "stdin") ? cJSON_ParseWithLength(line, (size_t)len) : NULL;
        cJSON *ans = NULL;
        if (!cJSON_IsObject(req)) {
            if (!diag_has_error()) diag_error("not a JSON object");
        } else
            ans = handler(req, ctx);
        cJSON_Delete(req);
        if (!ans) {
            errors++;
            ans = cJSON_CreateObject();
            cJSON_AddStringToObject(ans, "error", diag_has_error() ? diag_message() : "failed");
        }
        rc = answer(out, ans);
    }
    free(line);
    if (rc == 0 && ferror(in)) rc = -1;
    return rc < 0 ? -1 : errors;
}
