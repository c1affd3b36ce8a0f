/* text_stream.c - streaming decoded text with incomplete characters held back (text_stream.h). */
#include "text_stream.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

void text_stream_init(TextStream *s, const Tokenizer *tok, FILE *out) { *s = (TextStream){.tok = tok, .out = out}; }

/* Bytes of s->text that are final: all but trailing U+FFFD characters. */
static size_t complete_len(const TextStream *s) {
    size_t end = s->len, r = sizeof REPLACEMENT - 1;
    while (end >= r && memcmp(s->text + end - r, REPLACEMENT, r) == 0) end -= r;
    return end;
}

static int write_to(TextStream *s, size_t end) {
    if (end <= s->written) return 0;
    if (s->out && (fwrite(s->text + s->written, 1, end - s->written, s->out) != end - s->written || fflush(s->out) != 0)) {
        diag_error("cannot write the generated text");
        return -1;
    }
    s->written = end;
    return 0;
}

int text_stream_push(TextStream *s, int32_t id) {
    /* a model's vocabulary may be larger than its tokenizer's (padded embeddings): such ids have
     * no text, as in the reference decoder */
    if (id < 0 || (size_t)id >= tokenizer_vocab_size(s->tok)) return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        int32_t *ids = realloc(s->ids, cap * sizeof *ids);
        if (!ids) abort();
        s->ids = ids, s->cap = cap;
    }
    s->ids[s->n++] = id;
    char *text;
    size_t len;
    if (!tokenizer_decode(s->tok, s->ids, s->n, true, &text, &len)) return -1;
    free(s->text);
    s->text = text, s->len = len;
    /* a decoder may rewrite earlier text (it never does for the common pipelines); what was written
     * stays, and the stream goes on from the same byte offset */
    return write_to(s, complete_len(s));
}

int text_stream_finish(TextStream *s) { return write_to(s, s->len); }

void text_stream_free(TextStream *s) {
    free(s->ids);
    free(s->text);
    *s = (TextStream){0};
}
