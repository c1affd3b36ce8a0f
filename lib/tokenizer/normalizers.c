/* normalizers.c - tokenizer.json normalizers: NFC/NFD/NFKC/NFKD (utf8proc), Lowercase, StripAccents,
 * Strip, Replace (literal or regex), Prepend, Sequence, BertNormalizer, NMT and ByteLevel.  Each
 * rewrites the whole string in place.  Flags: Strip f1 = left, f2 = right; BertNormalizer f1 =
 * clean_text, f2 = handle_chinese_chars, f3 = strip_accents, f4 = lowercase. */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "core.h"
#include "tok_components.h"

typedef void (*CpMap)(const TkComp *c, uint32_t cp, TkStr *out);

/* Rewrites s code point by code point through f. */
static void map_code_points(const TkComp *c, TkStr *s, CpMap f)
{
    TkStr out = {0};
    tk_str_add(&out, "", 0);
    for (size_t i = 0; i < s->n;) {
        size_t used;
        uint32_t cp = tk_utf8_decode(s->p + i, s->n - i, &used);
        f(c, cp, &out);
        i += used;
    }
    tk_str_free(s);
    *s = out;
}

static void put_cp(TkStr *out, uint32_t cp)
{
    char b[4];
    tk_str_add(out, b, tk_utf8_encode(cp, b));
}

bool tk_norm_noargs_load(TkLoad *ld, const cJSON *j, TkComp *c) { return true; }

bool tk_norm_unicode_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    c->f1 = c->type[2] == 'K';                          /* compatibility */
    c->f2 = c->type[strlen(c->type) - 1] == 'C';        /* compose */
    return true;
}

/* utf8proc's form of n bytes appended to out. */
static bool map_region(const char *p, size_t n, bool compat, bool compose, TkStr *out)
{
    utf8proc_uint8_t *dst = NULL;
    int opts = UTF8PROC_STABLE | (compose ? UTF8PROC_COMPOSE : UTF8PROC_DECOMPOSE) | (compat ? UTF8PROC_COMPAT : 0);
    utf8proc_ssize_t m = utf8proc_map((const utf8proc_uint8_t *)p, (utf8proc_ssize_t)n, &dst, opts);
    if (m < 0) {
        diag_error("normalizer: %s", utf8proc_errmsg(m));
        return false;
    }
    tk_str_add(out, dst, (size_t)m);
    free(dst);
    return true;
}

/* A character that every normalization form keeps as it is and that takes part in no composition
 * and no canonical reordering: ASCII, or no decomposition (canonical or compatibility), combining
 * class 0 and no composition table entry, and not a Hangul jamo or syllable (composed by rule). */
static bool nf_plain(uint32_t cp)
{
    if (cp < 0x80)
        return true;
    if ((cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0xAC00 && cp <= 0xD7A3))
        return false;
    const utf8proc_property_t *p = utf8proc_get_property((utf8proc_int32_t)cp);
    return p->decomp_seqindex == UINT16_MAX && p->combining_class == 0 && p->comb_index == UINT16_MAX;
}

/* NF(K)C / NF(K)D of s: a plain character followed by another plain one (or the end) is copied, the
 * regions between such characters go through utf8proc (utf8proc on all the text was a third of the
 * encode time).  Cutting before a plain character is exact: it is a starter that composes with
 * nothing, so no composition or reordering crosses the cut. */
static bool unicode_form(TkStr *s, bool compat, bool compose)
{
    size_t i = 0;
    while (i < s->n && (unsigned char)s->p[i] < 0x80)
        i++;
    if (i == s->n)
        return true;
    TkStr out = {0};
    size_t region = SIZE_MAX; /* start of the pending utf8proc region */
    size_t copy = SIZE_MAX;   /* start of the pending run of copied characters */
    bool plain = false;       /* the character at i is plain */
    size_t used = 0;
    if (s->n) {
        uint32_t cp = tk_utf8_decode(s->p, s->n, &used);
        plain = nf_plain(cp);
    }
    for (i = 0; i < s->n;) {
        size_t next = i + used, next_used = 0;
        bool next_plain = true;
        if (next < s->n)
            next_plain = nf_plain(tk_utf8_decode(s->p + next, s->n - next, &next_used));
        if (plain && next_plain) { /* copy: flush the region before it */
            if (region != SIZE_MAX && !map_region(s->p + region, i - region, compat, compose, &out)) {
                tk_str_free(&out);
                return false;
            }
            region = SIZE_MAX;
            if (copy == SIZE_MAX)
                copy = i;
        } else if (region == SIZE_MAX) {
            if (copy != SIZE_MAX)
                tk_str_add(&out, s->p + copy, i - copy);
            copy = SIZE_MAX;
            region = i;
        }
        i = next, used = next_used, plain = next_plain;
    }
    if (copy != SIZE_MAX)
        tk_str_add(&out, s->p + copy, s->n - copy);
    if (region != SIZE_MAX && !map_region(s->p + region, s->n - region, compat, compose, &out)) {
        tk_str_free(&out);
        return false;
    }
    tk_str_free(s);
    *s = out;
    return true;
}

bool tk_norm_unicode(const TkComp *c, TkStr *s) { return unicode_form(s, c->f1, c->f2); }

static void lower_cp(const TkComp *c, uint32_t cp, TkStr *out)
{
    if (cp == 0x130) { /* İ lowercases to i + combining dot above */
        tk_str_add(out, "i\xCC\x87", 3);
        return;
    }
    put_cp(out, (uint32_t)utf8proc_tolower((utf8proc_int32_t)cp));
}

bool tk_norm_lowercase(const TkComp *c, TkStr *s)
{
    map_code_points(c, s, lower_cp);
    return true;
}

static void drop_marks(const TkComp *c, uint32_t cp, TkStr *out)
{
    if (utf8proc_category((utf8proc_int32_t)cp) != UTF8PROC_CATEGORY_MN)
        put_cp(out, cp);
}

bool tk_norm_strip_accents(const TkComp *c, TkStr *s)
{
    map_code_points(c, s, drop_marks);
    return true;
}

bool tk_norm_strip_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    c->f1 = tk_json_bool(j, "left", true);
    c->f2 = tk_json_bool(j, "strip_right", tk_json_bool(j, "right", true));
    return true;
}

/* Removes leading (left) and trailing (right) Unicode whitespace. */
static void strip_ws(TkStr *s, bool left, bool right)
{
    size_t b = 0, e = s->n;
    while (left && b < e) {
        size_t used;
        if (!tk_is_whitespace(tk_utf8_decode(s->p + b, e - b, &used)))
            break;
        b += used;
    }
    while (right && e > b) {
        size_t k = e - 1;
        while (k > b && ((unsigned char)s->p[k] & 0xC0) == 0x80)
            k--;
        size_t used;
        if (!tk_is_whitespace(tk_utf8_decode(s->p + k, e - k, &used)))
            break;
        e = k;
    }
    memmove(s->p, s->p + b, e - b);
    s->n = e - b;
    if (s->p)
        s->p[s->n] = 0;
}

bool tk_norm_strip(const TkComp *c, TkStr *s)
{
    strip_ws(s, c->f1, c->f2);
    return true;
}

bool tk_norm_replace_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return tk_json_pattern(ld, j, c) && tk_json_str(ld, j, "content", &c->b, true);
}

/* Replaces every non-overlapping match of re with content (shared with the Replace decoder). */
void tk_replace_all(const TkComp *c, const char *s, size_t n, TkStr *out)
{
    size_t pos = 0;
    while (pos <= n) {
        int rc = pcre2_match(c->re, (PCRE2_SPTR)s, n, pos, PCRE2_NO_UTF_CHECK, c->md, NULL);
        if (rc < 0)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->md);
        tk_str_add(out, s + pos, ov[0] - pos);
        tk_str_add(out, c->b.p, c->b.n);
        if (ov[1] == ov[0]) { /* empty match: copy one character and go on */
            if (ov[1] >= n) { pos = n + 1; break; }
            size_t used;
            tk_utf8_decode(s + ov[1], n - ov[1], &used);
            tk_str_add(out, s + ov[1], used);
            pos = ov[1] + used;
        } else {
            pos = ov[1];
        }
    }
    if (pos < n)
        tk_str_add(out, s + pos, n - pos);
}

bool tk_norm_replace(const TkComp *c, TkStr *s)
{
    TkStr out = {0};
    tk_str_add(&out, "", 0);
    tk_replace_all(c, s->p ? s->p : "", s->n, &out);
    tk_str_free(s);
    *s = out;
    return true;
}

bool tk_norm_prepend_load(TkLoad *ld, const cJSON *j, TkComp *c) { return tk_json_str(ld, j, "prepend", &c->a, true); }

bool tk_norm_prepend(const TkComp *c, TkStr *s)
{
    if (!s->n)
        return true;
    TkStr out = {0};
    tk_str_add(&out, c->a.p, c->a.n);
    tk_str_add(&out, s->p, s->n);
    tk_str_free(s);
    *s = out;
    return true;
}

bool tk_norm_sequence_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return tk_load_children(ld, j, "normalizers", TK_FAM_NORMALIZER, c);
}

bool tk_norm_sequence(const TkComp *c, TkStr *s)
{
    for (size_t i = 0; i < c->n_kids; i++)
        if (!c->kids[i]->apply.norm(c->kids[i], s))
            return false;
    return true;
}

bool tk_norm_bert_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    c->f1 = tk_json_bool(j, "clean_text", true);
    c->f2 = tk_json_bool(j, "handle_chinese_chars", true);
    c->f4 = tk_json_bool(j, "lowercase", true);
    c->f3 = tk_json_bool(j, "strip_accents", c->f4); /* null: follows lowercase */
    return true;
}

static bool is_cjk(uint32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
           (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

static bool is_control(uint32_t cp)
{
    if (cp == '\t' || cp == '\n' || cp == '\r')
        return false;
    utf8proc_category_t cat = utf8proc_category((utf8proc_int32_t)cp);
    return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_CN ||
           cat == UTF8PROC_CATEGORY_CO;
}

static void bert_cp(const TkComp *c, uint32_t cp, TkStr *out)
{
    if (c->f1 && (cp == 0 || cp == 0xFFFD || is_control(cp)))
        return;
    if (c->f1 && tk_is_whitespace(cp))
        cp = ' ';
    if (c->f2 && is_cjk(cp)) {
        tk_str_addc(out, ' ');
        put_cp(out, cp);
        tk_str_addc(out, ' ');
        return;
    }
    put_cp(out, cp);
}

bool tk_norm_bert(const TkComp *c, TkStr *s)
{
    map_code_points(c, s, bert_cp);
    if (c->f3 && (!unicode_form(s, false, false) || !tk_norm_strip_accents(c, s)))
        return false;
    return !c->f4 || tk_norm_lowercase(c, s);
}

static void nmt_cp(const TkComp *c, uint32_t cp, TkStr *out)
{
    if ((cp >= 1 && cp <= 8) || cp == 0xB || (cp >= 0xE && cp <= 0x1F) || cp == 0x7F || cp == 0x8F || cp == 0x9F)
        return;
    if (cp == 9 || cp == 0xA || cp == 0xC || cp == 0xD || cp == 0x1680 || (cp >= 0x200B && cp <= 0x200F) ||
        cp == 0x2028 || cp == 0x2029 || cp == 0x2581 || cp == 0xFEFF || cp == 0xFFFD)
        cp = ' ';
    put_cp(out, cp);
}

bool tk_norm_nmt(const TkComp *c, TkStr *s)
{
    map_code_points(c, s, nmt_cp);
    return true;
}

bool tk_norm_byte_level(const TkComp *c, TkStr *s)
{
    TkStr out = {0};
    tk_str_add(&out, "", 0);
    for (size_t i = 0; i < s->n; i++) {
        size_t len;
        const char *ch = tk_byte_char((unsigned char)s->p[i], &len);
        tk_str_add(&out, ch, len);
    }
    tk_str_free(s);
    *s = out;
    return true;
}
