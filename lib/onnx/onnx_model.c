/* onnx_model.c - ONNX model files and folders: reading (mmap), wire-format check, protobuf-c
 * parse, model-level validation (graph, ir_version, opset imports), and the read-only mappings
 * of external data files with their path-safety checks.  Tensor decoding is in onnx_tensor.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "onnx_model.h"

typedef struct {
    char *real;   /* realpath of the data file */
    void *addr;   /* NULL for an empty file */
    size_t size;
    int fd;       /* kept open (and registered with file_map) for kernel-side copies */
} Mapping;

struct OnnxMappings {
    char *dir_real; /* realpath of the model folder, resolved on first use */
    Mapping *items;
    size_t n, cap;
};

/* ------------------------------------------------------------------------------------------ */
/* small helpers                                                                               */

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* "a" + "/" + "b" in malloc'd memory, or NULL when too long for a path. */
static char *path_join(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la + lb + 2 > PATH_MAX) return NULL;
    char *p = malloc(la + lb + 2);
    if (!p) return NULL;
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

/* Folder part of a file path ("." when it has none). */
static char *dir_of(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return dup_str(".");
    if (slash == path) return dup_str("/");
    size_t n = (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Maps a whole regular file read-only (MAP_PRIVATE; NULL for an empty file).  With `keep_fd`,
 * the open descriptor goes to *keep_fd (else it is closed).  Returns NULL on success, else why it
 * failed (nothing is left open or mapped then). */
static const char *map_readonly(const char *path, void **addr, size_t *size, int *keep_fd) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not block: fstat refuses it */
    if (fd < 0) return strerror(errno);
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0) why = strerror(errno);
    else if (!S_ISREG(st.st_mode)) why = "not a regular file";
    else if ((uint64_t)st.st_size > SIZE_MAX) why = "file too large";
    if (!why) {
        *size = (size_t)st.st_size;
        *addr = *size ? mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        if (*addr == MAP_FAILED) why = strerror(errno);
    }
    if (keep_fd && !why) *keep_fd = fd;
    else close(fd);
    return why;
}

/* ------------------------------------------------------------------------------------------ */
/* parsing and validation                                                                      */

static bool is_default_domain(const char *d) { return !d || !d[0] || strcmp(d, "ai.onnx") == 0; }

static int validate_model(const Onnx__ModelProto *p, const char *file) {
    if (!p->has_ir_version || p->ir_version <= 0) {
        diag_error("%s: model has no ir_version", file);
        return -1;
    }
    if (!p->graph) {
        diag_error("%s: model has no graph", file);
        return -1;
    }
    bool has_default = false;
    for (size_t i = 0; i < p->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = p->opset_import[i];
        const char *dom = o->domain ? o->domain : "";
        if (!o->has_version || o->version <= 0) {
            diag_error("%s: opset import for domain \"%s\" has no valid version", file, dom);
            return -1;
        }
        for (size_t j = 0; j < i; j++) {
            const char *other = p->opset_import[j]->domain ? p->opset_import[j]->domain : "";
            bool same = is_default_domain(dom) ? is_default_domain(other) : strcmp(dom, other) == 0;
            if (same && p->opset_import[j]->version != o->version) {
                diag_error("%s: conflicting opset imports for domain \"%s\"", file, dom);
                return -1;
            }
        }
        if (is_default_domain(dom)) has_default = true;
    }
    if (!has_default) {
        diag_error("%s: model has no opset import for the default domain (ai.onnx)", file);
        return -1;
    }
    return 0;
}

/* Parses `len` bytes; `file` names them in diagnostics; `dir` (may be NULL) and `path` are
 * taken over by the model (freed on failure). */
static OnnxModel *parse_model(const uint8_t *buf, size_t len, const char *file, char *path,
                              char *dir) {
    OnnxModel *m = calloc(1, sizeof *m);
    if (!m) {
        free(path);
        free(dir);
        diag_error("%s: out of memory", file);
        return NULL;
    }
    m->path = path;
    m->dir = dir;
    if (!m->path) {
        diag_error("%s: out of memory", file);
        goto fail;
    }
    if (len == 0) {
        diag_error("%s: empty model file", file);
        goto fail;
    }
    if (!input_limit_ok(LIMIT_ONNX_FILE_BYTES, len, file, "file size") ||
        onnx_wire_check(buf, len, &onnx__model_proto__descriptor, file) != 0)
        goto fail;
    m->proto = onnx__model_proto__unpack(NULL, len, buf);
    if (!m->proto) {
        diag_error("%s: truncated or invalid protobuf", file);
        goto fail;
    }
    if (validate_model(m->proto, file) != 0 || onnx_graph_check_limits(m->proto->graph, file) != 0) goto fail;
    return m;
fail:
    onnx_model_free(m);
    return NULL;
}

OnnxModel *onnx_model_load_buffer(const void *buf, size_t len, const char *dir_for_external_data) {
    char *dir = NULL;
    if (dir_for_external_data) {
        dir = dup_str(dir_for_external_data);
        if (!dir) {
            diag_error("<memory>: out of memory");
            return NULL;
        }
    }
    return parse_model(buf, len, "<memory>", dup_str("<memory>"), dir);
}

OnnxModel *onnx_model_load(const char *path) {
    if (!path || !path[0]) {
        diag_error("no model path given");
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        diag_error("%s: %s", path, strerror(errno));
        return NULL;
    }
    char *file, *dir;
    if (S_ISDIR(st.st_mode)) {
        dir = dup_str(path);
        file = path_join(path, "model.onnx");
        if (!dir || !file || !is_file(file)) {
            diag_error("%s: folder has no model.onnx", path);
            free(dir);
            free(file);
            return NULL;
        }
    } else {
        file = dup_str(path);
        dir = dir_of(path);
        if (!file || !dir) {
            diag_error("%s: out of memory", path);
            free(dir);
            free(file);
            return NULL;
        }
    }
    void *addr;
    size_t size;
    const char *why = map_readonly(file, &addr, &size, NULL);
    if (why) {
        diag_error("%s: %s", file, why);
        free(dir);
        free(file);
        return NULL;
    }
    char *config = path_join(dir, "genai_config.json");
    /* parse_model takes `file` and `dir`; keep a copy of the name for messages. */
    char shown[PATH_MAX];
    snprintf(shown, sizeof shown, "%s", file);
    OnnxModel *m = parse_model(addr, size, shown, file, dir);
    if (addr) munmap(addr, size);
    if (m && config && is_file(config)) {
        m->genai_config_path = config;
        config = NULL;
    }
    free(config);
    return m;
}

int64_t onnx_model_opset(const OnnxModel *m, const char *domain) {
    if (!m || !m->proto) return 0;
    bool want_default = is_default_domain(domain);
    for (size_t i = 0; i < m->proto->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->proto->opset_import[i];
        const char *d = o->domain ? o->domain : "";
        if (want_default ? is_default_domain(d) : strcmp(d, domain) == 0) return o->version;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* external data                                                                               */

/* Rejects absolute paths and ".." components ('/' or '\\' separated). */
static bool location_is_safe(const char *loc) {
    if (!loc[0] || loc[0] == '/' || loc[0] == '\\') return false;
    for (const char *p = loc; *p;) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.') return false;
        p += n;
        if (*p) p++;
    }
    return true;
}

/* Maps (or finds the mapping of) the data file with realpath `real`; NULL with a diagnostic. */
static Mapping *map_file(struct OnnxMappings *mp, const char *real, const char *tensor,
                         const char *loc) {
    for (size_t i = 0; i < mp->n; i++)
        if (strcmp(mp->items[i].real, real) == 0) return &mp->items[i];
    if (mp->n == mp->cap) {
        size_t ncap = mp->cap ? mp->cap * 2 : 4;
        Mapping *items = realloc(mp->items, ncap * sizeof *items);
        if (!items) {
            diag_error("tensor %s: out of memory", tensor);
            return NULL;
        }
        mp->items = items;
        mp->cap = ncap;
    }
    void *addr;
    size_t size;
    int fd;
    const char *why = map_readonly(real, &addr, &size, &fd);
    if (why) {
        diag_error("tensor %s: external data file %s: %s", tensor, loc, why);
        return NULL;
    }
    char *r = dup_str(real);
    if (!r) {
        if (addr) munmap(addr, size);
        close(fd);
        diag_error("tensor %s: out of memory", tensor);
        return NULL;
    }
    if (addr) file_map_register(addr, size, fd); /* optional: unregistered data is just kept */
    mp->items[mp->n] = (Mapping){r, addr, size, fd};
    return &mp->items[mp->n++];
}

const void *onnx_model_external_bytes(OnnxModel *m, const char *tensor, const char *location,
                                      uint64_t offset, uint64_t length) {
    const char *file = m && m->path ? m->path : "<memory>";
    if (!location || !location_is_safe(location)) {
        diag_error("tensor %s: external data location \"%s\" must be a relative path inside the "
                   "model folder (%s)", tensor, location ? location : "", file);
        return NULL;
    }
    if (!m || !m->dir) {
        diag_error("tensor %s: external data \"%s\" but the model has no folder (%s)", tensor,
                   location, file);
        return NULL;
    }
    if (!m->maps) {
        m->maps = calloc(1, sizeof *m->maps);
        if (!m->maps) {
            diag_error("tensor %s: out of memory", tensor);
            return NULL;
        }
    }
    struct OnnxMappings *mp = m->maps;
    if (!mp->dir_real) {
        mp->dir_real = realpath(m->dir, NULL);
        if (!mp->dir_real) {
            diag_error("tensor %s: model folder %s: %s", tensor, m->dir, strerror(errno));
            return NULL;
        }
    }
    char *joined = path_join(m->dir, location);
    if (!joined) {
        diag_error("tensor %s: external data location \"%s\" is too long", tensor, location);
        return NULL;
    }
    char *real = realpath(joined, NULL);
    int err = errno;
    free(joined);
    if (!real) {
        diag_error("tensor %s: external data file %s not found in %s: %s", tensor, location,
                   m->dir, strerror(err));
        return NULL;
    }
    size_t dl = strlen(mp->dir_real);
    bool inside = strcmp(mp->dir_real, "/") == 0
                      ? real[0] == '/'
                      : strncmp(real, mp->dir_real, dl) == 0 && real[dl] == '/';
    if (!inside) {
        diag_error("tensor %s: external data file %s resolves outside the model folder %s", tensor,
                   location, m->dir);
        free(real);
        return NULL;
    }
    Mapping *map = map_file(mp, real, tensor, location);
    free(real);
    if (!map) return NULL;
    if (offset > map->size || length > map->size - offset) {
        diag_error("tensor %s: external data range [%llu, +%llu) is past the end of %s (%zu bytes)",
                   tensor, (unsigned long long)offset, (unsigned long long)length, location,
                   map->size);
        return NULL;
    }
    if (length == 0) return map->addr ? (const char *)map->addr + offset : (const void *)"";
    return (const char *)map->addr + offset;
}

/* ------------------------------------------------------------------------------------------ */
/* lifetime                                                                                    */

void onnx_model_free(OnnxModel *m) {
    if (!m) return;
    if (m->maps) {
        for (size_t i = 0; i < m->maps->n; i++) {
            Mapping *it = &m->maps->items[i];
            if (it->addr) {
                file_map_unregister(it->addr);
                munmap(it->addr, it->size);
            }
            close(it->fd);
            free(it->real);
        }
        free(m->maps->items);
        free(m->maps->dir_real);
        free(m->maps);
    }
    if (m->proto) onnx__model_proto__free_unpacked(m->proto, NULL);
    free(m->path);
    free(m->dir);
    free(m->genai_config_path);
    free(m);
}

static void free_model_cb(void *ctx) { onnx_model_free(ctx); }

void onnx_model_attach(Graph *g, OnnxModel *m) {
    if (g && m) graph_add_cleanup(g, free_model_cb, m);
}
