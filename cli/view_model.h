/* view_model.h - what `webnnc view` shows of a graph, shared by its DOT and HTML writers: the op
 * families (with their colours), a value's shape as text, and the graph as one JSON document for
 * the HTML page (view_html.c). */
#ifndef WEBNNC_CLI_VIEW_MODEL_H
#define WEBNNC_CLI_VIEW_MODEL_H

#include "core.h"
#include "webnn.h"

typedef struct {
    const char *name;   /* "matmul / conv" */
    const char *colour; /* "#9ecae1" */
} ViewFamily;

extern const ViewFamily view_families[];
extern const int view_n_families;

/* Index of the op's family in view_families. */
int view_op_family(OpId op);

/* Appends "[1, seq, 64] float32" (dims as dim_format) to b. */
void view_value_type(TextBuf *b, const Graph *g, const Value *v);

/* Writes the graph as JSON for the page: {"graph", "source", "families", "nodes", "values",
 * "inputs", "outputs", "docs"}; docs is the extension-op text (docs/extension-ops.md, built in)
 * when the graph has extension ops.  Plain JSON: the caller escapes it for a <script> element.
 * 0, or -1 + diagnostic. */
int view_model_json(TextBuf *b, const Graph *g, const char *source, const char *docs);

#endif
