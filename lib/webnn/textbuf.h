/* textbuf.h - a growable byte buffer with the byte-stable printers the webnn writers share:
 * JSON string escaping, integers, and doubles in their shortest round-tripping form. */
#ifndef WEBNNC_TEXTBUF_H
#define WEBNNC_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *data; /* always NUL-terminated once anything was written */
    size_t len, cap;
} TextBuf;

void wn_tb_init(TextBuf *b);
void wn_tb_free(TextBuf *b);
/* Hands the string to the caller (malloc'ed; "" when nothing was written) and resets b. */
char *wn_tb_take(TextBuf *b);
void wn_tb_putn(TextBuf *b, const char *s, size_t n);
void wn_tb_puts(TextBuf *b, const char *s);
void wn_tb_printf(TextBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "..." with JSON escapes (\" \\ \n \t \uXXXX for other control characters). */
void wn_tb_json_string(TextBuf *b, const char *s);
void wn_tb_int(TextBuf *b, int64_t v);
/* Shortest decimal that strtod() maps back to exactly v, always with a '.' or an exponent so it
 * reads as a float ("1.0", "0.5", "1e-05", "-0.0").  The spelling fits both the JSON and the
 * .webnn NUMBER grammars.  Returns false (writing nothing) for inf/nan. */
bool wn_tb_double(TextBuf *b, double v);

#endif
