/* tok_util.c - the tokenizer's small building blocks: growable strings and id lists, the piece
 * list, the xxHash-keyed open-addressing map, and UTF-8 helpers (validation, lossy decoding the way
 * Rust's String::from_utf8_lossy does it, whitespace). */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "tok_internal.h"

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * elem);
    if (!q)
        abort();
    *cap = c;
    return q;
}

void tk_str_add(TkStr *s, const void *data, size_t n)
{
    s->p = grow(s->p, &s->cap, s->n + n + 1, 1);
    if (n)
        memcpy(s->p + s->n, data, n);
    s->n += n;
    s->p[s->n] = 0;
}

char *tk_str_reserve(TkStr *s, size_t extra)
{
    s->p = grow(s->p, &s->cap, s->n + extra + 1, 1);
    return s->p + s->n;
}

void tk_str_free(TkStr *s)
{
    free(s->p);
    *s = (TkStr){0};
}

void tk_ids_add(TkIds *v, int32_t id)
{
    v->p = grow(v->p, &v->cap, v->n + 1, sizeof *v->p);
    v->p[v->n++] = id;
}

void tk_ids_free(TkIds *v)
{
    free(v->p);
    *v = (TkIds){0};
}

void tk_pieces_add(TkPieces *p, const char *s, size_t n, int32_t id)
{
    if (p->n == p->cap) {
        size_t c = p->cap;
        p->start = grow(p->start, &c, p->n + 1, sizeof *p->start);
        c = p->cap;
        p->len = grow(p->len, &c, p->n + 1, sizeof *p->len);
        c = p->cap;
        p->id = grow(p->id, &c, p->n + 1, sizeof *p->id);
        p->cap = c;
    }
    p->start[p->n] = p->pool.n;
    p->len[p->n] = n;
    p->id[p->n] = id;
    p->n++;
    tk_str_add(&p->pool, s, n);
}

void tk_pieces_clear(TkPieces *p)
{
    p->n = 0;
    p->pool.n = 0;
}

void tk_pieces_free(TkPieces *p)
{
    tk_str_free(&p->pool);
    free(p->start);
    free(p->len);
    free(p->id);
    *p = (TkPieces){0};
}

static uint64_t key_hash(const void *key, size_t n)
{
    uint64_t h = XXH3_64bits(key, n);
    return h ? h : 1;
}

static void map_rehash(TkMap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    TkMap nm = {.cap = ncap, .n = m->n, .keys = m->keys};
    nm.hash = calloc(ncap, sizeof *nm.hash);
    nm.kofs = malloc(ncap * sizeof *nm.kofs);
    nm.klen = malloc(ncap * sizeof *nm.klen);
    nm.val = malloc(ncap * sizeof *nm.val);
    if (!nm.hash || !nm.kofs || !nm.klen || !nm.val)
        abort();
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->hash[i])
            continue;
        size_t j = m->hash[i] & (ncap - 1);
        while (nm.hash[j])
            j = (j + 1) & (ncap - 1);
        nm.hash[j] = m->hash[i];
        nm.kofs[j] = m->kofs[i];
        nm.klen[j] = m->klen[i];
        nm.val[j] = m->val[i];
    }
    free(m->hash);
    free(m->kofs);
    free(m->klen);
    free(m->val);
    *m = nm;
}

static size_t map_find(const TkMap *m, uint64_t h, const void *key, size_t n)
{
    size_t j = h & (m->cap - 1);
    while (m->hash[j]) {
        if (m->hash[j] == h && m->klen[j] == n && memcmp(m->keys.p + m->kofs[j], key, n) == 0)
            return j;
        j = (j + 1) & (m->cap - 1);
    }
    return j;
}

bool tk_map_put(TkMap *m, const void *key, size_t n, int64_t val)
{
    if ((m->n + 1) * 4 > m->cap * 3)
        map_rehash(m);
    uint64_t h = key_hash(key, n);
    size_t j = map_find(m, h, key, n);
    if (m->hash[j])
        return false;
    m->hash[j] = h;
    m->kofs[j] = (uint32_t)m->keys.n;
    m->klen[j] = (uint32_t)n;
    m->val[j] = val;
    tk_str_add(&m->keys, key, n);
    m->n++;
    return true;
}

bool tk_map_get(const TkMap *m, const void *key, size_t n, int64_t *val)
{
    if (!m->cap)
        return false;
    size_t j = map_find(m, key_hash(key, n), key, n);
    if (!m->hash[j])
        return false;
    *val = m->val[j];
    return true;
}

void tk_map_free(TkMap *m)
{
    free(m->hash);
    free(m->kofs);
    free(m->klen);
    free(m->val);
    tk_str_free(&m->keys);
    *m = (TkMap){0};
}

static size_t pair_slot(const TkPairMap *m, uint64_t key)
{
    size_t j = (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (m->cap - 1);
    while (m->key[j] && m->key[j] != key + 1)
        j = (j + 1) & (m->cap - 1);
    return j;
}

void tk_pairs_put(TkPairMap *m, uint64_t key, int64_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        TkPairMap old = *m;
        m->cap = old.cap ? 2 * old.cap : 1024;
        m->key = calloc(m->cap, sizeof *m->key);
        m->val = malloc(m->cap * sizeof *m->val);
        if (!m->key || !m->val)
            abort();
        for (size_t i = 0; i < old.cap; i++)
            if (old.key[i]) {
                size_t j = pair_slot(m, old.key[i] - 1);
                m->key[j] = old.key[i];
                m->val[j] = old.val[i];
            }
        free(old.key);
        free(old.val);
    }
    size_t j = pair_slot(m, key);
    m->n += !m->key[j];
    m->key[j] = key + 1;
    m->val[j] = val;
}

bool tk_pairs_get(const TkPairMap *m, uint64_t key, int64_t *val)
{
    if (!m->cap)
        return false;
    size_t j = pair_slot(m, key);
    if (!m->key[j])
        return false;
    *val = m->val[j];
    return true;
}

void tk_pairs_free(TkPairMap *m)
{
    free(m->key);
    free(m->val);
    *m = (TkPairMap){0};
}

int tk_utf8_len(unsigned char c)
{
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return 2;
    if (c >= 0xE0 && c <= 0xEF)
        return 3;
    if (c >= 0xF0 && c <= 0xF4)
        return 4;
    return 0;
}

/* Length of the valid sequence at s (1..4), or 0; *sub gets the length of the maximal invalid
 * subpart when invalid (at least 1). */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *sub)
{
    int len = tk_utf8_len(s[0]);
    *sub = 1;
    if (len == 0)
        return 0;
    if (len == 1)
        return 1;
    unsigned char lo = 0x80, hi = 0xBF;
    if (s[0] == 0xE0) lo = 0xA0;
    if (s[0] == 0xED) hi = 0x9F;
    if (s[0] == 0xF0) lo = 0x90;
    if (s[0] == 0xF4) hi = 0x8F;
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n || s[i] < lo || s[i] > hi) {
            *sub = (size_t)i;
            return 0;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return (size_t)len;
}

bool tk_utf8_valid(const char *s, size_t n)
{
    size_t i = 0, sub;
    while (i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        size_t l = utf8_seq((const unsigned char *)s + i, n - i, &sub);
        if (!l)
            return false;
        i += l;
    }
    return true;
}

uint32_t tk_utf8_decode(const char *s, size_t n, size_t *used)
{
    const unsigned char *u = (const unsigned char *)s;
    int len = tk_utf8_len(u[0]);
    if (len <= 1 || (size_t)len > n) {
        *used = 1;
        return u[0];
    }
    uint32_t cp = u[0] & (0xFF >> (len + 1));
    for (int i = 1; i < len; i++)
        cp = (cp << 6) | (u[i] & 0x3F);
    *used = (size_t)len;
    return cp;
}

size_t tk_utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

void tk_utf8_lossy(TkStr *out, const char *s, size_t n)
{
    size_t i = 0, sub;
    while (i < n) {
        size_t l = utf8_seq((const unsigned char *)s + i, n - i, &sub);
        if (l) {
            tk_str_add(out, s + i, l);
            i += l;
        } else {
            tk_str_add(out, "\xEF\xBF\xBD", 3);
            i += sub;
        }
    }
}

bool tk_is_whitespace(uint32_t cp)
{
    return (cp >= 9 && cp <= 13) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}
