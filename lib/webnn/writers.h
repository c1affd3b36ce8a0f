/* writers.h - the pieces webnn_write() assembles (internal to lib/webnn): graph JSON, .webnn
 * text, weights blob and manifest, each driven by one WritePlan. */
#ifndef WEBNNC_WRITERS_H
#define WEBNNC_WRITERS_H

#include "textbuf.h"
#include "write_plan.h"

/* model.webnn.json contents.  0, or -1 + diagnostic. */
int wn_graph_json_emit(const Graph *g, const WritePlan *p, TextBuf *b);
/* model.webnn (text DSL) contents.  0, or -1 + diagnostic. */
int wn_graph_text_emit(const Graph *g, const WritePlan *p, TextBuf *b);
/* manifest.json contents. */
void wn_manifest_emit(const WritePlan *p, TextBuf *b);
/* Writes model.weights to an open file descriptor, placing the weights constants of a plan
 * from wn_write_plan_begin as it hashes them.  0, or -1 + diagnostic
 * naming `path`. */
int wn_weights_write_fd(WritePlan *p, int fd, const char *path);

#endif
