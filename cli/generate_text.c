/* generate_text.c - the tokenizer side of `webnnc generate --prompt` (generate_text.h). */
#include "generate_text.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core.h"

/* The folder of path: path itself when it is a folder, else the part before the last '/'. */
static char *model_folder(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return strdup(path);
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, (size_t)(slash - path + (slash == path))) : strdup(".");
}

int generate_text_open(GenerateText *gt, const char *model_path, FILE *out) {
    memset(gt, 0, sizeof *gt);
    char *dir = model_folder(model_path);
    if (!dir) abort();
    size_t n = strlen(dir) + sizeof "/tokenizer_config.json" + 8;
    char *path = malloc(n);
    if (!path) abort();
    snprintf(path, n, "%s/tokenizer.json", dir);
    struct stat st;
    int rc = -1;
    if (stat(path, &st) != 0) {
        diag_error("%s: no tokenizer.json there (--prompt needs the model's tokenizer; --prompt-ids does not)", dir);
        goto done;
    }
    if (!(gt->tok = tokenizer_load(path))) goto done;
    snprintf(path, n, "%s/genai_config.json", dir);
    if (stat(path, &st) == 0) {
        GenaiConfig cfg;
        if (onnx_genai_config_read(path, &cfg) < 0) goto done;
        gt->n_eos = cfg.n_eos;
        memcpy(gt->eos, cfg.eos, sizeof gt->eos);
    }
    text_stream_init(&gt->stream, gt->tok, out);
    rc = 0;
done:
    free(path);
    free(dir);
    return rc;
}

int generate_text_encode(GenerateText *gt, const char *prompt, int64_t *tokens, int max) {
    int32_t *ids = NULL;
    size_t n = 0;
    if (!tokenizer_encode(gt->tok, prompt, strlen(prompt), true, &ids, &n)) return -1;
    int32_t bos = tokenizer_bos_id(gt->tok);
    bool add_bos = tokenizer_add_bos(gt->tok) && (n == 0 || ids[0] != bos); /* tokenizer_config's add_bos_token */
    int count = (int)n + add_bos;
    if (count == 0 || count > max) {
        diag_error("--prompt: %d tokens (1..%d allowed)", count, max);
        free(ids);
        return -1;
    }
    if (add_bos) tokens[0] = bos;
    for (size_t i = 0; i < n; i++) tokens[i + add_bos] = ids[i];
    free(ids);
    gt->tokens = tokens;
    gt->n_prompt = count;
    return count;
}

int generate_text_on_step(Decoder *d, long long k, double begin_s, double end_s) {
    (void)begin_s, (void)end_s;
    GenerateText *gt = d->user;
    int32_t id = (int32_t)gt->tokens[gt->n_prompt + k];
    for (int i = 0; i < gt->n_eos; i++)
        if (id == gt->eos[i]) return 1; /* the eos id ends the text; --ids still shows it */
    return text_stream_push(&gt->stream, id) < 0 ? -1 : 0;
}

void generate_text_close(GenerateText *gt) {
    text_stream_free(&gt->stream);
    tokenizer_free(gt->tok);
    memset(gt, 0, sizeof *gt);
}
