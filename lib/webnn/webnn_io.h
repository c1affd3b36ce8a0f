/* webnn_io.h - webnn-graph files: JSON graph (format "webnn-graph-json", version 2), weights blob
 * (WGWT header, absolute 64-byte aligned offsets), manifest (wg-weights-manifest v1 + xxHash64 per
 * tensor), and the .webnn text form.  See docs/webnn-graph-format (../shared/docs). */
#ifndef WEBNNC_WEBNN_IO_H
#define WEBNNC_WEBNN_IO_H

#include <stdbool.h>

#include "core.h"

/* File names inside an output folder.  The manifest is named as the webnn-graph tools look for
 * it beside model.webnn.json and model.webnn alike (rustnn src/loader.rs, webnn-graph
 * src/external_weights.rs: "manifest.json" first, then "<file stem>.manifest.json"); folders of
 * earlier webnnc versions hold WN_MANIFEST_FILE_OLD, which the reader still finds. */
#define WN_GRAPH_FILE "model.webnn.json"
#define WN_WEIGHTS_FILE "model.weights"
#define WN_MANIFEST_FILE "manifest.json"
#define WN_MANIFEST_FILE_OLD "model.manifest.json"
#define WN_TEXT_FILE "model.webnn"
/* Files of an ORT-GenAI model folder that `convert` copies beside the graph (generate reads the
 * eos ids and the tokenizer there); an output folder holding them is still webnnc's own. */
#define WN_COMPANION_FILES "genai_config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"

typedef struct {
    bool text; /* also write OUTDIR/model.webnn */
    /* Tensors back to back from offset 8 (no 64-byte alignment padding), as webnn-graph's
     * pack-weights requires; readers copy tensors that end up misaligned for their dtype. */
    bool contiguous_weights;
    /* Optional check of the finished files, run on the temporary folder before it is renamed into
     * place; a non-zero result aborts the write (nothing is left behind) and is returned. */
    int (*check)(const char *tmpdir, void *ctx);
    void *check_ctx;
} WebnnWriteOptions;

/* Writes OUTDIR/model.webnn.json, model.weights, manifest.json (and model.webnn) through a
 * temporary folder renamed into place; nothing is left behind on failure.  0 or -1 + diagnostic
 * (or the check's non-zero result). */
int webnn_write(Graph *g, const char *outdir, const WebnnWriteOptions *opt);

/* The graph JSON as a string (malloc'ed); weights refs are assigned as webnn_write does. */
char *webnn_graph_json(Graph *g);

/* The .webnn text form as a string (malloc'ed), NULL + diagnostic on failure. */
char *webnn_graph_text(Graph *g);

/* Largest total of weights bytes webnn_graph_inline writes (each byte becomes up to 5 characters,
 * and the reader takes files up to 1 GiB). */
#define WN_INLINE_ALL_MAX_BYTES (128ull << 20)
/* The graph as one self-contained file, JSON or (text) the .webnn form, with every constant inline
 * ({"kind": "inlineBytes"} / @bytes, scalars as {"kind": "scalar"}): webnn-graph's
 * inline-weights.  Malloc'ed, NULL + diagnostic on failure. */
char *webnn_graph_inline(Graph *g, bool text);

/* Reads a graph: PATH is a .webnn.json or .webnn (text form) file, or an OUTDIR holding
 * model.webnn.json (else model.webnn); a file starting with `webnn_graph` is the text form.  Weights and
 * manifest are found beside it (weights_read.c lists the names, those of the webnn-graph tools
 * first); checksums and byte lengths are verified.  NULL + diagnostic on failure. */
Graph *webnn_read(const char *path);

enum {
    /* Skip the xxhash64 comparison of every tensor (byte lengths and ranges are still checked):
     * for files this process has just written and hashed itself. */
    WEBNN_READ_SKIP_HASH = 1 << 0,
};
/* webnn_read with WEBNN_READ_* flags. */
Graph *webnn_read_ex(const char *path, unsigned flags);

/* Reads a graph from a JSON string; `dir` locates the weights (NULL: graph must have no weights). */
Graph *webnn_read_json(const char *json, size_t len, const char *dir);
/* The same from the .webnn text form (graph_text_read.c: grammar and limits). */
Graph *webnn_read_text(const char *text, size_t len, const char *dir);

#endif
