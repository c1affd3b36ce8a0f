/* cmd_view.c - `webnnc view GRAPH|MODEL -o FILE.html|FILE.dot|FILE.svg`: a picture of a graph.
 * The input is loaded as `webnnc diff` loads it (convert_graph_load_fused: an ONNX model becomes its
 * spec-only baseline, a webnn-graph file or output folder is read; then --fuse), and drawn as a
 * self-contained HTML page (view_html.c), Graphviz DOT text or SVG made by Graphviz's `dot`
 * (view_dot.h).  The file is written atomically (wn_outfile_write_atomic: a temporary file created
 * O_EXCL | O_NOFOLLOW beside it, renamed into place); on any failure nothing is written. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "core.h"
#include "convert.h"
#include "webnn.h"
#include "view_dot.h"
#include "view_html.h"

static const ArgSpec specs[] = {
    {"out", 'o', ARG_VALUE, "FILE", "the picture: FILE.html (interactive page), FILE.dot (Graphviz text) or FILE.svg (needs Graphviz's dot)"},
    {"fuse", 0, ARG_VALUE, "all|none|LIST", "fuse the graph first, as convert --fuse does (default: none)"},
    {"fix", 0, ARG_LIST, "NAME=N", "freeze symbolic dimension NAME to the static size N when importing ONNX"},
    {"dim", 0, ARG_LIST, "NAME=MAX", "keep symbolic dimension NAME dynamic with upper bound MAX when importing ONNX"},
};

typedef enum { VIEW_HTML, VIEW_DOT, VIEW_SVG } ViewFormat;

/* The format named by FILE's extension, or -1. */
static int view_format(const char *file) {
    static const struct {
        const char *ext;
        ViewFormat format;
    } exts[] = {{".html", VIEW_HTML}, {".htm", VIEW_HTML}, {".dot", VIEW_DOT}, {".gv", VIEW_DOT}, {".svg", VIEW_SVG}};
    const char *dot = strrchr(file, '.'), *slash = strrchr(file, '/');
    if (!dot || (slash && dot < slash)) return -1;
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++)
        if (!strcasecmp(dot, exts[i].ext)) return (int)exts[i].format;
    return -1;
}

/* The picture of g in `format` into b.  0, or -1 + diagnostic. */
static int draw(const Graph *g, const char *source, ViewFormat format, TextBuf *b) {
    if (format == VIEW_HTML) return view_html(b, g, source);
    if (format == VIEW_DOT) {
        view_dot(b, g);
        return 0;
    }
    TextBuf dot;
    wn_tb_init(&dot);
    view_dot(&dot, g);
    int rc = view_svg(dot.data, dot.len, b);
    wn_tb_free(&dot);
    return rc;
}

int cmd_view(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *path = r.pos[0], *file = args_value(&r, "out");
    if (!file) return cli_usage_error(self, "missing -o FILE.html|FILE.dot|FILE.svg");
    int format = view_format(file);
    if (format < 0) {
        const char *dot = strrchr(file, '.'), *slash = strrchr(file, '/');
        return cli_usage_error(self, "%s: unknown picture format \"%s\" (use .html, .dot or .svg)", file,
                               dot && (!slash || dot > slash) ? dot : "(no extension)");
    }
    if (format == VIEW_SVG && !view_dot_available())
        return cli_usage_error(self, "%s: writing SVG needs Graphviz's `%s` program, which is not on PATH "
                                     "(install the Debian package %s, or write .html or .dot)",
                               file, VIEW_DOT_PROGRAM, VIEW_DOT_PACKAGE);
    static DimSettingList fix, dim;
    if (args_dim_settings(self, &r, "fix", &fix) < 0 || args_dim_settings(self, &r, "dim", &dim) < 0)
        return WN_EXIT_BAD_INPUT;
    diag_set_file(path);
    Graph *g = convert_graph_load_fused(path, args_value(&r, "fuse"), &fix, &dim, &rc);
    if (!g) return cli_fail(path, rc);
    TextBuf b;
    wn_tb_init(&b);
    int nodes = graph_node_count(g);
    if (format == VIEW_SVG && nodes > VIEW_DOT_SLOW_NODES) { /* dot's layout grows much faster than linearly */
        printf("note: %s lays out %d nodes, which may take minutes (a .html picture draws large graphs at once)\n",
               VIEW_DOT_PROGRAM, nodes);
        fflush(stdout);
    }
    rc = draw(g, path, (ViewFormat)format, &b);
    graph_free(g);
    if (rc == 0) {
        diag_set_file(file);
        rc = wn_outfile_write_atomic(file, b.data, b.len);
    }
    wn_tb_free(&b);
    if (rc < 0) return cli_fail(diag_file(), WN_EXIT_BAD_INPUT);
    printf("viewed %s -> %s (%d nodes)\n", path, file, nodes);
    return WN_EXIT_OK;
}
