/* diag.c - first-error-wins diagnostics and terminal progress (see diag.h). */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ir.h"

static char message[1024];
static bool has_error;
static char current_file[512];

void diag_verror(const char *prefix, const char *fmt, va_list ap) {
    if (has_error) return;
    size_t off = 0;
    if (prefix) {
        snprintf(message, sizeof message, "%s", prefix);
        off = strlen(message);
    }
    vsnprintf(message + off, sizeof message - off, fmt, ap);
    /* Errors are one line. */
    for (char *p = message; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    has_error = true;
}

void diag_node_verror(const Node *n, const char *fmt, va_list ap) {
    if (has_error) return;
    char prefix[384];
    snprintf(prefix, sizeof prefix, "node %s (%s): ", node_display_name(n), op_name(n->op));
    diag_verror(prefix, fmt, ap);
}

void diag_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(NULL, fmt, ap);
    va_end(ap);
}

void diag_node_error(const Node *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_node_verror(n, fmt, ap);
    va_end(ap);
}

bool diag_has_error(void) { return has_error; }
const char *diag_message(void) { return has_error ? message : "unknown error"; }

void diag_clear(void) {
    has_error = false;
    message[0] = 0;
}

void diag_set_file(const char *path) { snprintf(current_file, sizeof current_file, "%s", path ? path : ""); }
const char *diag_file(void) { return current_file; }

void diag_print(void) {
    if (current_file[0])
        fprintf(stderr, "webnnc: error: %s: %s\n", current_file, diag_message());
    else
        fprintf(stderr, "webnnc: error: %s\n", diag_message());
}

static int progress_active;

void progress_update(const char *what, unsigned long long done, unsigned long long total) {
    if (!isatty(STDERR_FILENO)) return;
    int pct = total ? (int)(done * 100 / total) : 0;
    fprintf(stderr, "\r%s: %3d%% (%llu/%llu)", what, pct, done, total);
    progress_active = 1;
}

void progress_done(void) {
    if (progress_active) fprintf(stderr, "\r\033[K");
    progress_active = 0;
}
