/* reader.h - shared state and helpers of the webnn-graph reader (internal to lib/webnn):
 * the read context, one-line errors prefixed with the file name, typed JSON accessors, node
 * option parsing (options_read.c) and weights/manifest access (weights_read.c). */
#ifndef WEBNNC_READER_H
#define WEBNNC_READER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "core.h"
#include "name_map.h"

typedef struct WeightsSource WeightsSource;

typedef struct {
    Graph *g;
    const char *src;  /* file named in errors */
    const char *dir;  /* folder holding weights + manifest, NULL: none allowed */
    const char *stem; /* graph <stem>.webnn.json: wn_weights_open() looks for <stem>.* files */
    NameMap values;   /* JSON name -> Value* */
    NameMap node_ids; /* JSON node id -> (void *)1 */
    WeightsSource *weights; /* opened on the first weights ref */
    unsigned flags;         /* WEBNN_READ_* */
} ReadCtx;

/* Largest constant a {"kind":"scalar"} may expand to in memory. */
#define WN_SCALAR_EXPAND_MAX_BYTES (256u << 20)
/* Largest static dimension accepted (WebNN dims are uint32). */
#define WN_MAX_DIM 0xFFFFFFFFll

/* Reads graph JSON; `src` names it in errors, dir/stem locate the weights (dir NULL: none);
 * flags are WEBNN_READ_*. */
Graph *wn_graph_json_read(const char *json, size_t len, const char *src, const char *dir, const char *stem,
                       unsigned flags);

/* The same from a parsed JSON tree (the text form's parser builds one); takes ownership of root. */
Graph *wn_graph_tree_read(cJSON *root, const char *src, const char *dir, const char *stem, unsigned flags);
/* Reads the .webnn text form (graph_text_read.c): parses it into the JSON tree and reads that. */
Graph *wn_graph_text_read(const char *text, size_t len, const char *src, const char *dir, const char *stem,
                       unsigned flags);

void wn_rd_error(const ReadCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Integer JSON number (integral, |v| <= 2^53). */
bool wn_json_int(const cJSON *j, int64_t *out);
/* Dims: number in 1..WN_MAX_DIM, or (when g != NULL) {"name": str, "maxSize": 1..WN_MAX_DIM}.
 * `what` names the place in errors.  0 or -1 + diagnostic. */
int wn_read_dim(ReadCtx *c, const cJSON *j, bool allow_dynamic, const char *what, Dim *out);
/* Element count of a shape, -1 + diagnostic on overflow past 2^62. */
int64_t wn_shape_elements(ReadCtx *c, int rank, const Dim *shape, const char *what);

/* Parses a node's "options" into attributes and operand-valued options.  `slots` holds the
 * operands given positionally (npos of them); an option named after an operand slot fills it.
 * 0 or -1 + diagnostic naming the node and key. */
int wn_read_node_options(ReadCtx *c, Node *n, const char *id, const cJSON *options, Value **slots, int npos);

/* Opens the weights of the graph (manifest + mmapped blob) beside c->src. */
WeightsSource *wn_weights_open(ReadCtx *c);
/* Data of constant `name` stored under manifest key `ref` with the given type.  Checks the
 * manifest entry (dtype, shape, byteLength, bounds, xxhash64) and repacks 4-bit tensors.
 * 0 or -1 + diagnostic naming the manifest/weights file and the tensor. */
int wn_weights_get(ReadCtx *c, WeightsSource *w, const char *name, const char *ref, DType dt, int rank,
                const int64_t *shape, uint64_t elements, const void **data, uint64_t *nbytes);

#endif
