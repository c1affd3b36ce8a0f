/* webnn_read.c - webnn_read() / webnn_read_json(): locate the graph file (a .webnn.json file, or
 * a folder holding model.webnn.json), its folder and stem (for the weights and manifest beside
 * it), load it and hand it to the JSON reader (graph_json_read.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "input_limits.h"
#include "reader.h"
#include "webnn_io.h"

Graph *webnn_read_json(const char *json, size_t len, const char *dir) {
    if (!json) {
        diag_error("no graph JSON given");
        return NULL;
    }
    return graph_json_read(json, len, dir ? dir : "graph JSON", dir, "model", 0);
}

/* Splits path into folder and stem ("a/b/foo.webnn.json" -> "a/b", "foo"). */
static void split_path(const char *path, char *dir, size_t dlen, char *stem, size_t slen) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, dlen, ".");
    else
        snprintf(dir, dlen, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    size_t n = strlen(base);
    static const char *const suffixes[] = {".webnn.json", ".json"};
    for (size_t i = 0; i < 2; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(base + n - k, suffixes[i]) == 0) {
            n -= k;
            break;
        }
    }
    snprintf(stem, slen, "%.*s", (int)n, base);
}

Graph *webnn_read(const char *path) { return webnn_read_ex(path, 0); }

Graph *webnn_read_ex(const char *path, unsigned flags) {
    char file[4096], dir[4096], stem[512];
    struct stat st;
    if (!path || stat(path, &st) != 0) {
        diag_error("%s: cannot open: %s", path ? path : "(null)", strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(file, sizeof file, "%s/%s", path, WN_GRAPH_FILE);
        snprintf(dir, sizeof dir, "%s", path);
        snprintf(stem, sizeof stem, "model");
    } else {
        snprintf(file, sizeof file, "%s", path);
        split_path(path, dir, sizeof dir, stem, sizeof stem);
    }
    size_t len = 0;
    char *buf = input_file_read(file, LIMIT_GRAPH_JSON_BYTES, &len);
    if (!buf) return NULL;
    Graph *g = graph_json_read(buf, len, file, dir, stem, flags);
    free(buf);
    return g;
}
