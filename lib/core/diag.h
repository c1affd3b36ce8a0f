/* diag.h - error reporting shared by every stage.
 *
 * The first error wins: library code calls diag_error()/diag_node_error() and returns a failure
 * value; the CLI prints diag_message() as one line ("webnnc: error: FILE: ...") and exits with the
 * code the failing stage chose (WN_EXIT_*).  diag_clear() resets the state (tests, fuzzers).
 */
#ifndef WEBNNC_DIAG_H
#define WEBNNC_DIAG_H

#include <stdarg.h>
#include <stdbool.h>

enum {
    WN_EXIT_OK = 0,
    WN_EXIT_CHECK_FAILED = 1, /* e.g. parity check failed */
    WN_EXIT_BAD_INPUT = 2,    /* bad input file or usage */
};

struct Graph;
struct Node;

/* Records an error unless one is already recorded.  printf-style. */
void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, prefixed with "node NAME (opName): ". */
void diag_node_error(const struct Node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* va_list forms for printf-style error helpers of other stages: the message is prefix (NULL for
 * none) followed by fmt formatted with ap; diag_node_verror prefixes as diag_node_error. */
void diag_verror(const char *prefix, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void diag_node_verror(const struct Node *n, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
bool diag_has_error(void);
const char *diag_message(void);
void diag_clear(void);

/* The file currently being processed; prefixed to messages by diag_print(). */
void diag_set_file(const char *path);
const char *diag_file(void);
/* Prints "webnnc: error: FILE: MESSAGE\n" (or without FILE) to stderr. */
void diag_print(void);

/* Progress on stderr for long work, only when stderr is a terminal. */
void progress_update(const char *what, unsigned long long done, unsigned long long total);
void progress_done(void);

#endif
