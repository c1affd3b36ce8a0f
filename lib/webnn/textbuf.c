/* textbuf.c - growable byte buffer and deterministic printers (see textbuf.h). */
#include "textbuf.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wn_tb_init(TextBuf *b) { memset(b, 0, sizeof *b); }

void wn_tb_free(TextBuf *b) {
    free(b->data);
    wn_tb_init(b);
}

char *wn_tb_take(TextBuf *b) {
    char *s = b->data;
    if (!s) {
        s = malloc(1);
        if (!s) abort();
        s[0] = 0;
    }
    wn_tb_init(b);
    return s;
}

static void reserve(TextBuf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t ncap = b->cap ? b->cap : 4096;
    while (ncap < b->len + extra + 1) {
        if (ncap > SIZE_MAX / 2) abort();
        ncap *= 2;
    }
    char *p = realloc(b->data, ncap);
    if (!p) abort();
    b->data = p;
    b->cap = ncap;
}

void wn_tb_putn(TextBuf *b, const char *s, size_t n) {
    reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void wn_tb_puts(TextBuf *b, const char *s) { wn_tb_putn(b, s, strlen(s)); }

void wn_tb_printf(TextBuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

void wn_tb_json_string(TextBuf *b, const char *s) {
    wn_tb_putn(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': wn_tb_putn(b, "\\\"", 2); break;
        case '\\': wn_tb_putn(b, "\\\\", 2); break;
        case '\n': wn_tb_putn(b, "\\n", 2); break;
        case '\t': wn_tb_putn(b, "\\t", 2); break;
        case '\r': wn_tb_putn(b, "\\r", 2); break;
        default:
            if (*p < 0x20)
                wn_tb_printf(b, "\\u%04x", *p);
            else
                wn_tb_putn(b, (const char *)p, 1);
        }
    }
    wn_tb_putn(b, "\"", 1);
}

void wn_tb_int(TextBuf *b, int64_t v) { wn_tb_printf(b, "%" PRId64, v); }

bool wn_tb_double(TextBuf *b, double v) {
    if (!isfinite(v)) return false;
    char s[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, v);
        if (strtod(s, NULL) == v && (v != 0 || signbit(strtod(s, NULL)) == signbit(v))) break;
    }
    wn_tb_puts(b, s);
    if (!strpbrk(s, ".e")) wn_tb_putn(b, ".0", 2);
    return true;
}
