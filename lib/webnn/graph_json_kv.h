/* graph_json_kv.h - KV-cache bindings in webnn-graph JSON (graph_json_kv.c; internal to lib/webnn). */
#ifndef WEBNNC_GRAPH_JSON_KV_H
#define WEBNNC_GRAPH_JSON_KV_H

#include "reader.h"
#include "textbuf.h"

/* Appends `,\n  "webnnc": {"kvCache": [...]}` when the graph has KV bindings (nothing otherwise). */
void wn_graph_json_emit_kv(const Graph *g, TextBuf *b);
/* Restores Graph.kv from the top-level "webnnc" object (NULL: none).  Call after the outputs are
 * read.  0 or -1 + diagnostic. */
int wn_graph_json_read_kv(ReadCtx *c, const cJSON *webnnc);

#endif
