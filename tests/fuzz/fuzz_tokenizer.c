/* fuzz_tokenizer.c - libFuzzer harness for tokenizer.json + tokenizer_config.json (lib/tokenizer):
 * the input is tokenizer.json | tokenizer_config.json | a text (FUZZ_PART_SEP between them); a
 * tokenizer that loads encodes the text with and without special tokens (invalid UTF-8 must be
 * refused with a diagnostic), decodes the ids both ways, and decodes ids taken from the text bytes
 * (out-of-vocab ids refused with a diagnostic).  Seeds: the corpus models' tokenizer files and
 * hand-made small pipelines (make_seeds.py). */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fuzz_util.h"
#include "tokenizer.h"

static void decode_both(const Tokenizer *t, const int32_t *ids, size_t n) {
    for (int skip = 0; skip < 2; skip++) {
        char *text = NULL;
        size_t len = 0;
        diag_clear();
        if (tokenizer_decode(t, ids, n, skip, &text, &len)) {
            fuzz_touch(text, len + 1);
            if (text[len] != 0) abort();
        } else
            fuzz_require_diag();
        free(text);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FuzzPart p[3];
    int parts = fuzz_split(data, size, p, 3);
    /* the config first: fuzz_write's path buffer is reused by the next call */
    if (parts > 1) fuzz_write("tokenizer_config.json", p[1].data, p[1].size);
    else fuzz_unlink("tokenizer_config.json");
    const char *path = fuzz_write("tokenizer.json", p[0].data, p[0].size);
    diag_clear();
    Tokenizer *t = tokenizer_load(path);
    if (!t) {
        fuzz_require_diag();
        return 0;
    }
    const char *text = p[2].size ? (const char *)p[2].data : "Hello, world! 123";
    size_t len = p[2].size ? p[2].size : strlen(text);
    for (int special = 0; special < 2; special++) {
        int32_t *ids = NULL;
        size_t n = 0;
        diag_clear();
        if (tokenizer_encode(t, text, len, special, &ids, &n)) {
            for (size_t i = 0; i < n; i++)
                if (ids[i] < 0 || (size_t)ids[i] >= tokenizer_vocab_size(t)) abort();
            decode_both(t, ids, n);
        } else
            fuzz_require_diag();
        free(ids);
    }
    int32_t raw[64];
    size_t n = len / 2 < 64 ? len / 2 : 64;
    for (size_t i = 0; i < n; i++) raw[i] = (int32_t)((uint8_t)text[2 * i] | (uint8_t)text[2 * i + 1] << 8);
    decode_both(t, raw, n);
    tokenizer_free(t);
    return 0;
}
