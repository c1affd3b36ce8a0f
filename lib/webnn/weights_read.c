/* weights_read.c - the reader's side of model.weights + manifest.json: finds both beside the
 * graph <stem>.webnn.json (or <stem>.json) by the webnn-graph tools' names first (manifest.json,
 * <stem>.webnn.manifest.json; <stem>.webnn.weights), then by webnnc's earlier ones
 * (<stem>.manifest.json, model.manifest.json; <stem>.weights, model.weights), mmaps the blob for the graph's lifetime, and hands out each constant's bytes
 * after checking its manifest entry: dtype and shape equal to the const's, byteLength ==
 * elements x (1 byte for int4/uint4, else the dtype size), byteOffset + byteLength within the
 * file, xxhash64 when present.  byteOffset is absolute from the file start (whether or not the
 * file starts with WGWT).  4-bit tensors are repacked to the IR layout (arena copy); tensors at
 * offsets not aligned to their element size are copied so consumers may load them directly. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "core.h"
#include "reader.h"
#include "tensor_codec.h"
#include "webnn_io.h"

struct WeightsSource {
    char manifest_path[4096], weights_path[4096];
    cJSON *manifest;
    NameMap entries; /* ref -> cJSON entry */
    NameMap done;    /* ref -> IR data already served (checked once, then shared) */
    const uint8_t *map;
    uint64_t size;
};

static void weights_cleanup(void *ctx) {
    WeightsSource *w = ctx;
    if (w->map) {
        file_map_unregister(w->map);
        munmap((void *)w->map, (size_t)w->size);
    }
    cJSON_Delete(w->manifest);
    wn_name_map_free(&w->entries);
    wn_name_map_free(&w->done);
    free(w);
}

/* First existing file among dir/<name>; false when none. */
static bool find_file(const char *dir, const char *const *names, char *out, size_t len) {
    for (int i = 0; names[i]; i++) {
        snprintf(out, len, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) return true;
    }
    return false;
}

static int parse_manifest(ReadCtx *c, WeightsSource *w) {
    size_t len = 0;
    char *text = input_file_read(w->manifest_path, LIMIT_MANIFEST_BYTES, &len);
    if (!text || !json_within_limits(text, len, w->manifest_path)) {
        free(text);
        return -1;
    }
    w->manifest = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *m = w->manifest;
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(m, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(m, "version");
    const cJSON *endian = cJSON_GetObjectItemCaseSensitive(m, "endianness");
    const cJSON *tensors = cJSON_GetObjectItemCaseSensitive(m, "tensors");
    int64_t ver;
    const char *bad = !m                                                    ? "is not valid JSON"
                      : !cJSON_IsString(format) || strcmp(format->valuestring, "wg-weights-manifest")
                          ? "has no \"format\": \"wg-weights-manifest\""
                      : !wn_json_int(version, &ver) || ver != 1 ? "has no \"version\": 1"
                      : endian && (!cJSON_IsString(endian) || strcmp(endian->valuestring, "little"))
                          ? "has an \"endianness\" other than \"little\""
                      : !cJSON_IsObject(tensors) ? "has no \"tensors\" object"
                                                 : NULL;
    for (cJSON *t = bad ? NULL : tensors->child; t; t = t->next)
        if (!wn_name_map_put(&w->entries, t->string, t)) bad = "lists a tensor twice";
    if (bad) {
        wn_rd_error(c, "manifest %s %s", w->manifest_path, bad);
        return -1;
    }
    return 0;
}

static int map_weights(ReadCtx *c, WeightsSource *w) {
    int fd = open(w->weights_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        wn_rd_error(c, "cannot open weights %s: %s", w->weights_path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    w->size = (uint64_t)st.st_size;
    if (w->size) {
        void *p = mmap(NULL, (size_t)w->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            wn_rd_error(c, "cannot map weights %s: %s", w->weights_path, strerror(errno));
            close(fd);
            return -1;
        }
        w->map = p;
        file_map_register(p, (size_t)w->size, -1); /* so verified tensors can be dropped */
    }
    close(fd);
    return 0;
}

WeightsSource *wn_weights_open(ReadCtx *c) {
    if (!c->dir) {
        wn_rd_error(c, "the graph refers to external weights but no folder was given to find them in");
        return NULL;
    }
    WeightsSource *w = calloc(1, sizeof *w);
    if (!w) abort();
    graph_add_cleanup(c->g, weights_cleanup, w);
    char stem_manifest[600], webnn_manifest[600], stem_weights[600], webnn_weights[600];
    snprintf(stem_manifest, sizeof stem_manifest, "%s.manifest.json", c->stem);
    snprintf(webnn_manifest, sizeof webnn_manifest, "%s.webnn.manifest.json", c->stem);
    snprintf(stem_weights, sizeof stem_weights, "%s.weights", c->stem);
    snprintf(webnn_weights, sizeof webnn_weights, "%s.webnn.weights", c->stem);
    const char *manifests[] = {WN_MANIFEST_FILE, webnn_manifest, stem_manifest, WN_MANIFEST_FILE_OLD, NULL};
    const char *blobs[] = {webnn_weights, stem_weights, WN_WEIGHTS_FILE, NULL};
    if (!find_file(c->dir, manifests, w->manifest_path, sizeof w->manifest_path)) {
        wn_rd_error(c, "the graph refers to external weights but %s/%s (or %s) does not exist", c->dir, WN_MANIFEST_FILE,
                 webnn_manifest);
        return NULL;
    }
    if (!find_file(c->dir, blobs, w->weights_path, sizeof w->weights_path)) {
        wn_rd_error(c, "the graph refers to external weights but %s/%s (or model.weights) does not exist", c->dir,
                 stem_weights);
        return NULL;
    }
    if (parse_manifest(c, w) || map_weights(c, w)) return NULL;
    return w;
}

static bool parse_hash(const char *s, uint64_t *out) {
    if (strlen(s) != 16) return false;
    uint64_t h = 0;
    for (int i = 0; i < 16; i++) {
        char ch = s[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0) return false;
        h = h << 4 | (uint64_t)d;
    }
    *out = h;
    return true;
}

/* Checks a manifest entry against the const; returns NULL or the problem. */
static const char *check_entry(const WeightsSource *w, const cJSON *e, DType dt, int rank, const int64_t *shape,
                               uint64_t length, bool verify_hash, uint64_t *offset) {
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(e, "dataType");
    const cJSON *shp = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(e, "byteOffset");
    const cJSON *len = cJSON_GetObjectItemCaseSensitive(e, "byteLength");
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(e, "xxhash64");
    if (!cJSON_IsString(dtype) || dtype_from_name(dtype->valuestring) != dt) return "dataType differs from the const's";
    if (!cJSON_IsArray(shp) || cJSON_GetArraySize(shp) != rank) return "shape differs from the const's";
    int i = 0;
    for (const cJSON *d = shp->child; d; d = d->next, i++) {
        int64_t v;
        if (i >= rank || !wn_json_int(d, &v) || v != shape[i]) return "shape differs from the const's";
    }
    int64_t o, l;
    if (!wn_json_int(off, &o) || o < 0) return "byteOffset is missing or not a non-negative integer";
    if (!wn_json_int(len, &l) || l < 0) return "byteLength is missing or not a non-negative integer";
    if ((uint64_t)l != length) return "byteLength does not match elements x element size";
    uint64_t end;
    if (!checked_add_u64((uint64_t)o, (uint64_t)l, &end) || end > w->size) return "byteOffset + byteLength is past the end of the weights file";
    uint64_t want;
    if (hash && (!cJSON_IsString(hash) || !parse_hash(hash->valuestring, &want))) return "xxhash64 is not 16 hex digits";
    if (hash && verify_hash) {
        bool ok = XXH64(w->map + o, (size_t)l, 0) == want;
        file_map_release(w->map + o, (uint64_t)l); /* read whole: don't keep it resident */
        if (!ok) return "xxhash64 does not match the bytes in the weights file";
    }
    *offset = (uint64_t)o;
    return NULL;
}

int wn_weights_get(ReadCtx *c, WeightsSource *w, const char *name, const char *ref, DType dt, int rank,
                const int64_t *shape, uint64_t elements, const void **data, uint64_t *nbytes) {
    const cJSON *e = wn_name_map_get(&w->entries, ref);
    if (!e) {
        wn_rd_error(c, "const '%s': weights ref '%s' is not in manifest %s", name, ref, w->manifest_path);
        return -1;
    }
    const void *seen = wn_name_map_get(&w->done, ref);
    uint64_t offset = 0, length = elements * file_elem_bytes(dt);
    *nbytes = dtype_storage_bytes(dt, elements);
    bool verify_hash = !seen && !(c->flags & WEBNN_READ_SKIP_HASH);
    const char *bad = check_entry(w, e, dt, rank, shape, length, verify_hash, &offset);
    if (bad) {
        wn_rd_error(c, "const '%s': manifest %s entry '%s': %s (weights %s)", name, w->manifest_path, ref, bad, w->weights_path);
        return -1;
    }
    if (seen) { /* same entry, same type: share the bytes checked the first time */
        *data = seen;
        return 0;
    }
    const uint8_t *src = w->map + offset;
    if (dtype_is_4bit(dt)) {
        if (!wn_nibbles_valid(dt, src, elements)) {
            wn_rd_error(c, "const '%s': weights '%s' hold a byte that is not a %s value", name, ref, dtype_name(dt));
            return -1;
        }
        uint8_t *packed = graph_alloc(c->g, (size_t)*nbytes);
        wn_nibbles_pack(src, elements, packed);
        *data = packed;
    } else if (offset % file_elem_bytes(dt)) {
        void *copy = graph_alloc(c->g, (size_t)length);
        memcpy(copy, src, (size_t)length);
        *data = copy;
    } else {
        *data = src;
    }
    wn_name_map_put(&w->done, graph_strdup(c->g, ref), (void *)*data);
    return 0;
}
