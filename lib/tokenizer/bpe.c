/* bpe.c - the BPE model of tokenizer.json: vocab and merges (ranks in xxHash maps), a word cache,
 * byte_fallback (<0xXX> tokens), fuse_unk, ignore_merges, continuing_subword_prefix and
 * end_of_word_suffix.  dropout is ignored (deterministic encoding).  A merge of two symbols is taken
 * lowest rank first, leftmost first among equal ranks, as the reference does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
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
        if (++count > TK_MAX_VOCAB) {
            diag_error("%s: model.vocab exceeds the limit TK_MAX_VOCAB=%d", ld->file, TK_MAX_VOCAB);
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
        if (rank >= TK_MAX_MERGES) {
            diag_error("%s: model.merges exceeds the limit TK_MAX_MERGES=%d", ld->file, TK_MAX_MERGES);
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
        int32_t key[2] = {ia, ib};
        tk_map_put(&bpe->merges, key, sizeof key, (rank << 32) | (uint32_t)ij);
        rank++;
    }
    tk_str_free(&both);
    return true;
fail:
    tk_str_free(&both);
    return false;
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
    int32_t key[2] = {a, b};
    return tk_map_get(&bpe->merges, key, sizeof key, v);
}

/* Applies merges to sym in place: lowest rank first, leftmost among equal ranks. */
static void apply_merges(const TkBpe *bpe, TkIds *sym)
{
    while (sym->n > 1) {
        int64_t best = INT64_MAX;
        size_t at = 0;
        for (size_t i = 0; i + 1 < sym->n; i++) {
            int64_t v;
            if (merge_of(bpe, sym->p[i], sym->p[i + 1], &v) && (v >> 32) < (best >> 32)) {
                best = v;
                at = i;
            }
        }
        if (best == INT64_MAX)
            return;
        sym->p[at] = (int32_t)(best & 0xFFFFFFFF);
        memmove(sym->p + at + 1, sym->p + at + 2, (sym->n - at - 2) * sizeof *sym->p);
        sym->n--;
    }
}

void tk_bpe_encode(TkBpe *bpe, const char *word, size_t n, TkIds *out)
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

void tk_bpe_free(TkBpe *bpe)
{
    tk_map_free(&bpe->vocab);
    tk_map_free(&bpe->merges);
    tk_map_free(&bpe->cache);
    tk_ids_free(&bpe->cache_ids);
    free(bpe->id_to_token);
    tk_str_free(&bpe->prefix);
    tk_str_free(&bpe->suffix);
}
