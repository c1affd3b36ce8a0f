/* tokenizer.c - the tokenizer's C API (tokenizer.h): loads tokenizer.json (+ tokenizer_config.json
 * beside it) within the loader limits, and runs the pipeline: added tokens -> normalizer ->
 * added tokens matched after normalization -> pre-tokenizer -> BPE -> post-processor; decoding maps
 * ids to tokens (added tokens first), drops specials if asked, and runs the decoder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core.h"
#include "tok_internal.h"

static char *read_whole(const char *path, size_t *len, bool required)
{
    struct stat st;
    if (!required && stat(path, &st) != 0)
        return NULL;
    char *text = input_file_read(path, LIMIT_TOKENIZER_FILE_BYTES, len);
    if (text && !json_within_limits(text, *len, path)) {
        free(text);
        return NULL;
    }
    /* JSON is UTF-8 (RFC 8259); every string the pipeline splices into a text (Prepend, Replace,
     * added tokens, vocab pieces) is then valid UTF-8, which the regex matching relies on. */
    if (text && !tk_utf8_valid(text, *len)) {
        diag_error("%s: not valid UTF-8", path);
        free(text);
        return NULL;
    }
    return text;
}

/* bos_token in tokenizer_config.json: "<s>" or {"content": "<s>", ...}. */
static void load_config(Tokenizer *t, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    size_t len;
    char *text = read_whole(path, &len, false);
    if (!text)
        return;
    cJSON *j = cJSON_ParseWithLength(text, len);
    free(text);
    if (!j) {
        diag_error("%s: not valid JSON", path);
        return;
    }
    const cJSON *bos = cJSON_GetObjectItemCaseSensitive(j, "bos_token");
    if (cJSON_IsObject(bos))
        bos = cJSON_GetObjectItemCaseSensitive(bos, "content");
    if (cJSON_IsString(bos))
        t->bos_id = tokenizer_token_id(t, bos->valuestring);
    t->add_bos = tk_json_bool(j, "add_bos_token", false) && t->bos_id >= 0;
    cJSON_Delete(j);
}

/* Every id a post-processor adds (TemplateProcessing's special_tokens, cls/sep) names a token. */
static bool post_ids_in_vocab(const Tokenizer *t, const TkComp *c)
{
    if (!c)
        return true;
    const TkIds *lists[2] = {&c->pre, &c->post};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < lists[l]->n; i++)
            if ((size_t)lists[l]->p[i] >= t->vocab_size) {
                diag_error("%s: post_processor %s: special token id %d is outside the vocab (0..%zu)", t->file,
                           c->type, lists[l]->p[i], t->vocab_size - 1);
                return false;
            }
    for (size_t k = 0; k < c->n_kids; k++)
        if (!post_ids_in_vocab(t, c->kids[k]))
            return false;
    return true;
}

static bool load_json(Tokenizer *t, TkLoad *ld, const char *text, size_t len)
{
    t->json = cJSON_ParseWithLength(text, len);
    if (!t->json || !cJSON_IsObject(t->json)) {
        const char *at = cJSON_GetErrorPtr();
        diag_error("%s: malformed JSON%s%.20s", ld->file, at ? " near: " : "", at ? at : "");
        return false;
    }
    const cJSON *j = t->json;
    if (!tk_bpe_load(ld, cJSON_GetObjectItemCaseSensitive(j, "model"), &t->bpe) ||
        !tk_added_load(ld, cJSON_GetObjectItemCaseSensitive(j, "added_tokens"), t))
        return false;
    const char *keys[4] = {"normalizer", "pre_tokenizer", "post_processor", "decoder"};
    TkComp **slots[4] = {&t->normalizer, &t->pretok, &t->postproc, &t->decoder};
    for (int f = 0; f < 4; f++) {
        *slots[f] = tk_load_component(ld, cJSON_GetObjectItemCaseSensitive(j, keys[f]), f);
        if (diag_has_error())
            return false;
    }
    t->vocab_size = t->bpe.n_vocab;
    for (size_t i = 0; i < t->n_added; i++)
        if ((size_t)t->added[i].id + 1 > t->vocab_size)
            t->vocab_size = (size_t)t->added[i].id + 1;
    return post_ids_in_vocab(t, t->postproc);
}

Tokenizer *tokenizer_load(const char *path)
{
    struct stat st;
    char file[4096], dir[4096];
    bool is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    snprintf(file, sizeof file, is_dir ? "%s/tokenizer.json" : "%s", path);
    snprintf(dir, sizeof dir, "%s", is_dir ? path : file);
    if (!is_dir) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        else
            strcpy(dir, ".");
    }
    size_t len;
    char *text = read_whole(file, &len, true);
    if (!text)
        return NULL;
    Tokenizer *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    t->file = strdup(file);
    t->bos_id = -1;
    TkLoad ld = {.file = t->file, .tok = t};
    bool ok = load_json(t, &ld, text, len);
    free(text);
    if (ok)
        load_config(t, dir);
    if (!ok || diag_has_error()) {
        tokenizer_free(t);
        return NULL;
    }
    return t;
}

void tokenizer_free(Tokenizer *t)
{
    if (!t)
        return;
    tk_comp_free(t->normalizer);
    tk_comp_free(t->pretok);
    tk_comp_free(t->postproc);
    tk_comp_free(t->decoder);
    for (int i = 0; i < 2; i++) {
        if (t->added_md[i])
            pcre2_match_data_free(t->added_md[i]);
        if (t->added_re[i])
            pcre2_code_free(t->added_re[i]);
    }
    tk_map_free(&t->added_by_content);
    free(t->added);
    tk_bpe_free(&t->bpe);
    cJSON_Delete(t->json);
    free(t->file);
    free(t);
}

/* Normalizes one text segment, splits it at normalized added tokens, pre-tokenizes and encodes. */
static bool encode_segment(Tokenizer *t, const char *s, size_t n, bool first, TkIds *ids)
{
    TkStr norm = {0};
    tk_str_add(&norm, s, n);
    TkPieces segs = {0}, a = {0}, b = {0};
    bool ok = !t->normalizer || t->normalizer->apply.norm(t->normalizer, &norm);
    if (ok)
        tk_added_split(t, 1, norm.p, norm.n, &segs);
    TkPieces *words = &segs;
    if (ok && t->pretok) {
        ok = t->pretok->apply.pre(t->pretok, &segs, &a, first);
        words = &a;
    }
    for (size_t i = 0; ok && i < words->n; i++) {
        if (words->id[i] >= 0)
            tk_ids_add(ids, words->id[i]);
        else if (words->len[i])
            tk_bpe_encode(&t->bpe, tk_piece(words, i), words->len[i], ids);
    }
    tk_str_free(&norm);
    tk_pieces_free(&segs);
    tk_pieces_free(&a);
    tk_pieces_free(&b);
    return ok;
}

bool tokenizer_encode(Tokenizer *t, const char *text, size_t len, bool add_special, int32_t **ids_out, size_t *n_ids)
{
    *ids_out = NULL;
    *n_ids = 0;
    if (len > TK_MAX_TEXT_BYTES) {
        diag_error("text of %zu bytes exceeds the limit TK_MAX_TEXT_BYTES=%u", len, TK_MAX_TEXT_BYTES);
        return false;
    }
    if (!tk_utf8_valid(text, len)) {
        diag_error("text is not valid UTF-8");
        return false;
    }
    TkPieces raw = {0};
    TkIds ids = {0};
    tk_added_split(t, 0, text, len, &raw);
    bool ok = true;
    for (size_t i = 0; ok && i < raw.n; i++) {
        if (raw.id[i] >= 0)
            tk_ids_add(&ids, raw.id[i]);
        else
            ok = encode_segment(t, tk_piece(&raw, i), raw.len[i], raw.start[i] == 0 && i == 0, &ids);
    }
    tk_pieces_free(&raw);
    if (ok && t->postproc)
        ok = t->postproc->apply.post(t->postproc, &ids, add_special);
    if (!ok) {
        tk_ids_free(&ids);
        return false;
    }
    *ids_out = ids.p;
    *n_ids = ids.n;
    return true;
}

static const char *id_token(const Tokenizer *t, int32_t id, const TkAdded **added)
{
    *added = tk_added_by_id(t, id);
    if (*added)
        return (*added)->content;
    return (size_t)id < t->bpe.n_vocab ? t->bpe.id_to_token[id] : NULL;
}

bool tokenizer_decode(const Tokenizer *t, const int32_t *ids, size_t n_ids, bool skip_special, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    TkPieces toks = {0}, out = {0};
    for (size_t i = 0; i < n_ids; i++) {
        const TkAdded *added;
        const char *tok = ids[i] >= 0 ? id_token(t, ids[i], &added) : NULL;
        if (!tok) {
            diag_error("token id %lld outside the vocab (0..%zu)", (long long)ids[i], t->vocab_size - 1);
            tk_pieces_free(&toks);
            return false;
        }
        if (!(skip_special && added && added->special))
            tk_pieces_add(&toks, tok, strlen(tok), -1);
    }
    TkStr s = {0};
    tk_str_add(&s, "", 0);
    if (t->decoder) {
        t->decoder->apply.dec(t->decoder, &toks, &out);
        for (size_t i = 0; i < out.n; i++)
            tk_str_add(&s, tk_piece(&out, i), out.len[i]);
    } else {
        for (size_t i = 0; i < toks.n; i++) {
            if (i)
                tk_str_addc(&s, ' ');
            tk_str_add(&s, tk_piece(&toks, i), toks.len[i]);
        }
    }
    tk_pieces_free(&toks);
    tk_pieces_free(&out);
    *text = s.p;
    *len = s.n;
    return true;
}

size_t tokenizer_vocab_size(const Tokenizer *t) { return t->vocab_size; }
int32_t tokenizer_bos_id(const Tokenizer *t) { return t->bos_id; }
bool tokenizer_add_bos(const Tokenizer *t) { return t->add_bos; }

int32_t tokenizer_token_id(const Tokenizer *t, const char *token)
{
    int64_t v;
    if (tk_map_get(&t->added_by_content, token, strlen(token), &v))
        return t->added[v].id;
    if (tk_map_get(&t->bpe.vocab, token, strlen(token), &v))
        return (int32_t)v;
    return -1;
}
