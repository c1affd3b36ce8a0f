/* cmd_detokenize.c - `webnnc detokenize MODEL (--ids I,J,K | --jsonl) [--skip-special]`: the text of
 * token ids by the model's tokenizer.json (MODEL: a folder holding it, or the file).  Prints the text
 * and a newline; --skip-special drops special added tokens.  --jsonl reads lines {"ids": [...],
 * "skip_special": bool (optional, default --skip-special)} on stdin and writes {"text": "..."} per
 * line, or {"error": "..."} for a bad line and goes on.  Bad input (an id outside the vocab): one
 * error line, exit 2, nothing on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "decoder.h"
#include "core.h"
#include "jsonl.h"
#include "tokenizer.h"

static const ArgSpec specs[] = {
    {"ids", 0, ARG_VALUE, "I,J,...", "token ids (comma-separated)"},
    {"jsonl", 0, ARG_FLAG, NULL, "read {\"ids\": [...]} lines on stdin, write {\"text\": ...} lines"},
    {"skip-special", 0, ARG_FLAG, NULL, "drop special tokens (BOS, EOS, ...) from the text"},
};

typedef struct {
    Tokenizer *tok;
    bool skip;
} DetokenizeCtx;

/* ids -> text (malloc'ed) or NULL + diagnostic. */
static char *decode_ids(const DetokenizeCtx *c, const int32_t *ids, size_t n, bool skip, size_t *len) {
    char *text = NULL;
    return tokenizer_decode(c->tok, ids, n, skip, &text, len) ? text : NULL;
}

static cJSON *detokenize_line(const cJSON *req, void *ctx) {
    const DetokenizeCtx *c = ctx;
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(req, "ids"), *skip = cJSON_GetObjectItemCaseSensitive(req, "skip_special");
    if (!cJSON_IsArray(ids) || (skip && !cJSON_IsBool(skip))) {
        diag_error("expected {\"ids\": [ID, ...], \"skip_special\": BOOL (optional)}");
        return NULL;
    }
    size_t n = (size_t)cJSON_GetArraySize(ids), i = 0, len;
    int32_t *v = malloc((n + 1) * sizeof *v);
    if (!v) abort();
    const cJSON *e;
    cJSON_ArrayForEach(e, ids) {
        if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > INT32_MAX || e->valuedouble != (double)(int32_t)e->valuedouble) {
            diag_error("ids[%zu] is not a token id", i);
            free(v);
            return NULL;
        }
        v[i++] = (int32_t)e->valuedouble;
    }
    char *text = decode_ids(c, v, n, skip ? cJSON_IsTrue(skip) : c->skip, &len);
    free(v);
    if (!text) return NULL;
    cJSON *ans = cJSON_CreateObject();
    cJSON_AddStringToObject(ans, "text", text);
    free(text);
    return ans;
}

int cmd_detokenize(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *ids_arg = args_value(&r, "ids");
    if ((ids_arg != NULL) == (args_count(&r, "jsonl") > 0)) return cli_usage_error(self, "give one of --ids I,J,... or --jsonl");
    static int64_t ids64[MAX_TOKENS];
    int n = ids_arg ? decoder_parse_ids(self, ids_arg, ids64, MAX_TOKENS) : 0;
    if (n < 0) return WN_EXIT_BAD_INPUT;
    DetokenizeCtx c = {tokenizer_load(r.pos[0]), args_count(&r, "skip-special") > 0};
    if (!c.tok) return cli_fail(r.pos[0], WN_EXIT_BAD_INPUT);
    if (args_count(&r, "jsonl")) {
        long errors = jsonl_each(stdin, stdout, detokenize_line, &c);
        tokenizer_free(c.tok);
        if (errors < 0) return diag_error("reading stdin or writing stdout failed"), cli_fail(NULL, WN_EXIT_BAD_INPUT);
        return WN_EXIT_OK;
    }
    int32_t *ids = malloc(((size_t)n + 1) * sizeof *ids);
    if (!ids) abort();
    for (int i = 0; i < n; i++) ids[i] = ids64[i] > INT32_MAX ? -1 : (int32_t)ids64[i];
    size_t len;
    char *text = decode_ids(&c, ids, (size_t)n, c.skip, &len);
    if (!text) rc = cli_fail(r.pos[0], WN_EXIT_BAD_INPUT);
    else {
        fwrite(text, 1, len, stdout);
        printf("\n");
    }
    free(text);
    free(ids);
    tokenizer_free(c.tok);
    return rc;
}
