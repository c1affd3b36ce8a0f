/* genai_config.c - reads genai_config.json (cJSON) for the bounds of an ORT-GenAI decoder's
 * symbolic dims and turns them into default --fix / --dim settings: the batch is fixed to 1, the
 * KV head size to model.decoder.head_size, and every sequence-like dim is kept dynamic with the
 * maximum length as its bound.  Settings given by the user always win. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "genai_config.h"

/* Positive integer at obj.a.b (NULL b: obj.a); 0 when absent, -1 (diagnostic) when invalid. */
static int64_t int_field(const char *path, const cJSON *root, const char *a, const char *b, const char *c) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, a);
    if (o && b) o = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, b) : NULL;
    if (o && c) o = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, c) : NULL;
    if (!o) return 0;
    double v = cJSON_IsNumber(o) ? o->valuedouble : -1;
    if (v < 1 || v > INT32_MAX || v != (double)(int64_t)v) {
        diag_error("%s: %s%s%s%s%s must be a positive integer below 2^31", path, a, b ? "." : "", b ? b : "",
                   c ? "." : "", c ? c : "");
        return -1;
    }
    return (int64_t)v;
}

/* model.eos_token_id: a non-negative id or a list of them (absent: none).  0, or -1 + diagnostic. */
static int eos_ids(const char *path, const cJSON *root, GenaiConfig *out) {
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *e = cJSON_IsObject(model) ? cJSON_GetObjectItemCaseSensitive(model, "eos_token_id") : NULL;
    if (!e) return 0;
    const cJSON *one = e;
    bool list = cJSON_IsArray(e);
    if (list && cJSON_GetArraySize(e) > GENAI_MAX_EOS) {
        diag_error("%s: model.eos_token_id lists more than %d ids", path, GENAI_MAX_EOS);
        return -1;
    }
    for (one = list ? e->child : e; one; one = list ? one->next : NULL) {
        double v = cJSON_IsNumber(one) ? one->valuedouble : -1;
        if (v < 0 || v > INT32_MAX || v != (double)(int64_t)v) {
            diag_error("%s: model.eos_token_id must be a token id or a list of token ids", path);
            return -1;
        }
        out->eos[out->n_eos++] = (int32_t)v;
    }
    return 0;
}

int onnx_genai_config_read(const char *path, GenaiConfig *out) {
    memset(out, 0, sizeof *out);
    size_t len = 0;
    char *text = input_file_read(path, LIMIT_CONFIG_JSON_BYTES, &len);
    if (!text || !json_within_limits(text, len, path)) {
        free(text);
        return -1;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(root)) {
        diag_error("%s: not a JSON object", path);
        cJSON_Delete(root);
        return -1;
    }
    int64_t max_len = int_field(path, root, "search", "max_length", NULL);
    int64_t ctx = max_len < 0 ? -1 : int_field(path, root, "model", "context_length", NULL);
    int64_t head = ctx < 0 ? -1 : int_field(path, root, "model", "decoder", "head_size");
    int eos = head < 0 ? -1 : eos_ids(path, root, out);
    cJSON_Delete(root);
    if (max_len < 0 || ctx < 0 || head < 0 || eos < 0) return -1;
    out->max_length = max_len ? max_len : ctx;
    out->head_size = head;
    return 0;
}

/* The GenAI decoder dims and their defaults. */
enum { BY_ONE, BY_HEAD_SIZE, BY_MAX_LENGTH };
static const struct {
    const char *name;
    int rule;
} genai_dims[] = {
    {"batch_size", BY_ONE},
    {"kv_cache_dim", BY_HEAD_SIZE},
    {"sequence_length", BY_MAX_LENGTH},
    {"total_sequence_length", BY_MAX_LENGTH},
    {"past_sequence_length", BY_MAX_LENGTH},
    {"past_sliding_length", BY_MAX_LENGTH},
    {"total_sliding_length", BY_MAX_LENGTH},
};

static bool given(const DimSetting *s, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (s[i].name && strcmp(s[i].name, name) == 0) return true;
    return false;
}

void onnx_genai_default_dims(const GenaiConfig *cfg, const DimSetting *user_fix, int n_user_fix,
                        const DimSetting *user_bound, int n_user_bound, DimSetting *fix, int *n_fix,
                        DimSetting *bound, int *n_bound, int max) {
    for (size_t i = 0; i < sizeof genai_dims / sizeof genai_dims[0]; i++) {
        const char *name = genai_dims[i].name;
        if (given(user_fix, n_user_fix, name) || given(user_bound, n_user_bound, name)) continue;
        int64_t v = genai_dims[i].rule == BY_ONE ? 1 : genai_dims[i].rule == BY_HEAD_SIZE ? cfg->head_size : cfg->max_length;
        if (v <= 0) continue;
        if (genai_dims[i].rule == BY_MAX_LENGTH) {
            if (*n_bound < max) bound[(*n_bound)++] = (DimSetting){name, v};
        } else if (*n_fix < max) {
            fix[(*n_fix)++] = (DimSetting){name, v};
        }
    }
}
