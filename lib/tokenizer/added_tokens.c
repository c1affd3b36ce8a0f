/* added_tokens.c - the added tokens of tokenizer.json ("added_tokens"): special or not, matched in
 * the text before the model sees it (leftmost, longest first) with their lstrip / rstrip (eat the
 * whitespace beside the match) and single_word (only between non-word characters) flags.  Tokens
 * with normalized = true are matched in the normalized text, the others in the raw text: tk_added_split
 * takes which set to use. */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "core.h"
#include "tok_internal.h"

static int by_length_desc(const void *a, const void *b)
{
    const TkAdded *x = *(TkAdded *const *)a, *y = *(TkAdded *const *)b;
    return x->len < y->len ? 1 : x->len > y->len ? -1 : 0;
}

/* One alternation of the tokens with the given normalized flag, longest first (leftmost-longest). */
static pcre2_code *alternation(TkLoad *ld, Tokenizer *t, bool normalized)
{
    TkAdded **order = malloc((t->n_added + 1) * sizeof *order);
    size_t n = 0;
    for (size_t i = 0; i < t->n_added; i++)
        if (t->added[i].normalized == normalized && t->added[i].len)
            order[n++] = &t->added[i];
    qsort(order, n, sizeof *order, by_length_desc);
    TkStr re = {0};
    for (size_t i = 0; i < n; i++) {
        if (i)
            tk_str_addc(&re, '|');
        for (size_t k = 0; k < order[i]->len; k++) {
            unsigned char ch = (unsigned char)order[i]->content[k];
            if (ch < 0x80 && !((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
                tk_str_addc(&re, '\\');
            if (ch == 0) /* a NUL in a token: \x{0} */
                tk_str_add(&re, "x{0}", 4);
            else
                tk_str_addc(&re, (char)ch);
        }
    }
    free(order);
    pcre2_code *code = n ? tk_regex_compile(ld, re.p, re.n, false) : NULL;
    tk_str_free(&re);
    return code;
}

bool tk_added_load(TkLoad *ld, const cJSON *arr, Tokenizer *t)
{
    if (arr && !cJSON_IsArray(arr)) {
        diag_error("%s: \"added_tokens\" must be an array", ld->file);
        return false;
    }
    int n = cJSON_GetArraySize(arr);
    if (!input_limit_ok(LIMIT_VOCAB_SIZE, n, ld->file, "added_tokens entries")) {
        return false;
    }
    t->added = calloc((size_t)n + 1, sizeof *t->added);
    if (!t->added)
        abort();
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(e, "content");
        if (!cJSON_IsNumber(id) || id->valuedouble < 0 || id->valuedouble >= TK_MAX_VOCAB || !cJSON_IsString(content)) {
            diag_error("%s: added_tokens[%zu] needs an \"id\" (0..TK_MAX_VOCAB) and a \"content\" string", ld->file, t->n_added);
            return false;
        }
        size_t len = strlen(content->valuestring);
        if (len > TK_MAX_TOKEN_BYTES) {
            diag_error("%s: added token of %zu bytes exceeds the limit TK_MAX_TOKEN_BYTES=%d", ld->file, len, TK_MAX_TOKEN_BYTES);
            return false;
        }
        TkAdded *a = &t->added[t->n_added++];
        a->content = content->valuestring;
        a->len = len;
        a->id = id->valueint;
        a->special = tk_json_bool(e, "special", false);
        a->lstrip = tk_json_bool(e, "lstrip", false);
        a->rstrip = tk_json_bool(e, "rstrip", false);
        a->normalized = tk_json_bool(e, "normalized", !a->special);
        a->single_word = tk_json_bool(e, "single_word", false);
        tk_map_put(&t->added_by_content, a->content, len, (int64_t)(t->n_added - 1));
    }
    if (!t->n_added)
        return true;
    for (int norm = 0; norm < 2; norm++) {
        pcre2_code *re = alternation(ld, t, norm);
        if (diag_has_error())
            return false;
        t->added_re[norm] = re;
        if (re)
            t->added_md[norm] = pcre2_match_data_create_from_pattern(re, NULL);
    }
    return true;
}

const TkAdded *tk_added_by_id(const Tokenizer *t, int32_t id)
{
    for (size_t i = t->n_added; i-- > 0;) /* small list; the last definition wins */
        if (t->added[i].id == id)
            return &t->added[i];
    return NULL;
}

static bool is_word_cp(uint32_t cp)
{
    utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
    return cp == '_' || (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
           (c >= UTF8PROC_CATEGORY_MN && c <= UTF8PROC_CATEGORY_ME) || (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

static size_t prev_char(const char *s, size_t i)
{
    do
        i--;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80);
    return i;
}

void tk_added_split(Tokenizer *t, int normalized, const char *s, size_t n, TkPieces *out)
{
    pcre2_code *re = t->added_re[normalized];
    pcre2_match_data *md = t->added_md[normalized];
    size_t pos = 0, emitted = 0;
    while (re && pos < n) {
        if (pcre2_match(re, (PCRE2_SPTR)s, n, pos, PCRE2_NO_UTF_CHECK, md, NULL) < 0)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t b = ov[0], e = ov[1];
        int64_t idx = -1;
        tk_map_get(&t->added_by_content, s + b, e - b, &idx);
        const TkAdded *a = &t->added[idx];
        size_t used;
        if (a->single_word && ((b > emitted && is_word_cp(tk_utf8_decode(s + prev_char(s, b), n, &used))) ||
                               (e < n && is_word_cp(tk_utf8_decode(s + e, n - e, &used))))) {
            tk_utf8_decode(s + b, n - b, &used);
            pos = b + used;
            continue;
        }
        while (a->lstrip && b > emitted) {
            size_t k = prev_char(s, b);
            if (!tk_is_whitespace(tk_utf8_decode(s + k, n - k, &used)))
                break;
            b = k;
        }
        while (a->rstrip && e < n && tk_is_whitespace(tk_utf8_decode(s + e, n - e, &used)))
            e += used;
        if (b > emitted)
            tk_pieces_add(out, s + emitted, b - emitted, -1);
        tk_pieces_add(out, s + b, e - b, a->id);
        emitted = pos = e;
    }
    if (emitted < n)
        tk_pieces_add(out, s + emitted, n - emitted, -1);
}
