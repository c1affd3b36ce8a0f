/* tokenizer.h - C API of the Hugging Face tokenizer.json reader (lib/tokenizer).
 *
 * tokenizer_load() reads tokenizer.json (a file, or a folder holding it) and tokenizer_config.json
 * beside it, and builds the pipeline the file describes: added tokens, normalizer, pre-tokenizer,
 * model (BPE), post-processor and decoder.  Errors go through diag_error() (diag.h): one line naming
 * the file and what is wrong; the functions then return NULL / false and output nothing. */
#ifndef WEBNNC_TOKENIZER_H
#define WEBNNC_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Tokenizer Tokenizer;

/* path: tokenizer.json or a folder holding it.  NULL on error (diag_error). */
Tokenizer *tokenizer_load(const char *path);
void tokenizer_free(Tokenizer *t);

/* Encodes len bytes of UTF-8 text; add_special runs the post-processor's special tokens (BOS).
 * *ids is malloc'ed (may be NULL when *n_ids == 0).  False on invalid UTF-8 (diag_error). */
bool tokenizer_encode(Tokenizer *t, const char *text, size_t len, bool add_special, int32_t **ids,
                      size_t *n_ids);
/* Decodes ids to a malloc'ed NUL-terminated UTF-8 string (*len bytes); skip_special drops special
 * added tokens.  False on an id outside the vocab (diag_error). */
bool tokenizer_decode(const Tokenizer *t, const int32_t *ids, size_t n_ids, bool skip_special, char **text,
                      size_t *len);

/* Vocab size including added tokens (largest id + 1). */
size_t tokenizer_vocab_size(const Tokenizer *t);
/* tokenizer_config.json: bos token id (-1: none) and add_bos_token. */
int32_t tokenizer_bos_id(const Tokenizer *t);
bool tokenizer_add_bos(const Tokenizer *t);
/* Token id of a string (added tokens, then the model vocab), -1 if none. */
int32_t tokenizer_token_id(const Tokenizer *t, const char *token);

#endif
