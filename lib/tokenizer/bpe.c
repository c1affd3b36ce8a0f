/* bpe.c - the BPE model of tokenizer.json: vocab and merges (ranks in xxHash maps), a word cache,
 * byte_fallback (<0xXX> tokens), fuse_unk, ignore_merges, continuing_subword_prefix and
 * end_of_word_suffix.  dropout is ignored (deterministic encoding).  A merge of two symbols is taken
 * lowest rank first, leftmost first among equal ranks, as the reference does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "tok_internal.h"

#define CACHE_MAX_WORD 256
#define CACHE_MAX_ENTRIES 262144

static bool vocab_id(const TkBpe *bpe, const char *s, size_t n, int32_t *id)
{
    int64_t v;
    if (!tk_map_get(&bpe->vocab, s, n, &v))
        return false;
    *id = (int32_t)v;
    return true;
}

static bool load_vocab(TkLoad *ld, const cJSON *vocab, TkBpe *bpe)
{
    if (!cJSON_IsObject(vocab)) {
        diag_error("%s: model.vocab must be an object", ld->file);
        return false;
    }
    int32_t max_id = -1;
    size_t count = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, vocab) {
        if (!input_limit_ok(LIMIT_VOCAB_SIZE, ++count, ld->file, "model.vocab entries")) {
            return false;
        }
        size_t n = strlen(e->string);
        if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble >= TK_MAX_VOCAB ||
            e->valuedouble != (double)e->valueint) {
            diag_error("%s: model.vocab: token \"%.64s\" has no valid id (0..TK_MAX_VOCAB)", ld->file, e->string);
            return false;
        }
        if (n > TK_MAX_TOKEN_BYTES) {
            diag_error("%s: vocab token of %zu bytes exceeds the limit TK_MAX_TOKEN_BYTES=%d", ld->file, n, TK_MAX_TOKEN_BYTES);
            return false;
        }
        tk_map_put(&bpe->vocab, e->string, n, e->valueint);
        if (e->valueint > max_id)
            max_id = e->valueint;
    }
    bpe->n_vocab = (size_t)(max_id + 1);
    bpe->id_to_token = calloc(bpe->n_vocab + 1, sizeof *bpe->id_to_token);
    if (!bpe->id_to_token)
        abort();
    cJSON_ArrayForEach(e, vocab) bpe->id_to_token[e->valueint] = e->string;
    return true;
}

/* One merges entry: "a b" or ["a", "b"]. */
static bool merge_parts(const cJSON *m, const char **a, size_t *na, const char **b, size_t *nb)
{
    if (cJSON_IsString(m)) {
        const char *sp = strchr(m->valuestring, ' ');
        if (!sp || strchr(sp + 1, ' '))
            return false;
        *a = m->valuestring;
        *na = (size_t)(sp - m->valuestring);
        *b = sp + 1;
        *nb = strlen(sp + 1);
        return true;
    }
    if (cJSON_IsArray(m) && cJSON_GetArraySize(m) == 2 && cJSON_IsString(m->child) && cJSON_IsString(m->child->next)) {
        *a = m->child->valuestring;
        *na = strlen(*a);
        *b = m->child->next->valuestring;
        *nb = strlen(*b);
        return true;
    }
    return false;
}

static bool load_merges(TkLoad *ld, const cJSON *merges, TkBpe *bpe)
{
    if (merges && !cJSON_IsArray(merges)) {
        diag_error("%s: model.merges must be an array", ld->file);
        return false;
    }
    int64_t rank = 0;
    const cJSON *m;
    TkStr both = {0};
    cJSON_ArrayForEach(m, merges) {
        if (!input_limit_ok(LIMIT_MERGES_COUNT, (uint64_t)rank + 1, ld->file, "model.merges entries")) {
            goto fail;
        }
        const char *a, *b;
        size_t na, nb;
        int32_t ia = 0, ib = 0, ij = 0;
        if (!merge_parts(m, &a, &na, &b, &nb)) {
            diag_error("%s: model.merges[%lld] is not \"A B\" or [\"A\", \"B\"]", ld->file, (long long)rank);
            goto fail;
        }
        both.n = 0;
        tk_str_add(&both, a, na);
        tk_str_add(&both, b, nb);
        const char *missing = !vocab_id(bpe, a, na, &ia) ? a : !vocab_id(bpe, b, nb, &ib) ? b
                            : !vocab_id(bpe, both.p, both.n, &ij) ? both.p : NULL;
        if (missing) {
            size_t nm = missing == a ? na : missing == b ? nb : both.n;
            diag_error("%s: model.merges[%lld] names unknown token \"%.*s\"", ld->file, (long long)rank,
                       (int)(nm > 64 ? 64 : nm), missing);
            goto fail;
        }
        int64_t old;
        uint64_t key = (uint64_t)(uint32_t)ia << 32 | (uint32_t)ib;
        if (!tk_pairs_get(&bpe->merges, key, &old)) /* the first listing of a pair counts */
            tk_pairs_put(&bpe->merges, key, (rank << 32) | (uint32_t)ij);
        rank++;
    }
    tk_str_free(&both);
    return true;
fail:
    tk_str_free(&both);
    return false;
}

#define METASPACE "\xE2\x96\x81" /* U+2581, SentencePiece's space */

/* Whether no merge can join a character to a following "\u2581" (no vocab token holds one after
 * another character; no subword prefix or suffix; "\u2581" itself a token): then a long word (a
 * SentencePiece-style pipeline has no pre-tokenizer, so the whole text is one word) can be encoded
 * piece by piece, cut before each such "\u2581", with the same result and with the word cache. */
static bool find_metaspace_cuts(const TkBpe *bpe)
{
    int32_t id;
    if (bpe->prefix.n || bpe->suffix.n || !vocab_id(bpe, METASPACE, 3, &id))
        return false;
    for (size_t i = 0; i < bpe->n_vocab; i++) {
        const char *t = bpe->id_to_token[i], *p = t;
        while (t && *t && (p = strstr(p + 1, METASPACE)))
            if (p - t < 3 || memcmp(p - 3, METASPACE, 3) != 0)
                return false;
    }
    return true;
}

bool tk_bpe_load(TkLoad *ld, const cJSON *model, TkBpe *bpe)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(model, "type");
    if (!cJSON_IsObject(model)) {
        diag_error("%s: no \"model\" object", ld->file);
        return false;
    }
    if (type && (!cJSON_IsString(type) || strcmp(type->valuestring, "BPE") != 0)) {
        diag_error("%s: unsupported tokenizer model %s", ld->file, cJSON_IsString(type) ? type->valuestring : "(type not a string)");
        return false;
    }
    if (!load_vocab(ld, cJSON_GetObjectItemCaseSensitive(model, "vocab"), bpe) ||
        !load_merges(ld, cJSON_GetObjectItemCaseSensitive(model, "merges"), bpe))
        return false;
    TkStr unk = {0};
    bool ok = tk_json_str(ld, model, "unk_token", &unk, false) &&
              tk_json_str(ld, model, "continuing_subword_prefix", &bpe->prefix, false) &&
              tk_json_str(ld, model, "end_of_word_suffix", &bpe->suffix, false);
    bpe->unk_id = -1;
    if (ok && unk.n && !vocab_id(bpe, unk.p, unk.n, &bpe->unk_id)) {
        diag_error("%s: model.unk_token \"%.64s\" is not in the vocab", ld->file, unk.p);
        ok = false;
    }
    tk_str_free(&unk);
    bpe->byte_fallback = tk_json_bool(model, "byte_fallback", false);
    bpe->fuse_unk = tk_json_bool(model, "fuse_unk", false);
    bpe->ignore_merges = tk_json_bool(model, "ignore_merges", false);
    bpe->metaspace_cuts = ok && find_metaspace_cuts(bpe);
    for (int b = 0; b < 256; b++) {
        char name[8];
        snprintf(name, sizeof name, "<0x%02X>", b);
        if (!vocab_id(bpe, name, 6, &bpe->byte_ids[b]))
            bpe->byte_ids[b] = -1;
    }
    return ok;
}

/* Initial symbols of a word: one per character (prefix / suffix applied), byte fallback, unk. */
static void initial_symbols(const TkBpe *bpe, const char *w, size_t n, TkIds *sym)
{
    TkStr s = {0};
    bool last_unk = false;
    for (size_t i = 0; i < n;) {
        size_t used;
        tk_utf8_decode(w + i, n - i, &used);
        s.n = 0;
        if (i > 0 && bpe->prefix.n)
            tk_str_add(&s, bpe->prefix.p, bpe->prefix.n);
        tk_str_add(&s, w + i, used);
        if (i + used == n && bpe->suffix.n)
            tk_str_add(&s, bpe->suffix.p, bpe->suffix.n);
        int32_t id;
        bool found = vocab_id(bpe, s.p, s.n, &id);
        if (found) {
            tk_ids_add(sym, id);
            last_unk = false;
        } else {
            bool bytes = bpe->byte_fallback;
            for (size_t k = 0; bytes && k < used; k++)
                bytes = bpe->byte_ids[(unsigned char)w[i + k]] >= 0;
            if (bytes) {
                for (size_t k = 0; k < used; k++)
                    tk_ids_add(sym, bpe->byte_ids[(unsigned char)w[i + k]]);
                last_unk = false;
            } else if (bpe->unk_id >= 0) {
                if (!(bpe->fuse_unk && last_unk))
                    tk_ids_add(sym, bpe->unk_id);
                last_unk = true;
            }
        }
        i += used;
    }
    tk_str_free(&s);
}

static bool merge_of(const TkBpe *bpe, int32_t a, int32_t b, int64_t *v)
{
    return tk_pairs_get(&bpe->merges, (uint64_t)(uint32_t)a << 32 | (uint32_t)b, v);
}

/* A possible merge of the symbols at left and its right neighbour (ids a, b -> merged). */
typedef struct {
    uint32_t rank;
    uint32_t left;
    int32_t a, b, merged;
} Cand;

typedef struct {
    Cand *p;
    size_t n, cap;
} CandHeap; /* min-heap by (rank, left): lowest rank first, leftmost among equal ranks */

static bool cand_less(const Cand *x, const Cand *y)
{
    return x->rank != y->rank ? x->rank < y->rank : x->left < y->left;
}

static void heap_push(CandHeap *h, Cand c)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 64;
        h->p = realloc(h->p, h->cap * sizeof *h->p);
        if (!h->p)
            abort();
    }
    size_t i = h->n++;
    while (i && cand_less(&c, &h->p[(i - 1) / 2])) {
        h->p[i] = h->p[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->p[i] = c;
}

static Cand heap_pop(CandHeap *h)
{
    Cand top = h->p[0], last = h->p[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && cand_less(&h->p[c + 1], &h->p[c]))
            c++;
        if (!cand_less(&h->p[c], &last))
            break;
        h->p[i] = h->p[c];
        i = c;
    }
    if (h->n)
        h->p[i] = last;
    return top;
}

static void push_pair(const TkBpe *bpe, CandHeap *h, const int32_t *id, uint32_t left, uint32_t right)
{
    int64_t v;
    if (merge_of(bpe, id[left], id[right], &v))
        heap_push(h, (Cand){(uint32_t)(v >> 32), left, id[left], id[right], (int32_t)(v & 0xFFFFFFFF)});
}

/* Applies merges to sym in place: lowest rank first, leftmost among equal ranks (as the reference
 * does), in O(n log n): symbols form a linked list over their first positions, candidate pairs wait
 * in a heap, and a popped candidate whose symbols changed since it was pushed is dropped. */
static void apply_merges(const TkBpe *bpe, TkIds *sym)
{
    size_t n = sym->n;
    if (n < 2)
        return;
    uint32_t *next = malloc(n * sizeof *next), *prev = malloc(n * sizeof *prev);
    if (!next || !prev)
        abort();
    const uint32_t none = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        next[i] = i + 1 < n ? (uint32_t)i + 1 : none;
        prev[i] = i ? (uint32_t)i - 1 : none;
    }
    int32_t *id = sym->p;
    CandHeap h = {0};
    for (size_t i = 0; i + 1 < n; i++)
        push_pair(bpe, &h, id, (uint32_t)i, (uint32_t)i + 1);
    while (h.n) {
        Cand c = heap_pop(&h);
        uint32_t r = next[c.left];
        if (id[c.left] != c.a || r == none || id[r] != c.b) /* stale: a symbol merged away meanwhile */
            continue;
        id[c.left] = c.merged;
        id[r] = -1; /* removed */
        next[c.left] = next[r];
        if (next[r] != none)
            prev[next[r]] = c.left;
        if (prev[c.left] != none)
            push_pair(bpe, &h, id, prev[c.left], c.left);
        if (next[c.left] != none)
            push_pair(bpe, &h, id, c.left, next[c.left]);
    }
    size_t k = 0;
    for (uint32_t i = 0; i != none; i = next[i])
        id[k++] = id[i];
    sym->n = k;
    free(h.p);
    free(next);
    free(prev);
}

static void encode_word(TkBpe *bpe, const char *word, size_t n, TkIds *out)
{
    int32_t id;
    int64_t cached;
    if (bpe->ignore_merges && vocab_id(bpe, word, n, &id)) {
        tk_ids_add(out, id);
        return;
    }
    if (n < CACHE_MAX_WORD && tk_map_get(&bpe->cache, word, n, &cached)) {
        for (int64_t i = 0; i < (cached & 0xFFFF); i++)
            tk_ids_add(out, bpe->cache_ids.p[(cached >> 16) + i]);
        return;
    }
    TkIds sym = {0};
    initial_symbols(bpe, word, n, &sym);
    apply_merges(bpe, &sym);
    if (n < CACHE_MAX_WORD && bpe->cache.n < CACHE_MAX_ENTRIES) {
        int64_t ofs = (int64_t)bpe->cache_ids.n;
        for (size_t i = 0; i < sym.n; i++)
            tk_ids_add(&bpe->cache_ids, sym.p[i]);
        tk_map_put(&bpe->cache, word, n, (ofs << 16) | (int64_t)sym.n);
    }
    for (size_t i = 0; i < sym.n; i++)
        tk_ids_add(out, sym.p[i]);
    tk_ids_free(&sym);
}

void tk_bpe_encode(TkBpe *bpe, const char *word, size_t n, TkIds *out)
{
    size_t start = 0;
    for (size_t i = 3; bpe->metaspace_cuts && i + 3 <= n; i++)
        if (memcmp(word + i, METASPACE, 3) == 0 && memcmp(word + i - 3, METASPACE, 3) != 0) {
            encode_word(bpe, word + start, i - start, out);
            start = i;
        }
    encode_word(bpe, word + start, n - start, out);
}

void tk_bpe_free(TkBpe *bpe)
{
    tk_map_free(&bpe->vocab);
    tk_pairs_free(&bpe->merges);
    tk_map_free(&bpe->cache);
    tk_ids_free(&bpe->cache_ids);
    free(bpe->id_to_token);
    tk_str_free(&bpe->prefix);
    tk_str_free(&bpe->suffix);
}
