/* tok_internal.h - data structures shared by the tokenizer's parts: growable byte strings and id
 * lists, the piece list the pre-tokenizers split, a string -> int hash map (vocab, merges, cache),
 * the component record every normalizer / pre-tokenizer / post-processor / decoder is, and the
 * Tokenizer itself.  Limits on what a tokenizer.json may hold are here too (README: Tokenizer). */
#ifndef WEBNNC_TOK_INTERNAL_H
#define WEBNNC_TOK_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <cjson/cJSON.h>
#include <pcre2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tokenizer.h"

/* Loader limits (each error names the limit). */
#define TK_MAX_VOCAB 4000000            /* token ids are below this (counts: input_limits.def vocab-size) */
#define TK_MAX_NESTING 16               /* Sequence nesting of components */
#define TK_MAX_TOKEN_BYTES 4096         /* one token / pattern / content string */
#define TK_MAX_TEXT_BYTES (1u << 30)    /* one text to encode */

typedef struct { char *p; size_t n, cap; } TkStr;
typedef struct { int32_t *p; size_t n, cap; } TkIds;

void tk_str_add(TkStr *s, const void *data, size_t n);
static inline void tk_str_addc(TkStr *s, char c) { tk_str_add(s, &c, 1); }
void tk_str_free(TkStr *s);
/* Room for `extra` more bytes (and the NUL): the write position; the caller advances s->n. */
char *tk_str_reserve(TkStr *s, size_t extra);
void tk_ids_add(TkIds *v, int32_t id);
void tk_ids_free(TkIds *v);

/* Pieces: strings in one pool; done[i] marks a piece that is final (an added token: id fixed). */
typedef struct {
    TkStr pool;
    size_t *start, *len;
    int32_t *id;  /* -1 unless the piece is an added token */
    size_t n, cap;
} TkPieces;
void tk_pieces_add(TkPieces *p, const char *s, size_t n, int32_t id);
void tk_pieces_clear(TkPieces *p);
void tk_pieces_free(TkPieces *p);
static inline const char *tk_piece(const TkPieces *p, size_t i) { return p->pool.p + p->start[i]; }

/* Open-addressing map of byte strings (or 64-bit keys) to int64 values. */
typedef struct {
    uint64_t *hash;   /* 0 = empty */
    uint32_t *kofs;   /* key offset in keys pool */
    uint32_t *klen;
    int64_t *val;
    size_t cap, n;
    TkStr keys;
} TkMap;
bool tk_map_put(TkMap *m, const void *key, size_t n, int64_t val); /* false if present (kept) */
bool tk_map_get(const TkMap *m, const void *key, size_t n, int64_t *val);
void tk_map_free(TkMap *m);

/* uint64 key -> int64 value, open addressing with a multiplicative hash (BPE merges: one lookup per
 * candidate pair, the hottest path of encoding). */
typedef struct {
    uint64_t *key; /* key + 1 (0 = empty) */
    int64_t *val;
    size_t n, cap; /* cap: a power of two */
} TkPairMap;
void tk_pairs_put(TkPairMap *m, uint64_t key, int64_t val); /* replaces */
bool tk_pairs_get(const TkPairMap *m, uint64_t key, int64_t *val);
void tk_pairs_free(TkPairMap *m);

/* UTF-8 helpers. */
int tk_utf8_len(unsigned char lead);           /* 1..4, 0 if not a lead byte */
bool tk_utf8_valid(const char *s, size_t n);
uint32_t tk_utf8_decode(const char *s, size_t n, size_t *used); /* valid input assumed */
size_t tk_utf8_encode(uint32_t cp, char out[4]);
/* Appends s as UTF-8 with each maximal invalid subsequence replaced by U+FFFD (Rust's lossy). */
void tk_utf8_lossy(TkStr *out, const char *s, size_t n);
bool tk_is_whitespace(uint32_t cp);

typedef struct TkComp TkComp;
typedef struct Tokenizer Tokenizer;
typedef bool (*TkNormFn)(const TkComp *, TkStr *s);
typedef bool (*TkPreFn)(const TkComp *, TkPieces *in, TkPieces *out, bool first_segment);
typedef bool (*TkDecFn)(const TkComp *, TkPieces *tokens, TkPieces *out);
typedef bool (*TkPostFn)(const TkComp *, TkIds *ids, bool add_special);

enum { TK_SPLIT_REMOVED, TK_SPLIT_ISOLATED, TK_SPLIT_PREV, TK_SPLIT_NEXT, TK_SPLIT_CONTIGUOUS };
enum { TK_PREPEND_ALWAYS, TK_PREPEND_FIRST, TK_PREPEND_NEVER };

/* One component of any family; which fields mean what is documented by each family's file. */
struct TkComp {
    const char *type;
    union { TkNormFn norm; TkPreFn pre; TkDecFn dec; TkPostFn post; } apply;
    TkStr a, b;             /* pattern / content / prepend / prefix strings */
    pcre2_code *re;         /* Split / Replace regex, ByteLevel's GPT-2 regex */
    pcre2_match_data *md;
    int behavior, scheme, start, stop;
    bool invert, f1, f2, f3, f4; /* family-specific flags */
    TkComp **kids;
    size_t n_kids;
    TkIds pre, post;        /* TemplateProcessing: ids before and after sequence A */
};
void tk_comp_free(TkComp *c);

/* Loading context: the file name for messages and the nesting depth. */
typedef struct { const char *file; int depth; const Tokenizer *tok; } TkLoad;
TkComp *tk_load_component(TkLoad *ld, const cJSON *j, int family);
enum { TK_FAM_NORMALIZER, TK_FAM_PRETOK, TK_FAM_POSTPROC, TK_FAM_DECODER };
/* Component constructors fill c from j; false after diag_error(). */
typedef bool (*TkCompLoad)(TkLoad *ld, const cJSON *j, TkComp *c);
/* JSON field helpers used by the constructors. */
bool tk_json_bool(const cJSON *j, const char *key, bool dflt);
bool tk_json_str(TkLoad *ld, const cJSON *j, const char *key, TkStr *out, bool required);
/* "pattern": {"String": s} or {"Regex": r}: compiles c->re (a String is quoted literally). */
bool tk_json_pattern(TkLoad *ld, const cJSON *j, TkComp *c);
pcre2_code *tk_regex_compile(TkLoad *ld, const char *pattern, size_t n, bool literal);

/* Added tokens (added_tokens.c). */
typedef struct {
    char *content; size_t len;
    int32_t id;
    bool special, lstrip, rstrip, normalized, single_word;
} TkAdded;

/* BPE model (bpe.c). */
typedef struct {
    TkMap vocab;            /* token -> id */
    char **id_to_token;     /* [n_vocab] model tokens (NULL where an id is unused) */
    size_t n_vocab;
    TkPairMap merges;       /* id_a << 32 | id_b -> rank << 32 | merged id */
    TkMap cache;            /* word -> offset in cache_ids (high 32: count) */
    TkIds cache_ids;
    int32_t unk_id, byte_ids[256];
    TkStr prefix, suffix;   /* continuing_subword_prefix, end_of_word_suffix */
    bool byte_fallback, fuse_unk, ignore_merges;
    bool metaspace_cuts;    /* words may be cut before a "\u2581" that follows another character */
} TkBpe;
bool tk_bpe_load(TkLoad *ld, const cJSON *model, TkBpe *bpe);
void tk_bpe_encode(TkBpe *bpe, const char *word, size_t n, TkIds *out);
void tk_bpe_free(TkBpe *bpe);

struct Tokenizer {
    char *file;
    TkAdded *added; size_t n_added;
    TkMap added_by_content;
    pcre2_code *added_re[2]; /* alternations of added tokens [normalized], longest first */
    pcre2_match_data *added_md[2];
    cJSON *json;             /* the parsed tokenizer.json (vocab strings live in it) */
    TkComp *normalizer, *pretok, *postproc, *decoder;
    TkBpe bpe;
    size_t vocab_size;
    int32_t bos_id;
    bool add_bos;
};

/* Splits text by the added tokens: each piece has id >= 0 (an added token) or -1 (text). */
void tk_added_split(Tokenizer *t, int normalized, const char *text, size_t n, TkPieces *out);
bool tk_added_load(TkLoad *ld, const cJSON *arr, Tokenizer *t);
const TkAdded *tk_added_by_id(const Tokenizer *t, int32_t id);
/* Byte-level alphabet (pre_tokenizers.c): byte -> UTF-8 of its printable char, and back. */
const char *tk_byte_char(unsigned char b, size_t *len);
int tk_char_byte(uint32_t cp); /* -1 if cp is not in the alphabet */

#endif
