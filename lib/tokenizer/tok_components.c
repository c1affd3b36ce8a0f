/* tok_components.c - builds components from tokenizer.json objects through the components.def
 * table (type name -> loader + apply function), and the JSON / regex helpers the loaders share. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "tok_components.h"

typedef struct {
    int family;
    const char *type;
    TkCompLoad load;
    TkNormFn norm;
    TkPreFn pre;
    TkPostFn post;
    TkDecFn dec;
} CompType;

static const CompType comp_types[] = {
#define TK_NORMALIZER(name, l, fn) {TK_FAM_NORMALIZER, name, l, .norm = fn},
#define TK_PRETOK(name, l, fn) {TK_FAM_PRETOK, name, l, .pre = fn},
#define TK_POSTPROC(name, l, fn) {TK_FAM_POSTPROC, name, l, .post = fn},
#define TK_DECODER(name, l, fn) {TK_FAM_DECODER, name, l, .dec = fn},
#include "components.def"
};

static const char *const family_names[] = {"normalizer", "pre_tokenizer", "post_processor", "decoder"};

void tk_comp_free(TkComp *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_kids; i++)
        tk_comp_free(c->kids[i]);
    free(c->kids);
    tk_str_free(&c->a);
    tk_str_free(&c->b);
    if (c->md)
        pcre2_match_data_free(c->md);
    if (c->re)
        pcre2_code_free(c->re);
    tk_ids_free(&c->pre);
    tk_ids_free(&c->post);
    free(c);
}

TkComp *tk_load_component(TkLoad *ld, const cJSON *j, int family)
{
    if (!j || cJSON_IsNull(j))
        return NULL;
    const char *fam = family_names[family];
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");
    if (!cJSON_IsObject(j) || !cJSON_IsString(type)) {
        diag_error("%s: %s without a \"type\" string", ld->file, fam);
        return NULL;
    }
    if (ld->depth >= TK_MAX_NESTING) {
        diag_error("%s: %s nesting deeper than the limit TK_MAX_NESTING=%d", ld->file, fam, TK_MAX_NESTING);
        return NULL;
    }
    for (size_t i = 0; i < sizeof comp_types / sizeof *comp_types; i++) {
        const CompType *ct = &comp_types[i];
        if (ct->family != family || strcmp(ct->type, type->valuestring) != 0)
            continue;
        TkComp *c = calloc(1, sizeof *c);
        if (!c)
            abort();
        c->type = ct->type;
        if (family == TK_FAM_NORMALIZER) c->apply.norm = ct->norm;
        if (family == TK_FAM_PRETOK) c->apply.pre = ct->pre;
        if (family == TK_FAM_POSTPROC) c->apply.post = ct->post;
        if (family == TK_FAM_DECODER) c->apply.dec = ct->dec;
        ld->depth++;
        bool ok = ct->load(ld, j, c);
        ld->depth--;
        if (!ok) {
            tk_comp_free(c);
            return NULL;
        }
        return c;
    }
    diag_error("%s: unsupported %s type %s", ld->file, fam, type->valuestring);
    return NULL;
}

bool tk_load_children(TkLoad *ld, const cJSON *j, const char *key, int family, TkComp *c)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!cJSON_IsArray(arr)) {
        diag_error("%s: %s %s without a \"%s\" array", ld->file, family_names[family], c->type, key);
        return false;
    }
    int n = cJSON_GetArraySize(arr);
    c->kids = calloc((size_t)n + 1, sizeof *c->kids);
    if (!c->kids)
        abort();
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        TkComp *k = tk_load_component(ld, e, family);
        if (!k)
            return false;
        c->kids[c->n_kids++] = k;
    }
    return true;
}

bool tk_json_bool(const cJSON *j, const char *key, bool dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

bool tk_json_str(TkLoad *ld, const cJSON *j, const char *key, TkStr *out, bool required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!cJSON_IsString(v)) {
        if (required || (v && !cJSON_IsNull(v))) {
            diag_error("%s: %s: \"%s\" must be a string", ld->file, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "type")) ?: "component", key);
            return false;
        }
        return true;
    }
    size_t n = strlen(v->valuestring);
    if (n > TK_MAX_TOKEN_BYTES) {
        diag_error("%s: \"%s\" of %zu bytes exceeds the limit TK_MAX_TOKEN_BYTES=%d", ld->file, key, n, TK_MAX_TOKEN_BYTES);
        return false;
    }
    out->n = 0;
    tk_str_add(out, v->valuestring, n);
    return true;
}

pcre2_code *tk_regex_compile(TkLoad *ld, const char *pattern, size_t n, bool literal)
{
    int err;
    PCRE2_SIZE off;
    uint32_t opts = PCRE2_UTF | (literal ? PCRE2_LITERAL : PCRE2_UCP);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, n, opts, &err, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(err, msg, sizeof msg);
        diag_error("%s: regex /%.*s/ at offset %zu: %s", ld->file, (int)(n > 200 ? 200 : n), pattern, (size_t)off,
                   (const char *)msg);
        return NULL;
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* falls back to the interpreter when JIT is unavailable */
    return re;
}

bool tk_json_pattern(TkLoad *ld, const cJSON *j, TkComp *c)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pattern");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(p, "String");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(p, "Regex");
    const cJSON *v = cJSON_IsString(s) ? s : r;
    if (!cJSON_IsString(v)) {
        diag_error("%s: %s: \"pattern\" must be {\"String\": ...} or {\"Regex\": ...}", ld->file, c->type);
        return false;
    }
    size_t n = strlen(v->valuestring);
    if (n > TK_MAX_TOKEN_BYTES) {
        diag_error("%s: pattern of %zu bytes exceeds the limit TK_MAX_TOKEN_BYTES=%d", ld->file, n, TK_MAX_TOKEN_BYTES);
        return false;
    }
    tk_str_add(&c->a, v->valuestring, n);
    c->re = tk_regex_compile(ld, v->valuestring, n, v == s);
    if (!c->re)
        return false;
    c->md = pcre2_match_data_create_from_pattern(c->re, NULL);
    return true;
}
