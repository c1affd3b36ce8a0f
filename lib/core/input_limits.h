/* input_limits.h - resource limits on inputs (input_limits.def) and the checks every reader uses:
 * a limit breach is an error naming the limit; whole-file reads bounded by a size limit; a JSON
 * pre-scan for nesting depth and string length (run before cJSON, which recurses). */
#ifndef WEBNNC_INPUT_LIMITS_H
#define WEBNNC_INPUT_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Static bound of the protobuf-nesting limit (the wire check's stack is sized by it). */
#define INPUT_PROTO_NESTING_MAX 64

typedef enum {
#define INPUT_LIMIT(id, max, name, what) LIMIT_##id,
#include "input_limits.def"
#undef INPUT_LIMIT
    LIMIT_COUNT
} InputLimit;

/* Current maximum of a limit (the table's value unless input_limit_set changed it). */
uint64_t input_limit(InputLimit l);
/* Its name ("node-count") and what it bounds. */
const char *input_limit_name(InputLimit l);
const char *input_limit_what(InputLimit l);
/* Sets a limit for this process (tests lower limits to exercise them); 0 restores the table's. */
void input_limit_set(InputLimit l, uint64_t max);

/* true when got <= the limit; else false with the diagnostic
 * "FILE: WHAT GOT is above the limit NAME (MAX)" (`file` NULL: no prefix). */
bool input_limit_ok(InputLimit l, uint64_t got, const char *file, const char *what);

/* Reads the whole regular file `path` (NUL-terminated, malloc'ed) if its size is within `size`
 * (a *_BYTES limit).  NULL + diagnostic naming the file (and the limit) otherwise. */
char *input_file_read(const char *path, InputLimit size, size_t *len);

/* Checks JSON text for nesting deeper than json-nesting and strings longer than string-length
 * (a lexical scan: strings and escapes are skipped correctly, nothing else is validated).
 * true, or false + diagnostic naming `file`. */
bool json_within_limits(const char *text, size_t len, const char *file);

#endif
