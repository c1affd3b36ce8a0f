/* test_tokenizer_cases.c - every case of ../shared/tokenizers/<name>/cases.jsonl (made by the Hugging
 * Face reference from the same tokenizer.json): encode without and with special tokens, decode of
 * the ids keeping specials, and the random decode cases (with and without skip_special).  100% must
 * be equal.  Fails under CI=true when the folder is missing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core.h"
#include "test_util.h"
#include "tokenizer.h"

static char shared_dir[4096];

static bool ids_equal(const cJSON *want, const int32_t *ids, size_t n)
{
    if (!cJSON_IsArray(want) || (size_t)cJSON_GetArraySize(want) != n)
        return false;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, want) if (e->valueint != ids[i++]) return false;
    return true;
}

static int32_t *json_ids(const cJSON *arr, size_t *n)
{
    *n = (size_t)cJSON_GetArraySize(arr);
    int32_t *ids = malloc((*n + 1) * sizeof *ids);
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) ids[i++] = e->valueint;
    return ids;
}

static bool decode_equal(Tokenizer *t, const int32_t *ids, size_t n, bool skip, const char *want, size_t want_len)
{
    char *text;
    size_t len;
    bool ok = tokenizer_decode(t, ids, n, skip, &text, &len) && len == want_len && memcmp(text, want, len) == 0;
    free(text);
    return ok;
}

/* The JSON string value of "key" in line with its escapes decoded, NULs included (cJSON stops at a
 * \u0000); malloc'ed, *len bytes. */
static char *raw_string(const char *line, const char *key, size_t *len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(line, pat);
    ck_assert_msg(p != NULL, "no %s in %.80s", key, line);
    p += strlen(pat);
    char *out = malloc(strlen(p) * 3 + 1);
    size_t n = 0;
    while (*p && *p != '"') {
        if (*p != '\\') {
            out[n++] = *p++;
            continue;
        }
        char e = p[1];
        p += 2;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (simple && e != 'u') {
            out[n++] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            continue;
        }
        unsigned cp = (unsigned)strtoul((char[5]){p[0], p[1], p[2], p[3], 0}, NULL, 16);
        p += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && p[0] == '\\' && p[1] == 'u') {
            unsigned lo = (unsigned)strtoul((char[5]){p[2], p[3], p[4], p[5], 0}, NULL, 16);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p += 6;
        }
        if (cp < 0x80) out[n++] = (char)cp;
        else if (cp < 0x800) { out[n++] = (char)(0xC0 | (cp >> 6)); out[n++] = (char)(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) { out[n++] = (char)(0xE0 | (cp >> 12)); out[n++] = (char)(0x80 | ((cp >> 6) & 0x3F)); out[n++] = (char)(0x80 | (cp & 0x3F)); }
        else { out[n++] = (char)(0xF0 | (cp >> 18)); out[n++] = (char)(0x80 | ((cp >> 12) & 0x3F)); out[n++] = (char)(0x80 | ((cp >> 6) & 0x3F)); out[n++] = (char)(0x80 | (cp & 0x3F)); }
    }
    *len = n;
    return out;
}

/* Runs one line; returns false (and prints it) on a mismatch. */
static bool run_case(Tokenizer *t, const char *name, const char *line)
{
    cJSON *c = cJSON_Parse(line);
    ck_assert_msg(c != NULL, "%s: bad cases line %.80s", name, line);
    const cJSON *dids = cJSON_GetObjectItem(c, "decode_ids");
    bool ok = true;
    const char *what = "";
    if (dids) {
        size_t n;
        int32_t *ids = json_ids(dids, &n);
        size_t want_len;
        char *want = raw_string(line, "text", &want_len);
        ok = decode_equal(t, ids, n, cJSON_IsTrue(cJSON_GetObjectItem(c, "skip_special")), want, want_len);
        what = "decode";
        free(ids);
        free(want);
    } else {
        size_t len, want_len;
        char *s = raw_string(line, "text", &len), *want = raw_string(line, "decoded", &want_len);
        int32_t *ids = NULL, *ids_sp = NULL;
        size_t n = 0, n_sp = 0;
        ok = tokenizer_encode(t, s, len, false, &ids, &n) && ids_equal(cJSON_GetObjectItem(c, "ids"), ids, n);
        what = "encode";
        if (ok) {
            ok = tokenizer_encode(t, s, len, true, &ids_sp, &n_sp) &&
                 ids_equal(cJSON_GetObjectItem(c, "ids_special"), ids_sp, n_sp);
            what = "encode --special";
        }
        if (ok) {
            ok = decode_equal(t, ids, n, false, want, want_len);
            what = "decode of ids";
        }
        if (!ok && n) {
            fprintf(stderr, "  got ids:");
            for (size_t i = 0; i < n && i < 40; i++)
                fprintf(stderr, " %d", ids[i]);
            fprintf(stderr, "\n");
        }
        free(ids);
        free(ids_sp);
        free(s);
        free(want);
    }
    if (!ok)
        fprintf(stderr, "%s: %s mismatch: %.300s\n", name, what, line);
    diag_clear();
    cJSON_Delete(c);
    return ok;
}

static void run_folder(const char *name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", shared_dir, name);
    Tokenizer *t = tokenizer_load(path);
    ck_assert_msg(t != NULL, "%s: %s", path, diag_message());
    snprintf(path, sizeof path, "%s/%s/cases.jsonl", shared_dir, name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s missing", path);
    char *line = NULL;
    size_t cap = 0, total = 0, failed = 0;
    while (getline(&line, &cap, f) > 0) {
        total++;
        failed += !run_case(t, name, line);
    }
    free(line);
    fclose(f);
    tokenizer_free(t);
    fprintf(stderr, "%s: %zu/%zu cases equal\n", name, total - failed, total);
    ck_assert_msg(total > 0 && failed == 0, "%s: %zu of %zu cases differ", name, failed, total);
}

START_TEST(test_shared_cases)
{
    DIR *d = opendir(shared_dir);
    if (!d) {
        const char *ci = getenv("CI");
        ck_assert_msg(!(ci && strcmp(ci, "true") == 0), "CI=true but %s is missing", shared_dir);
        fprintf(stderr, "%s missing: skipping\n", shared_dir);
        return;
    }
    int folders = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char p[4400];
        snprintf(p, sizeof p, "%s/%s/cases.jsonl", shared_dir, e->d_name);
        if (e->d_name[0] != '.' && tu_exists(p)) {
            run_folder(e->d_name);
            folders++;
        }
    }
    closedir(d);
    ck_assert_int_ge(folders, 2);
}
END_TEST

int main(void)
{
    const char *root = getenv("WEBNNC_SOURCE_ROOT");
    snprintf(shared_dir, sizeof shared_dir, "%s/../shared/tokenizers", root ? root : ".");
    Suite *s = suite_create("tokenizer_cases");
    TCase *tc = tcase_create("cases");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_shared_cases);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
