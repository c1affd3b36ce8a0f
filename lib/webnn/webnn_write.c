/* webnn_write.c - webnn_write(): writes the weights (deduplicating them as they are hashed), then
 * renders graph JSON, manifest (and .webnn text) and writes them, all into a temporary folder that
 * is renamed into place. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "outdir.h"
#include "tensor_codec.h"
#include "webnn_io.h"
#include "writers.h"

/* Files an output folder of webnnc (this version or an earlier one) may hold. */
static const char *const our_files[] = {WN_GRAPH_FILE, WN_WEIGHTS_FILE, WN_MANIFEST_FILE, WN_MANIFEST_FILE_OLD,
                                        WN_TEXT_FILE, WN_COMPANION_FILES, NULL};

/* One rendering of the graph (JSON or text) as a malloc'ed string, NULL + diagnostic; with
 * inline_all, weights constants are written inline too. */
static char *render_ex(Graph *g, int (*emit)(const Graph *, const WritePlan *, TextBuf *), bool inline_all) {
    WritePlan p;
    if (wn_write_plan_build(g, &p)) return NULL;
    if (inline_all) {
        uint64_t bytes = 0;
        for (int i = 0; i < p.n_consts; i++)
            if (p.consts[i].kind == CONST_WEIGHTS) {
                p.consts[i].kind = CONST_INLINE;
                bytes += p.consts[i].elements * file_elem_bytes(p.consts[i].v->dtype);
            }
        if (bytes > WN_INLINE_ALL_MAX_BYTES) {
            diag_error("%llu bytes of weights are too many to write inline (at most %llu); keep them external",
                       (unsigned long long)bytes, (unsigned long long)WN_INLINE_ALL_MAX_BYTES);
            wn_write_plan_free(&p);
            return NULL;
        }
    }
    TextBuf b;
    wn_tb_init(&b);
    int rc = emit(g, &p, &b);
    wn_write_plan_free(&p);
    if (rc) {
        wn_tb_free(&b);
        return NULL;
    }
    return wn_tb_take(&b);
}

static char *render(Graph *g, int (*emit)(const Graph *, const WritePlan *, TextBuf *)) {
    return render_ex(g, emit, false);
}

char *webnn_graph_json(Graph *g) { return render(g, wn_graph_json_emit); }
char *webnn_graph_text(Graph *g) { return render(g, wn_graph_text_emit); }
char *webnn_graph_inline(Graph *g, bool text) { return render_ex(g, text ? wn_graph_text_emit : wn_graph_json_emit, true); }

static int write_weights(WritePlan *p, const char *dir) {
    char path[4096];
    int fd = wn_outdir_create_file(dir, WN_WEIGHTS_FILE, path, sizeof path);
    if (fd < 0) return -1;
    int rc = wn_weights_write_fd(p, fd, path);
    if (close(fd) != 0 && rc == 0) {
        diag_error("%s: write failed: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* The weights first: writing them places (deduplicates) the weights constants, which the JSON
 * refs and the manifest need. */
static int write_files(Graph *g, WritePlan *p, const char *dir, bool want_text) {
    if (write_weights(p, dir)) return -1;
    TextBuf json, manifest, text;
    wn_tb_init(&json);
    wn_tb_init(&manifest);
    wn_tb_init(&text);
    int rc = wn_graph_json_emit(g, p, &json);
    if (!rc && want_text) rc = wn_graph_text_emit(g, p, &text);
    if (!rc) {
        wn_manifest_emit(p, &manifest);
        rc = wn_outdir_write_file(dir, WN_GRAPH_FILE, json.data, json.len) ||
                     wn_outdir_write_file(dir, WN_MANIFEST_FILE, manifest.data, manifest.len) ||
                     (want_text && wn_outdir_write_file(dir, WN_TEXT_FILE, text.data, text.len))
                 ? -1
                 : 0;
    }
    wn_tb_free(&json);
    wn_tb_free(&manifest);
    wn_tb_free(&text);
    return rc;
}

int webnn_write(Graph *g, const char *outdir, const WebnnWriteOptions *opt) {
    WritePlan p;
    if (wn_write_plan_begin(g, &p)) return -1;
    if (opt && opt->contiguous_weights) p.align = 1;
    char *tmp = wn_outdir_begin(outdir);
    int rc = -1;
    if (tmp) {
        rc = write_files(g, &p, tmp, opt && opt->text);
        if (!rc && opt && opt->check) rc = opt->check(tmp, opt->check_ctx);
        if (!rc) rc = wn_outdir_commit(tmp, outdir, our_files);
        if (rc) wn_outdir_remove(tmp);
        free(tmp);
    }
    wn_write_plan_free(&p);
    return rc;
}
