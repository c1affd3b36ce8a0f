/* webnn_read.c - webnn_read() / webnn_read_json() / webnn_read_text(): locate the graph file (a
 * .webnn.json or .webnn file, or a folder holding model.webnn.json, else model.webnn), its folder
 * and stem (for the weights and manifest beside it), load it and hand it to the JSON reader
 * (graph_json_read.c) or, when it starts with `webnn_graph`, the text reader (graph_text_read.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "reader.h"
#include "webnn_io.h"

Graph *webnn_read_json(const char *json, size_t len, const char *dir) {
    if (!json) {
        diag_error("no graph JSON given");
        return NULL;
    }
    return wn_graph_json_read(json, len, dir ? dir : "graph JSON", dir, "model", 0);
}

Graph *webnn_read_text(const char *text, size_t len, const char *dir) {
    if (!text) {
        diag_error("no graph text given");
        return NULL;
    }
    return wn_graph_text_read(text, len, dir ? dir : "graph text", dir, "model", 0);
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
    static const char *const suffixes[] = {".webnn.json", ".json", ".webnn"};
    for (size_t i = 0; i < 3; i++) {
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
        if (access(file, F_OK) != 0) { /* a folder holding only the text form */
            char text[4096];
            snprintf(text, sizeof text, "%s/%s", path, WN_TEXT_FILE);
            if (access(text, F_OK) == 0) snprintf(file, sizeof file, "%s", text);
        }
        snprintf(dir, sizeof dir, "%s", path);
        snprintf(stem, sizeof stem, "model");
    } else {
        snprintf(file, sizeof file, "%s", path);
        split_path(path, dir, sizeof dir, stem, sizeof stem);
    }
    size_t len = 0;
    char *buf = input_file_read(file, LIMIT_GRAPH_JSON_BYTES, &len);
    if (!buf) return NULL;
    size_t lead = 0;
    while (lead < len && (buf[lead] == ' ' || buf[lead] == '\t' || buf[lead] == '\n' || buf[lead] == '\r')) lead++;
    bool text = len - lead >= 11 && memcmp(buf + lead, "webnn_graph", 11) == 0; /* as webnn-graph tells them */
    Graph *g = (text ? wn_graph_text_read : wn_graph_json_read)(buf, len, file, dir, stem, flags);
    free(buf);
    return g;
}
