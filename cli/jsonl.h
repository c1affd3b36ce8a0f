/* jsonl.h - line-by-line JSON requests on stdin, one JSON answer per line on stdout (jsonl.c), for
 * `tokenize --jsonl` and `detokenize --jsonl`: a line that is not a JSON object, or that the
 * handler rejects, answers {"error": "..."} and the stream goes on. */
#ifndef WEBNNC_CLI_JSONL_H
#define WEBNNC_CLI_JSONL_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* Answers one request object: a new cJSON object, or NULL with a diagnostic (diag.h) that becomes
 * the line's error. */
typedef cJSON *(*JsonlHandler)(const cJSON *request, void *ctx);

/* Runs handler over every non-empty line of in, writing answers to out.  Returns the number of
 * lines answered with an error, or -1 when reading or writing fails. */
long jsonl_each(FILE *in, FILE *out, JsonlHandler handler, void *ctx);

#endif
