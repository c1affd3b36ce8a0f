/* decoders.c - tokenizer.json decoders: each turns the list of token strings into a new list;
 * the tokenizer joins the final list.  ByteLevel (alphabet chars -> bytes, lossy UTF-8), Replace,
 * ByteFallback (<0xXX> runs -> text, one U+FFFD per byte when invalid), Fuse, Strip, Metaspace,
 * WordPiece, BPEDecoder and Sequence.  Strip: a = content, start/stop counts; Metaspace: a =
 * replacement; WordPiece: a = prefix, f1 = cleanup; BPEDecoder: a = suffix. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "tok_components.h"

void tk_replace_all(const TkComp *c, const char *s, size_t n, TkStr *out);

bool tk_dec_noargs_load(TkLoad *ld, const cJSON *j, TkComp *c) { return true; }

bool tk_dec_byte_level(const TkComp *c, TkPieces *in, TkPieces *out)
{
    TkStr bytes = {0}, text = {0};
    tk_str_add(&text, "", 0);
    for (size_t i = 0; i < in->n; i++) {
        const char *s = tk_piece(in, i);
        size_t n = in->len[i], mark = bytes.n;
        for (size_t k = 0; k < n;) {
            size_t used;
            int b = tk_char_byte(tk_utf8_decode(s + k, n - k, &used));
            if (b < 0) { /* not in the alphabet: the token's own bytes */
                bytes.n = mark;
                tk_str_add(&bytes, s, n);
                break;
            }
            tk_str_addc(&bytes, (char)b);
            k += used;
        }
    }
    tk_utf8_lossy(&text, bytes.p ? bytes.p : "", bytes.n);
    tk_pieces_add(out, text.p, text.n, -1);
    tk_str_free(&bytes);
    tk_str_free(&text);
    return true;
}

bool tk_dec_replace_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return tk_json_pattern(ld, j, c) && tk_json_str(ld, j, "content", &c->b, true);
}

bool tk_dec_replace(const TkComp *c, TkPieces *in, TkPieces *out)
{
    TkStr t = {0};
    for (size_t i = 0; i < in->n; i++) {
        t.n = 0;
        tk_str_add(&t, "", 0);
        tk_replace_all(c, tk_piece(in, i), in->len[i], &t);
        tk_pieces_add(out, t.p, t.n, -1);
    }
    tk_str_free(&t);
    return true;
}

static int byte_token(const char *s, size_t n)
{
    if (n != 6 || memcmp(s, "<0x", 3) != 0 || s[5] != '>')
        return -1;
    int v = 0;
    for (int i = 3; i < 5; i++) {
        char ch = s[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static void flush_bytes(TkStr *bytes, size_t count, TkPieces *out)
{
    if (!count)
        return;
    if (tk_utf8_valid(bytes->p, bytes->n))
        tk_pieces_add(out, bytes->p, bytes->n, -1);
    else
        for (size_t k = 0; k < count; k++)
            tk_pieces_add(out, "\xEF\xBF\xBD", 3, -1);
    bytes->n = 0;
}

bool tk_dec_byte_fallback(const TkComp *c, TkPieces *in, TkPieces *out)
{
    TkStr bytes = {0};
    size_t count = 0;
    for (size_t i = 0; i < in->n; i++) {
        int b = byte_token(tk_piece(in, i), in->len[i]);
        if (b >= 0) {
            tk_str_addc(&bytes, (char)b);
            count++;
            continue;
        }
        flush_bytes(&bytes, count, out);
        count = 0;
        tk_pieces_add(out, tk_piece(in, i), in->len[i], -1);
    }
    flush_bytes(&bytes, count, out);
    tk_str_free(&bytes);
    return true;
}

bool tk_dec_fuse(const TkComp *c, TkPieces *in, TkPieces *out)
{
    tk_pieces_add(out, in->pool.p ? in->pool.p : "", in->pool.n, -1); /* pieces lie in order in the pool */
    return true;
}

bool tk_dec_strip_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    const cJSON *start = cJSON_GetObjectItemCaseSensitive(j, "start"), *stop = cJSON_GetObjectItemCaseSensitive(j, "stop");
    c->start = cJSON_IsNumber(start) ? start->valueint : 0;
    c->stop = cJSON_IsNumber(stop) ? stop->valueint : 0;
    return tk_json_str(ld, j, "content", &c->a, true);
}

bool tk_dec_strip(const TkComp *c, TkPieces *in, TkPieces *out)
{
    for (size_t i = 0; i < in->n; i++) {
        const char *s = tk_piece(in, i);
        size_t b = 0, e = in->len[i];
        for (int k = 0; k < c->start && c->a.n && e - b >= c->a.n && memcmp(s + b, c->a.p, c->a.n) == 0; k++)
            b += c->a.n;
        for (int k = 0; k < c->stop && c->a.n && e - b >= c->a.n && memcmp(s + e - c->a.n, c->a.p, c->a.n) == 0; k++)
            e -= c->a.n;
        tk_pieces_add(out, s + b, e - b, -1);
    }
    return true;
}

bool tk_dec_metaspace_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    bool tk_pre_metaspace_load(TkLoad *, const cJSON *, TkComp *);
    return tk_pre_metaspace_load(ld, j, c);
}

/* Each piece with every occurrence of the marker c->a replaced by a space where keep_space(c, piece,
 * pieces) says so, else removed (Metaspace and BPEDecoder). */
static void replace_marker(const TkComp *c, TkPieces *in, TkPieces *out, bool (*keep_space)(const TkComp *, size_t, size_t))
{
    TkStr t = {0};
    for (size_t i = 0; i < in->n; i++) {
        const char *s = tk_piece(in, i);
        size_t n = in->len[i];
        t.n = 0;
        tk_str_add(&t, "", 0);
        for (size_t k = 0; k < n;) {
            if (c->a.n && n - k >= c->a.n && memcmp(s + k, c->a.p, c->a.n) == 0) {
                if (keep_space(c, i, in->n))
                    tk_str_addc(&t, ' ');
                k += c->a.n;
            } else {
                tk_str_addc(&t, s[k++]);
            }
        }
        tk_pieces_add(out, t.p, t.n, -1);
    }
    tk_str_free(&t);
}

/* Metaspace: the replacement becomes a space, except at the start of the first piece when a space
 * was prepended. */
static bool metaspace_space(const TkComp *c, size_t i, size_t n)
{
    return !(i == 0 && c->scheme != TK_PREPEND_NEVER);
}

bool tk_dec_metaspace(const TkComp *c, TkPieces *in, TkPieces *out)
{
    replace_marker(c, in, out, metaspace_space);
    return true;
}

bool tk_dec_wordpiece_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    c->f1 = tk_json_bool(j, "cleanup", true);
    if (!tk_json_str(ld, j, "prefix", &c->a, false))
        return false;
    if (!cJSON_GetObjectItemCaseSensitive(j, "prefix"))
        tk_str_add(&c->a, "##", 2);
    return true;
}

static const char *const cleanups[][2] = {
    {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"}, {" 'm", "'m"},
    {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
};

static void cleanup_text(TkStr *t)
{
    for (size_t r = 0; r < sizeof cleanups / sizeof *cleanups; r++) {
        TkStr o = {0};
        tk_str_add(&o, "", 0);
        size_t fl = strlen(cleanups[r][0]), tl = strlen(cleanups[r][1]);
        for (size_t k = 0; k < t->n;) {
            if (t->n - k >= fl && memcmp(t->p + k, cleanups[r][0], fl) == 0) {
                tk_str_add(&o, cleanups[r][1], tl);
                k += fl;
            } else {
                tk_str_addc(&o, t->p[k++]);
            }
        }
        tk_str_free(t);
        *t = o;
    }
}

bool tk_dec_wordpiece(const TkComp *c, TkPieces *in, TkPieces *out)
{
    TkStr t = {0};
    for (size_t i = 0; i < in->n; i++) {
        const char *s = tk_piece(in, i);
        size_t n = in->len[i];
        t.n = 0;
        tk_str_add(&t, "", 0);
        if (i > 0 && n >= c->a.n && memcmp(s, c->a.p, c->a.n) == 0)
            tk_str_add(&t, s + c->a.n, n - c->a.n);
        else {
            if (i > 0)
                tk_str_addc(&t, ' ');
            tk_str_add(&t, s, n);
        }
        if (c->f1)
            cleanup_text(&t);
        tk_pieces_add(out, t.p, t.n, -1);
    }
    tk_str_free(&t);
    return true;
}

bool tk_dec_bpe_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    if (!tk_json_str(ld, j, "suffix", &c->a, false))
        return false;
    if (!cJSON_GetObjectItemCaseSensitive(j, "suffix"))
        tk_str_add(&c->a, "</w>", 4);
    return true;
}

/* BPEDecoder: the suffix becomes a space, except in the last piece. */
static bool bpe_space(const TkComp *c, size_t i, size_t n)
{
    return i + 1 < n;
}

bool tk_dec_bpe(const TkComp *c, TkPieces *in, TkPieces *out)
{
    replace_marker(c, in, out, bpe_space);
    return true;
}

bool tk_dec_sequence_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return tk_load_children(ld, j, "decoders", TK_FAM_DECODER, c);
}

bool tk_dec_sequence(const TkComp *c, TkPieces *in, TkPieces *out)
{
    TkPieces a = {0}, b = {0}, *src = in, *dst = &a;
    for (size_t i = 0; i < c->n_kids; i++) {
        TkPieces *target = i + 1 == c->n_kids ? out : dst;
        tk_pieces_clear(target);
        if (!c->kids[i]->apply.dec(c->kids[i], src, target))
            return false;
        src = target;
        dst = src == &a ? &b : &a;
    }
    if (c->n_kids == 0)
        for (size_t i = 0; i < in->n; i++)
            tk_pieces_add(out, tk_piece(in, i), in->len[i], -1);
    tk_pieces_free(&a);
    tk_pieces_free(&b);
    return true;
}
