/* wpt_restore.c - restores the non-finite values the WPT corpus lost as null (wpt_restore.h): loads
 * the restoration file, verifies each listed graph against the corpus's (a parallel walk of both
 * JSON trees that allows only null -> tag), swaps the graph in, and looks for nulls left over. */
#include "wpt_restore.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "test_util.h"

typedef struct {
    const char *file, *name;
    cJSON *graph;
    int index; /* the corpus case it replaces, while applying */
    bool used;
} Entry;

struct WptRestore {
    char *path;
    cJSON *root;
    Entry *entries;
    int n_entries;
};

/* ---- loading ------------------------------------------------------------------------------- */

/* Records "PATH: message" and frees r; returns NULL. */
static WptRestore *load_error(WptRestore *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static WptRestore *load_error(WptRestore *r, const char *fmt, ...) {
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s: ", r->path);
    va_list ap;
    va_start(ap, fmt);
    diag_verror(prefix, fmt, ap);
    va_end(ap);
    wpt_restore_free(r);
    return NULL;
}

WptRestore *wpt_restore_load(const char *path) {
    WptRestore *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) abort();
    char *text = tu_read_file(path, NULL);
    if (!text) return load_error(r, "cannot read the restoration file");
    r->root = cJSON_Parse(text);
    free(text);
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(r->root, "cases");
    if (!cJSON_IsArray(cases)) return load_error(r, "not a restoration file (no \"cases\" array)");
    r->entries = calloc((size_t)cJSON_GetArraySize(cases) + 1, sizeof *r->entries);
    if (!r->entries) abort();
    const cJSON *c;
    cJSON_ArrayForEach(c, cases) {
        const char *file = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "file"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
        cJSON *graph = cJSON_GetObjectItemCaseSensitive(c, "graph");
        if (!file || !name || !cJSON_IsObject(graph))
            return load_error(r, "case '%s' needs a string \"file\", a string \"name\" and an object \"graph\"",
                              name ? name : "?");
        for (int i = 0; i < r->n_entries; i++)
            if (!strcmp(r->entries[i].file, file) && !strcmp(r->entries[i].name, name))
                return load_error(r, "%s: case '%s' is listed twice", file, name);
        r->entries[r->n_entries++] = (Entry){file, name, graph, -1, false};
    }
    return r;
}

void wpt_restore_free(WptRestore *r) {
    if (!r) return;
    cJSON_Delete(r->root);
    free(r->entries);
    free(r->path);
    free(r);
}

/* ---- JSON paths and values ---------------------------------------------------------------- */

typedef struct {
    char path[1024]; /* "graph.inputs.x.data[3]" */
    size_t len;
    int restored; /* nulls matched by a tag */
} Walk;

/* Appends a path segment; returns the previous length (pass it to pop). */
static size_t push(Walk *w, const cJSON *parent, int index, const cJSON *child) {
    size_t old = w->len;
    int n = cJSON_IsArray(parent) ? snprintf(w->path + w->len, sizeof w->path - w->len, "[%d]", index)
                                  : snprintf(w->path + w->len, sizeof w->path - w->len, ".%s", child->string);
    if (n > 0) w->len = w->len + (size_t)n < sizeof w->path ? w->len + (size_t)n : sizeof w->path - 1;
    return old;
}

static void pop(Walk *w, size_t len) {
    w->len = len;
    w->path[len] = 0;
}

/* A JSON value for a message: numbers in full precision, strings quoted, else the kind. */
static const char *show(const cJSON *j, char *buf, size_t len) {
    if (cJSON_IsNumber(j)) snprintf(buf, len, "%.17g", j->valuedouble);
    else if (cJSON_IsString(j)) snprintf(buf, len, "\"%s\"", j->valuestring);
    else if (cJSON_IsNull(j)) snprintf(buf, len, "null");
    else if (cJSON_IsBool(j)) snprintf(buf, len, "%s", cJSON_IsTrue(j) ? "true" : "false");
    else snprintf(buf, len, "%s", cJSON_IsArray(j) ? "an array" : cJSON_IsObject(j) ? "an object" : "nothing");
    return buf;
}

/* Same kind and, for scalars, the same value (numbers bit for bit). */
static bool same_scalar(const cJSON *a, const cJSON *b) {
    if ((a->type & 0xff) != (b->type & 0xff)) return false;
    if (cJSON_IsNumber(a)) return memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) == 0;
    if (cJSON_IsString(a)) return strcmp(a->valuestring, b->valuestring) == 0;
    return true; /* null, bools (the type holds the value), arrays and objects (walked by the caller) */
}

/* ---- verification -------------------------------------------------------------------------- */

/* Walks corpus and restored in parallel; false with a diagnostic (prefix = "FILE: case 'NAME'")
 * at the first difference other than null -> tag. */
static bool verify(const cJSON *corpus, const cJSON *restored, Walk *w, const char *prefix) {
    char a[128], b[128];
    if (cJSON_IsNull(corpus)) {
        if (cJSON_IsString(restored) && wpt_nonfinite_tag(restored->valuestring, NULL)) {
            w->restored++;
            return true;
        }
        diag_error("%s: %s: the corpus's null is restored as %s; only \"Infinity\", \"-Infinity\" or \"NaN\" "
                   "may replace it", prefix, w->path, show(restored, b, sizeof b));
        return false;
    }
    if (!same_scalar(corpus, restored)) {
        diag_error("%s: %s: restored %s differs from the corpus's %s (only nulls may be restored)", prefix, w->path,
                   show(restored, b, sizeof b), show(corpus, a, sizeof a));
        return false;
    }
    if (!cJSON_IsArray(corpus) && !cJSON_IsObject(corpus)) return true;
    const cJSON *c = corpus->child, *r = restored->child;
    for (int i = 0; c && r; c = c->next, r = r->next, i++) {
        if (cJSON_IsObject(corpus) && strcmp(c->string, r->string) != 0) {
            diag_error("%s: %s: restored key '%s' where the corpus has '%s'", prefix, w->path, r->string, c->string);
            return false;
        }
        size_t len = push(w, corpus, i, c);
        bool ok = verify(c, r, w, prefix);
        pop(w, len);
        if (!ok) return false;
    }
    if (c || r) {
        diag_error("%s: %s: the restored %s has %d entries, the corpus's %d", prefix, w->path,
                   cJSON_IsArray(corpus) ? "array" : "object", cJSON_GetArraySize(restored),
                   cJSON_GetArraySize(corpus));
        return false;
    }
    return true;
}

/* The first null below j, its path in w; false when there is none. */
static bool find_null(const cJSON *j, Walk *w) {
    if (cJSON_IsNull(j)) return true;
    int i = 0;
    for (const cJSON *c = j->child; c && (cJSON_IsArray(j) || cJSON_IsObject(j)); c = c->next, i++) {
        size_t len = push(w, j, i, c);
        if (find_null(c, w)) return true;
        pop(w, len);
    }
    return false;
}

/* ---- applying ------------------------------------------------------------------------------ */

/* Index of the corpus case named `name`; -1 with a diagnostic when none or several. */
static int find_case(const WptRestore *r, const WptFile *f, const char *name) {
    int found = -1, count = wpt_file_case_count(f);
    for (int i = 0; i < count; i++) {
        if (strcmp(wpt_file_case_name(f, i), name) != 0) continue;
        if (found >= 0) {
            diag_error("%s: %s: case '%s' is ambiguous: the corpus has it twice", r->path, wpt_file_stem(f), name);
            return -1;
        }
        found = i;
    }
    if (found < 0) diag_error("%s: %s: case '%s' is not in the corpus file", r->path, wpt_file_stem(f), name);
    return found;
}

/* Verifies entry e against case `index` of f. */
static bool verify_entry(const WptRestore *r, const WptFile *f, int index, const Entry *e) {
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s: %s: case '%s'", r->path, e->file, e->name);
    const cJSON *corpus = cJSON_GetObjectItemCaseSensitive(wpt_file_case_json(f, index), "graph");
    if (!corpus) {
        diag_error("%s: the corpus case has no graph", prefix);
        return false;
    }
    Walk w = {.path = "graph", .len = 5};
    if (!verify(corpus, e->graph, &w, prefix)) return false;
    if (w.restored == 0) {
        diag_error("%s: restores no null (the corpus case is intact: drop the entry)", prefix);
        return false;
    }
    return true;
}

int wpt_restore_apply(WptRestore *r, WptFile *f) {
    const char *stem = wpt_file_stem(f);
    int restored = 0;
    for (int k = 0; k < r->n_entries; k++) { /* verify every entry before changing f */
        Entry *e = &r->entries[k];
        if (strcmp(e->file, stem) != 0) continue;
        if ((e->index = find_case(r, f, e->name)) < 0 || !verify_entry(r, f, e->index, e)) return -1;
    }
    for (int k = 0; k < r->n_entries; k++) {
        Entry *e = &r->entries[k];
        if (strcmp(e->file, stem) != 0) continue;
        cJSON *copy = cJSON_Duplicate(e->graph, true);
        if (!copy || !cJSON_ReplaceItemInObjectCaseSensitive(wpt_file_case_json(f, e->index), "graph", copy)) abort();
        e->used = true;
        restored++;
    }
    for (int i = 0; i < wpt_file_case_count(f); i++) {
        Walk w = {.path = "graph", .len = 5};
        const cJSON *graph = cJSON_GetObjectItemCaseSensitive(wpt_file_case_json(f, i), "graph");
        if (graph && find_null(graph, &w)) {
            diag_error("%s: case '%s': %s is null (a value the JS -> JSON conversion lost; restore it in %s)", stem,
                       wpt_file_case_name(f, i), w.path, r->path);
            return -1;
        }
    }
    return restored;
}

int wpt_restore_check_used(const WptRestore *r) {
    for (int k = 0; k < r->n_entries; k++)
        if (!r->entries[k].used) {
            diag_error("%s: %s: case '%s' was never restored (no corpus file %s.json, or it failed)", r->path,
                       r->entries[k].file, r->entries[k].name, r->entries[k].file);
            return -1;
        }
    return 0;
}
