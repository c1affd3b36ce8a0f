/* reader_util.c - reader errors (one line, prefixed with the file) and typed JSON accessors. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "reader.h"

void wn_rd_error(const ReadCtx *c, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error("%s: %s", c->src, msg);
}

bool wn_json_int(const cJSON *j, int64_t *out) {
    if (!cJSON_IsNumber(j)) return false;
    double d = j->valuedouble;
    if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || d != (double)(int64_t)d) return false;
    *out = (int64_t)d;
    return true;
}

int wn_read_dim(ReadCtx *c, const cJSON *j, bool allow_dynamic, const char *what, Dim *out) {
    int64_t v;
    if (wn_json_int(j, &v)) {
        if (v < 1 || v > WN_MAX_DIM) {
            wn_rd_error(c, "%s: dimension %lld is out of range (1..%lld)", what, (long long)v, WN_MAX_DIM);
            return -1;
        }
        *out = dim_static(v);
        return 0;
    }
    if (!cJSON_IsObject(j)) {
        wn_rd_error(c, "%s: a dimension must be a positive integer%s", what, allow_dynamic ? " or {\"name\", \"maxSize\"}" : "");
        return -1;
    }
    if (!allow_dynamic) {
        wn_rd_error(c, "%s: dynamic dimensions are only allowed on graph inputs and shape options", what);
        return -1;
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(j, "maxSize");
    if (!cJSON_IsString(name) || !name->valuestring[0]) {
        wn_rd_error(c, "%s: dynamic dimension needs a non-empty string \"name\"", what);
        return -1;
    }
    if (!wn_json_int(max, &v) || v < 1 || v > WN_MAX_DIM) {
        wn_rd_error(c, "%s: dynamic dimension '%s' needs an integer \"maxSize\" in 1..%lld", what, name->valuestring,
                 WN_MAX_DIM);
        return -1;
    }
    Graph *g = c->g;
    for (int s = 0; s < g->n_symbols; s++) {
        if (strcmp(g->symbols[s].name, name->valuestring) == 0 && g->symbols[s].max_size != v) {
            wn_rd_error(c, "%s: dynamic dimension '%s' has maxSize %lld here and %lld elsewhere", what,
                     name->valuestring, (long long)v, (long long)g->symbols[s].max_size);
            return -1;
        }
    }
    *out = dim_symbol(g, name->valuestring, v);
    return 0;
}

int64_t wn_shape_elements(ReadCtx *c, int rank, const Dim *shape, const char *what) {
    uint64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (!checked_mul_u64(n, (uint64_t)shape[i].v, &n) || n > (1ull << 62)) {
            wn_rd_error(c, "%s: element count overflows", what);
            return -1;
        }
    }
    return (int64_t)n;
}
