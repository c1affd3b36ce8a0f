/* limits_notes.c - what a WebNN implementation enforces beyond its opSupportLimits() (impl_limits.h):
 * the notes file (format "webnnc-limits-notes", e.g. data/limits/chromium-153-cpu.notes.json:
 * operands that must be constants, such as scatterElements indices in Chromium 153), and
 * wn_impl_limits_load(), which picks the built-in Chromium limits (embedded from data/limits/ at
 * build time by data/limits/embed.py) or a file with its sibling notes. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core.h"
#include "impl_limits.h"

extern const char wn_builtin_limits_json[], wn_builtin_notes_json[];
extern const unsigned long wn_builtin_limits_json_len, wn_builtin_notes_json_len;

static int notes_error(const char *src, const char *key, const char *what) {
    diag_error("%s: %s: %s", src, key, what);
    return -1;
}

int wn_impl_limits_parse_notes(ImplLimits *l, const char *json, size_t len, const char *src) {
    if (!input_limit_ok(LIMIT_CONFIG_JSON_BYTES, len, src, "size") || !json_within_limits(json, len, src)) return -1;
    cJSON *root = cJSON_ParseWithLength(json, len);
    int rc = 0;
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "constantOperands");
    if (!cJSON_IsObject(root) || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, "webnnc-limits-notes"))
        rc = notes_error(src, "format", "not a webnnc-limits-notes file");
    else if (list && !cJSON_IsArray(list))
        rc = notes_error(src, "constantOperands", "must be an array of {\"op\", \"operand\"}");
    int n = list ? cJSON_GetArraySize(list) : 0;
    if (!rc && n > 4096) rc = notes_error(src, "constantOperands", "more than 4096 entries");
    if (!rc && n) { /* room for the entries already there (an earlier notes file) and these */
        size_t had = (size_t)l->n_const_only, all = had + (size_t)n;
        const char **ops = arena_alloc(l->arena, sizeof(char *) * all), **operands = arena_alloc(l->arena, sizeof(char *) * all);
        if (had) {
            memcpy(ops, l->const_only_op, sizeof(char *) * had);
            memcpy(operands, l->const_only_operand, sizeof(char *) * had);
        }
        l->const_only_op = ops;
        l->const_only_operand = operands;
    }
    for (const cJSON *e = list ? list->child : NULL; e && !rc; e = e->next) {
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(e, "op"), *operand = cJSON_GetObjectItemCaseSensitive(e, "operand");
        if (!cJSON_IsString(op) || !cJSON_IsString(operand)) {
            rc = notes_error(src, "constantOperands", "every entry needs string \"op\" and \"operand\"");
            break;
        }
        l->const_only_op[l->n_const_only] = arena_strdup(l->arena, op->valuestring);
        l->const_only_operand[l->n_const_only++] = arena_strdup(l->arena, operand->valuestring);
    }
    cJSON_Delete(root);
    return rc;
}

bool wn_impl_limits_constant_only(const ImplLimits *l, const char *op, const char *operand) {
    for (int i = 0; i < l->n_const_only; i++)
        if (!strcmp(l->const_only_op[i], op) && !strcmp(l->const_only_operand[i], operand)) return true;
    return false;
}

/* FILE.json -> FILE.notes.json (FILE.notes.json for a name without .json). */
static void notes_path(const char *path, char *out, size_t len) {
    size_t n = strlen(path);
    if (n > 5 && !strcmp(path + n - 5, ".json")) n -= 5;
    snprintf(out, len, "%.*s.notes.json", (int)n, path);
}

ImplLimits *wn_impl_limits_load(const char *spec) {
    ImplLimits *l;
    if (!spec || !*spec || !strcmp(spec, "chromium")) {
        l = wn_impl_limits_parse(wn_builtin_limits_json, wn_builtin_limits_json_len, "builtin:chromium-153-cpu.json");
        if (l && wn_impl_limits_parse_notes(l, wn_builtin_notes_json, wn_builtin_notes_json_len,
                                         "builtin:chromium-153-cpu.notes.json") < 0) {
            wn_impl_limits_free(l);
            return NULL;
        }
        if (l) l->src = "chromium-153-cpu (built in)";
        return l;
    }
    l = wn_impl_limits_read(spec);
    if (!l) return NULL;
    l->src = arena_strdup(l->arena, spec);
    char np[4096];
    notes_path(spec, np, sizeof np);
    struct stat st;
    if (stat(np, &st) == 0) {
        size_t len = 0;
        char *text = input_file_read(np, LIMIT_CONFIG_JSON_BYTES, &len);
        int rc = text ? wn_impl_limits_parse_notes(l, text, len, np) : -1;
        free(text);
        if (rc < 0) {
            wn_impl_limits_free(l);
            return NULL;
        }
    }
    return l;
}
