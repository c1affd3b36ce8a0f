/* text_stream.h - generated text as it arrives (text_stream.c): every new token id re-decodes the
 * generated ids (so decoders that look at neighbours, such as Metaspace's leading space or byte
 * fallback runs, give the same text as one decode at the end) and writes the part not yet
 * written, holding back a trailing U+FFFD (the lossy decoding of an incomplete UTF-8 sequence or
 * byte run) until a later token completes it or the stream ends.  Ids beyond the tokenizer's
 * vocabulary (a model's padded embedding rows) add no text. */
#ifndef WEBNNC_CLI_TEXT_STREAM_H
#define WEBNNC_CLI_TEXT_STREAM_H

#include <stdint.h>
#include <stdio.h>

#include "tokenizer.h"

typedef struct {
    const Tokenizer *tok;
    FILE *out;
    int32_t *ids;
    size_t n, cap;
    char *text;     /* the generated ids decoded (special tokens skipped) */
    size_t len;
    size_t written; /* bytes of text written to out */
} TextStream;

/* out NULL: nothing is written, s->text still collects the text (generate --json). */
void text_stream_init(TextStream *s, const Tokenizer *tok, FILE *out);
/* Adds one id and writes the newly complete text.  0, or -1 + diagnostic (id outside the vocab). */
int text_stream_push(TextStream *s, int32_t id);
/* Writes what was held back.  0, or -1 on a write error. */
int text_stream_finish(TextStream *s);
void text_stream_free(TextStream *s);

#endif
