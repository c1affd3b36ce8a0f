/* limits_read.c - reads WebNN implementation limits files (impl_limits.h): an opSupportLimits()
 * object as JSON.  Strict about shapes (every operand entry an object with a "dataTypes" array of
 * strings and an optional integer "rankRange" {min <= max}), tolerant of data type names it does
 * not know (a newer browser's), and bounded by the input limits: config-file-size, json-nesting,
 * string-length, node-count (ops).  Errors are one line: "FILE: KEY: what is wrong". */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "impl_limits.h"

typedef struct {
    const char *src;
    ImplLimits *l;
    int cap;
} LimitsCtx;

static int lim_error(const LimitsCtx *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int lim_error(const LimitsCtx *c, const char *key, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error("%s: %.200s: %s", c->src, key, msg);
    return -1;
}

/* Integer JSON number in [lo, hi]. */
static bool int_in(const cJSON *j, double lo, double hi, int64_t *out) {
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= lo && j->valuedouble <= hi) || j->valuedouble != (double)(int64_t)j->valuedouble)
        return false;
    *out = (int64_t)j->valuedouble;
    return true;
}

static int read_support(LimitsCtx *c, const char *key, const cJSON *j, OperandSupport *out) {
    if (!cJSON_IsObject(j)) return lim_error(c, key, "must be an object with \"dataTypes\"");
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(j, "dataTypes");
    if (!cJSON_IsArray(types)) return lim_error(c, key, "\"dataTypes\" must be an array of strings");
    *out = (OperandSupport){0, 0, WN_RANK_ANY};
    for (const cJSON *t = types->child; t; t = t->next) {
        if (!cJSON_IsString(t)) return lim_error(c, key, "\"dataTypes\" must be an array of strings");
        DType dt = dtype_from_name(t->valuestring);
        if (dt != DT_INVALID) out->data_types |= 1u << dt;
    }
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(j, "rankRange");
    if (range) {
        int64_t lo, hi;
        if (!cJSON_IsObject(range) || !int_in(cJSON_GetObjectItemCaseSensitive(range, "min"), 0, WN_RANK_ANY, &lo) ||
            !int_in(cJSON_GetObjectItemCaseSensitive(range, "max"), 0, WN_RANK_ANY, &hi) || lo > hi)
            return lim_error(c, key, "\"rankRange\" must be {\"min\": m, \"max\": M} with 0 <= m <= M <= %d", WN_RANK_ANY);
        out->rank_min = (int)lo;
        out->rank_max = (int)hi;
    }
    return 0;
}

static int read_op(LimitsCtx *c, const cJSON *op) {
    if (!cJSON_IsObject(op)) return lim_error(c, op->string, "must be an object of operands");
    ImplLimits *l = c->l;
    if (!input_limit_ok(LIMIT_NODE_COUNT, (uint64_t)++l->n_ops, c->src, "op count")) return -1;
    const char *name = arena_strdup(l->arena, op->string);
    for (const cJSON *o = op->child; o; o = o->next) {
        if (l->n_operands == c->cap) {
            int cap = c->cap ? 2 * c->cap : 64;
            l->operands = arena_grow(l->arena, l->operands, sizeof *l->operands * (size_t)c->cap, sizeof *l->operands * (size_t)cap);
            c->cap = cap;
        }
        OperandLimit *e = &l->operands[l->n_operands];
        char key[300];
        snprintf(key, sizeof key, "%.140s.%.140s", op->string, o->string);
        if (read_support(c, key, o, &e->s) < 0) return -1;
        e->op = name;
        e->operand = arena_strdup(l->arena, o->string);
        l->n_operands++;
    }
    return 0;
}

static int read_member(LimitsCtx *c, const cJSON *m) {
    ImplLimits *l = c->l;
    const char *k = m->string;
    if (!strcmp(k, "input")) return read_support(c, k, m, &l->input);
    if (!strcmp(k, "constant")) return read_support(c, k, m, &l->constant);
    if (!strcmp(k, "output")) return read_support(c, k, m, &l->output);
    if (!strcmp(k, "maxTensorByteLength")) {
        int64_t v;
        if (!int_in(m, 1, 9007199254740992.0, &v)) return lim_error(c, k, "must be a positive integer up to 2^53");
        l->max_tensor_byte_length = (uint64_t)v;
        return 0;
    }
    if (!strcmp(k, "preferredInputLayout")) {
        if (!cJSON_IsString(m) || (strcmp(m->valuestring, "nchw") && strcmp(m->valuestring, "nhwc")))
            return lim_error(c, k, "must be \"nchw\" or \"nhwc\"");
        l->preferred_input_layout = arena_strdup(l->arena, m->valuestring);
        return 0;
    }
    return read_op(c, m);
}

ImplLimits *wn_impl_limits_parse(const char *json, size_t len, const char *src) {
    if (!input_limit_ok(LIMIT_CONFIG_JSON_BYTES, len, src, "size") || !json_within_limits(json, len, src)) return NULL;
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!cJSON_IsObject(root)) {
        diag_error("%s: not a JSON object (an opSupportLimits() result)", src);
        cJSON_Delete(root);
        return NULL;
    }
    ImplLimits *l = calloc(1, sizeof *l);
    if (!l || !(l->arena = arena_new())) abort();
    LimitsCtx c = {src, l, 0};
    int rc = 0;
    for (const cJSON *m = root->child; m && !rc; m = m->next) rc = read_member(&c, m);
    cJSON_Delete(root);
    if (rc) {
        wn_impl_limits_free(l);
        return NULL;
    }
    return l;
}

ImplLimits *wn_impl_limits_read(const char *path) {
    size_t len = 0;
    char *text = input_file_read(path, LIMIT_CONFIG_JSON_BYTES, &len);
    if (!text) return NULL;
    ImplLimits *l = wn_impl_limits_parse(text, len, path);
    free(text);
    return l;
}

void wn_impl_limits_free(ImplLimits *l) {
    if (!l) return;
    arena_free(l->arena);
    free(l);
}

const OperandSupport *wn_impl_limits_find(const ImplLimits *l, const char *op, const char *operand) {
    for (int i = 0; i < l->n_operands; i++)
        if (!strcmp(l->operands[i].op, op) && !strcmp(l->operands[i].operand, operand)) return &l->operands[i].s;
    return NULL;
}

bool wn_operand_supports(const OperandSupport *s, DType dt, int rank) {
    return dt != DT_INVALID && (s->data_types & (1u << dt)) && rank >= s->rank_min && rank <= s->rank_max;
}
