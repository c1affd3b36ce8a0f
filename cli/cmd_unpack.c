/* cmd_unpack.c - `webnnc unpack GRAPH|OUTDIR -o FILE`: the graph as one self-contained file with
 * every constant inline (webnn_graph_inline; webnn-graph's inline-weights), JSON, or the .webnn text
 * form when FILE ends in .webnn or --text is given.  Written to a temporary file beside FILE and
 * renamed into place, so a failure leaves nothing behind. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "core.h"
#include "webnn.h"

static const ArgSpec specs[] = {
    {"out", 'o', ARG_VALUE, "FILE", "output file (.webnn.json, or .webnn for the text form)"},
    {"text", 0, ARG_FLAG, NULL, "write the .webnn text form whatever FILE's name"},
};

static int write_file_atomic(const char *file, const char *data) {
    struct stat st;
    if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
        diag_error("%s: is a folder; unpack writes one file", file);
        return -1;
    }
    size_t n = strlen(file) + 16;
    char *tmp = malloc(n);
    if (!tmp) abort();
    snprintf(tmp, n, "%s.tmp-XXXXXX", file);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    size_t len = strlen(data);
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f) ok = fclose(f) == 0 && ok;
    ok = ok && chmod(tmp, 0644) == 0 && rename(tmp, file) == 0;
    if (!ok) {
        diag_error("%s: cannot write: %s", file, strerror(errno));
        if (fd >= 0) unlink(tmp);
    }
    free(tmp);
    return ok ? 0 : -1;
}

int cmd_unpack(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *path = r.pos[0], *file = args_value(&r, "out");
    if (!file) return cli_usage_error(self, "missing -o FILE");
    size_t n = strlen(file);
    bool text = args_count(&r, "text") > 0 || (n > 6 && strcmp(file + n - 6, ".webnn") == 0);
    diag_set_file(path);
    Graph *g = webnn_read(path);
    if (!g) return cli_fail(path, WN_EXIT_BAD_INPUT);
    char *out = webnn_graph_inline(g, text);
    graph_free(g);
    if (!out) return cli_fail(path, WN_EXIT_BAD_INPUT);
    diag_set_file(file);
    rc = write_file_atomic(file, out);
    free(out);
    if (rc) return cli_fail(file, WN_EXIT_BAD_INPUT);
    printf("unpacked %s -> %s (every constant inline, %s)\n", path, file, text ? ".webnn text" : "graph JSON");
    return WN_EXIT_OK;
}
