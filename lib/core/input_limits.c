/* input_limits.c - the limits table (input_limits.def) and the checks shared by the readers
 * (input_limits.h). */
#include "input_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"

static const struct {
    uint64_t max;
    const char *name, *what;
} table[LIMIT_COUNT] = {
#define INPUT_LIMIT(id, max, name, what) [LIMIT_##id] = {max, name, what},
#include "input_limits.def"
#undef INPUT_LIMIT
};

static uint64_t override[LIMIT_COUNT]; /* 0: the table's value */

uint64_t input_limit(InputLimit l) { return override[l] ? override[l] : table[l].max; }
const char *input_limit_name(InputLimit l) { return table[l].name; }
const char *input_limit_what(InputLimit l) { return table[l].what; }
void input_limit_set(InputLimit l, uint64_t max) { override[l] = max; }

bool input_limit_ok(InputLimit l, uint64_t got, const char *file, const char *what) {
    if (got <= input_limit(l)) return true;
    diag_error("%s%s%s %llu is above the limit %s (%llu)", file ? file : "", file ? ": " : "", what,
               (unsigned long long)got, table[l].name, (unsigned long long)input_limit(l));
    return false;
}

char *input_file_read(const char *path, InputLimit size, size_t *len) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not block: fstat refuses it */
    if (fd < 0) {
        diag_error("%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_error("%s: not a regular file", path);
    } else if (input_limit_ok(size, (uint64_t)st.st_size, path, "file size")) {
        size_t n = (size_t)st.st_size, got = 0;
        buf = malloc(n + 1);
        if (!buf) {
            diag_error("%s: out of memory", path);
        } else {
            ssize_t r = 0;
            while (got < n && ((r = read(fd, buf + got, n - got)) > 0 || (r < 0 && errno == EINTR)))
                if (r > 0) got += (size_t)r;
            if (got != n) { /* read error, or the file shrank meanwhile */
                diag_error("%s: read error", path);
                free(buf);
                buf = NULL;
            } else {
                buf[n] = 0;
                *len = n;
            }
        }
    }
    close(fd);
    return buf;
}

bool json_within_limits(const char *text, size_t len, const char *file) {
    uint64_t depth = 0, max_str = input_limit(LIMIT_STRING_LENGTH);
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (ch == '[' || ch == '{') {
            if (!input_limit_ok(LIMIT_JSON_NESTING, ++depth, file, "JSON nesting depth")) return false;
        } else if ((ch == ']' || ch == '}') && depth) {
            depth--;
        } else if (ch == '"') {
            size_t start = ++i;
            while (i < len && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
            uint64_t n = (uint64_t)((i < len ? i : len) - start);
            if (n > max_str) return input_limit_ok(LIMIT_STRING_LENGTH, n, file, "JSON string length");
        }
    }
    return true;
}
