/* api_internal.h - the handles behind include/webnnc/webnnc.h and the error helpers shared by the
 * API's files (api_model.c: load .. validate; api_run.c: sessions, run, generate). */
#ifndef WEBNNC_API_INTERNAL_H
#define WEBNNC_API_INTERNAL_H

#include <stdbool.h>

#include "core.h"
#include "onnx.h"
#include "webnnc/webnnc.h"

struct webnnc_model {
    char *path;       /* what was loaded: the companion files of its folder go with webnnc_write */
    OnnxModel *onnx;  /* an ONNX model not yet converted (g NULL) */
    Graph *g;         /* the WebNN graph (converted or read) */
    bool spec_only;   /* converted without fusions: validation rejects extension ops */
};

/* Starts an API call on FILE (NULL: none): clears the previous error. */
void api_begin(const char *file);
/* Ends an API call with status code (WEBNNC_*): a failure keeps the diagnostic as the last error
 * (or `fallback` when the failing stage recorded none).  Returns code. */
int api_end(int code, const char *fallback);
/* A failure of the caller's arguments: records "MESSAGE" and returns WEBNNC_BAD_INPUT. */
int api_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* m's graph, or NULL after an api_fail (m NULL, or an ONNX model not converted yet). */
Graph *api_graph(const webnnc_model *m);

#endif
