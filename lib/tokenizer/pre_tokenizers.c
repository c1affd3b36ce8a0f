/* pre_tokenizers.c - tokenizer.json pre-tokenizers that split pieces: Split (a PCRE2 regex or a
 * literal with its behavior and invert), the fixed-regex ones built on it (Digits, Whitespace,
 * WhitespaceSplit, Punctuation, CharDelimiterSplit, BertPreTokenizer), ByteLevel (GPT-2 regex and
 * the byte -> printable-char alphabet), Metaspace and Sequence.  Pieces that are added tokens
 * (id >= 0) pass through untouched; empty pieces are dropped, as the reference does.
 * ByteLevel flags: f1 = add_prefix_space, f2 = use_regex.  Metaspace: a = replacement, f1 = split. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "tok_components.h"

static const char GPT2_REGEX[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

static char byte_chars[256][3];
static unsigned char byte_char_len[256];
static int16_t char_bytes[512]; /* code point -> byte (+1), 0 = none; all alphabet code points < 512 */

static void byte_alphabet_init(void)
{
    if (byte_char_len['!'])
        return;
    int extra = 0;
    for (int b = 0; b < 256; b++) {
        bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        uint32_t cp = printable ? (uint32_t)b : (uint32_t)(256 + extra++);
        byte_char_len[b] = (unsigned char)tk_utf8_encode(cp, byte_chars[b]);
        char_bytes[cp] = (int16_t)(b + 1);
    }
}

const char *tk_byte_char(unsigned char b, size_t *len)
{
    byte_alphabet_init();
    *len = byte_char_len[b];
    return byte_chars[b];
}

int tk_char_byte(uint32_t cp)
{
    byte_alphabet_init();
    return cp < 512 ? char_bytes[cp] - 1 : -1;
}

typedef struct { size_t s, e; bool match; } Seg;

/* Splits one piece at the matches of c->re, then applies c->behavior (HF SplitDelimiterBehavior). */
static void split_piece(const TkComp *c, const char *s, size_t n, TkPieces *out)
{
    Seg stack[64], *seg = stack;
    size_t ns = 0, cap = 64, prev = 0, pos = 0;
#define PUSH(a, b, m) do { \
        if (ns == cap) { cap *= 2; seg = seg == stack ? memcpy(malloc(cap * sizeof *seg), stack, sizeof stack) \
                                                     : realloc(seg, cap * sizeof *seg); if (!seg) abort(); } \
        seg[ns++] = (Seg){(a), (b), (m) != c->invert}; } while (0)
    while (pos <= n) {
        int rc = pcre2_match(c->re, (PCRE2_SPTR)s, n, pos, PCRE2_NO_UTF_CHECK, c->md, NULL);
        if (rc < 0)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->md);
        if (ov[0] != prev)
            PUSH(prev, ov[0], false);
        PUSH(ov[0], ov[1], true);
        prev = ov[1];
        if (ov[1] == ov[0]) {
            if (ov[1] >= n)
                break;
            size_t used;
            tk_utf8_decode(s + ov[1], n - ov[1], &used);
            pos = ov[1] + used;
        } else {
            pos = ov[1];
        }
    }
    if (prev < n)
        PUSH(prev, n, false);
#undef PUSH
    /* Behaviors merge segments in place: out[k] grows, then the kept ones are emitted. */
    size_t k = 0;
    bool prev_match = false;
    if (c->behavior == TK_SPLIT_NEXT) {
        for (size_t i = ns; i-- > 0;) {
            if (seg[i].match && !prev_match && k > 0)
                seg[ns - k].s = seg[i].s; /* seg[ns - k] is the last kept (reverse order) */
            else
                seg[ns - ++k] = seg[i];
            prev_match = seg[i].match;
        }
        memmove(seg, seg + ns - k, k * sizeof *seg);
    } else {
        for (size_t i = 0; i < ns; i++) {
            bool merge = false;
            if (c->behavior == TK_SPLIT_PREV)
                merge = seg[i].match && !prev_match && k > 0;
            else if (c->behavior == TK_SPLIT_CONTIGUOUS)
                merge = seg[i].match == prev_match && k > 0;
            if (c->behavior == TK_SPLIT_REMOVED && seg[i].match)
                continue;
            if (merge)
                seg[k - 1].e = seg[i].e;
            else
                seg[k++] = seg[i];
            prev_match = seg[i].match;
        }
    }
    for (size_t i = 0; i < k; i++)
        if (seg[i].e > seg[i].s)
            tk_pieces_add(out, s + seg[i].s, seg[i].e - seg[i].s, -1);
    if (seg != stack)
        free(seg);
}

static bool pieces_map(const TkComp *c, TkPieces *in, TkPieces *out,
                       void (*f)(const TkComp *, const char *, size_t, TkPieces *, bool first), bool first_segment)
{
    for (size_t i = 0; i < in->n; i++) {
        if (in->id[i] >= 0)
            tk_pieces_add(out, tk_piece(in, i), in->len[i], in->id[i]);
        else
            f(c, tk_piece(in, i), in->len[i], out, first_segment && i == 0);
    }
    return true;
}

static void split_fn(const TkComp *c, const char *s, size_t n, TkPieces *out, bool first) { split_piece(c, s, n, out); }

bool tk_pre_split(const TkComp *c, TkPieces *in, TkPieces *out, bool first) { return pieces_map(c, in, out, split_fn, first); }
bool tk_pre_regex_split(const TkComp *c, TkPieces *in, TkPieces *out, bool first) { return pieces_map(c, in, out, split_fn, first); }

static const struct { const char *name; int behavior; } behaviors[] = {
    {"Removed", TK_SPLIT_REMOVED}, {"Isolated", TK_SPLIT_ISOLATED}, {"MergedWithPrevious", TK_SPLIT_PREV},
    {"MergedWithNext", TK_SPLIT_NEXT}, {"Contiguous", TK_SPLIT_CONTIGUOUS},
};

static bool load_behavior(TkLoad *ld, const cJSON *j, TkComp *c, int dflt)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "behavior");
    c->behavior = dflt;
    if (!b || cJSON_IsNull(b))
        return true;
    for (size_t i = 0; cJSON_IsString(b) && i < sizeof behaviors / sizeof *behaviors; i++)
        if (strcmp(b->valuestring, behaviors[i].name) == 0) {
            c->behavior = behaviors[i].behavior;
            return true;
        }
    diag_error("%s: %s: unknown behavior %s", ld->file, c->type, cJSON_IsString(b) ? b->valuestring : "(not a string)");
    return false;
}

bool tk_pre_split_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    c->invert = tk_json_bool(j, "invert", false);
    return tk_json_pattern(ld, j, c) && load_behavior(ld, j, c, TK_SPLIT_ISOLATED);
}

/* A fixed regex with a behavior (the simple pre-tokenizers). */
static bool fixed_regex(TkLoad *ld, TkComp *c, const char *re, int behavior, bool invert)
{
    c->behavior = behavior;
    c->invert = invert;
    c->re = tk_regex_compile(ld, re, strlen(re), false);
    if (!c->re)
        return false;
    c->md = pcre2_match_data_create_from_pattern(c->re, NULL);
    return true;
}

bool tk_pre_digits_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    bool each = tk_json_bool(j, "individual_digits", false);
    return fixed_regex(ld, c, "\\p{N}", each ? TK_SPLIT_ISOLATED : TK_SPLIT_CONTIGUOUS, false);
}

bool tk_pre_whitespace_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return fixed_regex(ld, c, "\\w+|[^\\w\\s]+", TK_SPLIT_REMOVED, true);
}

bool tk_pre_whitespace_split_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return fixed_regex(ld, c, "\\s+", TK_SPLIT_REMOVED, false);
}

static const char PUNCT_REGEX[] = "[\\p{P}!-/:-@\\[-`{-~]";

bool tk_pre_punctuation_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return fixed_regex(ld, c, PUNCT_REGEX, TK_SPLIT_ISOLATED, false) && load_behavior(ld, j, c, TK_SPLIT_ISOLATED);
}

bool tk_pre_char_delimiter_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    if (!tk_json_str(ld, j, "delimiter", &c->a, true))
        return false;
    c->behavior = TK_SPLIT_REMOVED;
    c->re = tk_regex_compile(ld, c->a.p, c->a.n, true);
    if (!c->re)
        return false;
    c->md = pcre2_match_data_create_from_pattern(c->re, NULL);
    return true;
}

static TkComp *fixed_kid(TkLoad *ld, const char *type, const char *re, int behavior)
{
    TkComp *k = calloc(1, sizeof *k);
    if (!k)
        abort();
    k->type = type;
    k->apply.pre = tk_pre_regex_split;
    if (!fixed_regex(ld, k, re, behavior, false)) {
        tk_comp_free(k);
        return NULL;
    }
    return k;
}

bool tk_pre_bert_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    c->kids = calloc(2, sizeof *c->kids);
    if (!c->kids)
        abort();
    if (!(c->kids[c->n_kids++] = fixed_kid(ld, "WhitespaceSplit", "\\s+", TK_SPLIT_REMOVED)))
        return false;
    return (c->kids[c->n_kids++] = fixed_kid(ld, "Punctuation", PUNCT_REGEX, TK_SPLIT_ISOLATED)) != NULL;
}

bool tk_pre_sequence_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return tk_load_children(ld, j, "pretokenizers", TK_FAM_PRETOK, c);
}

bool tk_pre_sequence(const TkComp *c, TkPieces *in, TkPieces *out, bool first)
{
    TkPieces a = {0}, b = {0}, *src = in, *dst = &a;
    for (size_t i = 0; i < c->n_kids; i++) {
        TkPieces *target = i + 1 == c->n_kids ? out : dst;
        tk_pieces_clear(target);
        if (!c->kids[i]->apply.pre(c->kids[i], src, target, first))
            return false;
        src = target;
        dst = src == &a ? &b : &a;
    }
    if (c->n_kids == 0)
        for (size_t i = 0; i < in->n; i++)
            tk_pieces_add(out, tk_piece(in, i), in->len[i], in->id[i]);
    tk_pieces_free(&a);
    tk_pieces_free(&b);
    return true;
}

bool tk_pre_byte_level_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    c->f1 = tk_json_bool(j, "add_prefix_space", true);
    c->f2 = tk_json_bool(j, "use_regex", true);
    c->behavior = TK_SPLIT_ISOLATED;
    if (!c->f2)
        return true;
    c->re = tk_regex_compile(ld, GPT2_REGEX, strlen(GPT2_REGEX), false);
    if (!c->re)
        return false;
    c->md = pcre2_match_data_create_from_pattern(c->re, NULL);
    return true;
}

static void byte_level_piece(const TkComp *c, const char *s, size_t n, TkPieces *out, bool first)
{
    TkStr tmp = {0};
    if (c->f1 && (n == 0 || s[0] != ' ')) {
        tk_str_addc(&tmp, ' ');
        tk_str_add(&tmp, s, n);
        s = tmp.p;
        n = tmp.n;
    }
    TkPieces split = {0};
    if (c->f2)
        split_piece(c, s, n, &split);
    else if (n)
        tk_pieces_add(&split, s, n, -1);
    TkStr mapped = {0};
    byte_alphabet_init();
    for (size_t i = 0; i < split.n; i++) {
        const unsigned char *p = (const unsigned char *)tk_piece(&split, i);
        char *w = tk_str_reserve(&mapped, 2 * split.len[i]), *w0 = w; /* every byte maps to 1 or 2 bytes */
        for (size_t k = 0; k < split.len[i]; k++) {
            w[0] = byte_chars[p[k]][0];
            w[1] = byte_chars[p[k]][1];
            w += byte_char_len[p[k]];
        }
        tk_pieces_add(out, w0, (size_t)(w - w0), -1);
    }
    tk_str_free(&mapped);
    tk_pieces_free(&split);
    tk_str_free(&tmp);
}

bool tk_pre_byte_level(const TkComp *c, TkPieces *in, TkPieces *out, bool first)
{
    return pieces_map(c, in, out, byte_level_piece, first);
}

bool tk_pre_metaspace_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    if (!tk_json_str(ld, j, "replacement", &c->a, false))
        return false;
    if (!c->a.n)
        tk_str_add(&c->a, "\xE2\x96\x81", 3);
    c->f1 = tk_json_bool(j, "split", true);
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(j, "prepend_scheme");
    c->scheme = tk_json_bool(j, "add_prefix_space", true) ? TK_PREPEND_ALWAYS : TK_PREPEND_NEVER;
    if (cJSON_IsString(ps)) {
        if (strcmp(ps->valuestring, "first") == 0) c->scheme = TK_PREPEND_FIRST;
        else if (strcmp(ps->valuestring, "never") == 0) c->scheme = TK_PREPEND_NEVER;
        else if (strcmp(ps->valuestring, "always") == 0) c->scheme = TK_PREPEND_ALWAYS;
        else {
            diag_error("%s: Metaspace: unknown prepend_scheme %s", ld->file, ps->valuestring);
            return false;
        }
    }
    c->behavior = TK_SPLIT_NEXT;
    c->re = tk_regex_compile(ld, c->a.p, c->a.n, true);
    if (!c->re)
        return false;
    c->md = pcre2_match_data_create_from_pattern(c->re, NULL);
    return true;
}

static void metaspace_piece(const TkComp *c, const char *s, size_t n, TkPieces *out, bool first)
{
    TkStr t = {0};
    tk_str_add(&t, "", 0);
    bool prepend = c->scheme == TK_PREPEND_ALWAYS || (c->scheme == TK_PREPEND_FIRST && first);
    if (prepend && !(n >= c->a.n && memcmp(s, c->a.p, c->a.n) == 0))
        tk_str_add(&t, c->a.p, c->a.n);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ' ')
            tk_str_add(&t, c->a.p, c->a.n);
        else
            tk_str_addc(&t, s[i]);
    }
    if (c->f1)
        split_piece(c, t.p, t.n, out);
    else if (t.n)
        tk_pieces_add(out, t.p, t.n, -1);
    tk_str_free(&t);
}

bool tk_pre_metaspace(const TkComp *c, TkPieces *in, TkPieces *out, bool first)
{
    return pieces_map(c, in, out, metaspace_piece, first);
}
