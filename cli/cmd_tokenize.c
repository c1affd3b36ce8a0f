/* cmd_tokenize.c - `webnnc tokenize MODEL (--text TEXT | --file F | --jsonl) [--special]`: token ids of
 * a text by the model's tokenizer.json (MODEL: a folder holding it, or the file).  Prints the ids
 * comma-separated; --special adds the post-processor's special tokens (BOS).  --jsonl reads lines
 * {"text": "...", "special": bool (optional, default --special)} on stdin and writes {"ids": [...]}
 * per line, or {"error": "..."} for a bad line and goes on.  Bad input: one error line, exit 2,
 * nothing on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "core.h"
#include "jsonl.h"
#include "tokenizer.h"

static const ArgSpec specs[] = {
    {"text", 0, ARG_VALUE, "TEXT", "the text to tokenize"},
    {"file", 0, ARG_VALUE, "F", "tokenize the contents of file F (UTF-8)"},
    {"jsonl", 0, ARG_FLAG, NULL, "read {\"text\": ...} lines on stdin, write {\"ids\": [...]} lines"},
    {"special", 0, ARG_FLAG, NULL, "add the post-processor's special tokens (BOS)"},
};

typedef struct {
    Tokenizer *tok;
    bool special;
} TokenizeCtx;

static cJSON *tokenize_line(const cJSON *req, void *ctx) {
    const TokenizeCtx *c = ctx;
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(req, "text");
    const cJSON *special = cJSON_GetObjectItemCaseSensitive(req, "special");
    if (!cJSON_IsString(text) || (special && !cJSON_IsBool(special))) {
        diag_error("expected {\"text\": STRING, \"special\": BOOL (optional)}");
        return NULL;
    }
    int32_t *ids;
    size_t n;
    if (!tokenizer_encode(c->tok, text->valuestring, strlen(text->valuestring), special ? cJSON_IsTrue(special) : c->special,
                          &ids, &n))
        return NULL;
    cJSON *ans = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(ans, "ids");
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(arr, cJSON_CreateNumber(ids[i]));
    free(ids);
    return ans;
}

/* ids comma-separated (without printf: a large file has millions of ids). */
static int print_ids(const int32_t *ids, size_t n) {
    char buf[1 << 16];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (len > sizeof buf - 16) fwrite(buf, 1, len, stdout), len = 0;
        char digits[12];
        int k = 0;
        for (uint32_t v = (uint32_t)ids[i]; k == 0 || v; v /= 10) digits[k++] = (char)('0' + v % 10);
        if (i) buf[len++] = ',';
        while (k) buf[len++] = digits[--k];
    }
    buf[len++] = '\n';
    fwrite(buf, 1, len, stdout);
    return WN_EXIT_OK;
}

int cmd_tokenize(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *text = args_value(&r, "text"), *file = args_value(&r, "file");
    if ((text != NULL) + (file != NULL) + (args_count(&r, "jsonl") > 0) != 1)
        return cli_usage_error(self, "give one of --text TEXT, --file F, --jsonl");
    TokenizeCtx c = {tokenizer_load(r.pos[0]), args_count(&r, "special") > 0};
    if (!c.tok) return cli_fail(r.pos[0], WN_EXIT_BAD_INPUT);
    if (args_count(&r, "jsonl")) {
        long errors = jsonl_each(stdin, stdout, tokenize_line, &c);
        tokenizer_free(c.tok);
        if (errors < 0) return diag_error("reading stdin or writing stdout failed"), cli_fail(NULL, WN_EXIT_BAD_INPUT);
        return WN_EXIT_OK;
    }
    size_t len = text ? strlen(text) : 0;
    char *data = file ? input_file_read(file, LIMIT_TEXT_FILE_BYTES, &len) : NULL;
    int32_t *ids = NULL;
    size_t n = 0;
    if ((file && !data) || !tokenizer_encode(c.tok, file ? data : text, len, c.special, &ids, &n))
        rc = cli_fail(file ? file : NULL, WN_EXIT_BAD_INPUT);
    else
        rc = print_ids(ids, n);
    free(ids);
    free(data);
    tokenizer_free(c.tok);
    return rc;
}
