/* weights_write.c - model.weights (the WGWT blob: "WGWT", u32 LE version 1, tensors at absolute
 * 64-byte aligned offsets with zero padding, int4/uint4 one byte per element) and
 * model.manifest.json (wg-weights-manifest v1 with an XXH64 per tensor).
 *
 * Big tensors are written straight from their (usually memory-mapped) data with large write()
 * calls; small tensors, padding and unpacked 4-bit data go through one 4 MiB buffer. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "graph_form.h"
#include "tensor_codec.h"
#include "writers.h"

enum { BUF_SIZE = 4 << 20, DIRECT_MIN = 1 << 20, PROGRESS_MIN = 64 << 20 };

typedef struct {
    int fd;
    const char *path;
    uint8_t *buf;
    size_t len;
    uint64_t written, total;
} Out;

static int write_all(Out *o, const void *data, uint64_t n) {
    const uint8_t *p = data;
    while (n) {
        size_t chunk = n > (256u << 20) ? (256u << 20) : (size_t)n;
        ssize_t w = write(o->fd, p, chunk);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            diag_error("%s: write failed: %s", o->path, w < 0 ? strerror(errno) : "no progress");
            return -1;
        }
        p += w;
        n -= (uint64_t)w;
        o->written += (uint64_t)w;
        if (o->total >= PROGRESS_MIN) progress_update("writing weights", o->written, o->total);
    }
    return 0;
}

static int flush(Out *o) {
    int rc = write_all(o, o->buf, o->len);
    o->len = 0;
    return rc;
}

static int sink(void *ctx, const void *bytes, uint64_t n) {
    Out *o = ctx;
    if (n >= DIRECT_MIN) return flush(o) || write_all(o, bytes, n) ? -1 : 0;
    if (o->len + n > BUF_SIZE && flush(o)) return -1;
    memcpy(o->buf + o->len, bytes, (size_t)n);
    o->len += (size_t)n;
    return 0;
}

static int pad_to(Out *o, uint64_t offset) {
    static const uint8_t zeros[WN_WEIGHTS_ALIGN];
    uint64_t pos = o->written + o->len;
    return offset > pos ? sink(o, zeros, offset - pos) : 0;
}

int weights_write_fd(const WritePlan *p, int fd, const char *path) {
    Out o = {.fd = fd, .path = path, .total = p->weights_size};
    o.buf = malloc(BUF_SIZE);
    if (!o.buf) abort();
    static const uint8_t header[WN_WEIGHTS_HEADER] = {'W', 'G', 'W', 'T', 1, 0, 0, 0};
    int rc = sink(&o, header, sizeof header);
    for (int i = 0; i < p->n_tensors && !rc; i++) {
        const PlannedTensor *t = &p->tensors[i];
        rc = pad_to(&o, t->offset) || tensor_file_bytes(t->v, t->elements, sink, &o);
    }
    if (!rc) rc = flush(&o);
    progress_done();
    free(o.buf);
    return rc ? -1 : 0;
}

void manifest_emit(const WritePlan *p, TextBuf *b) {
    tb_puts(b, "{\n  \"format\": \"wg-weights-manifest\",\n  \"version\": 1,\n  \"endianness\": \"little\",\n"
               "  \"tensors\": {");
    for (int i = 0; i < p->n_tensors; i++) {
        const PlannedTensor *t = &p->tensors[i];
        tb_puts(b, i ? ",\n    " : "\n    ");
        tb_json_string(b, t->v->name);
        tb_puts(b, ": {\"dataType\": ");
        tb_json_string(b, dtype_name(t->v->dtype));
        tb_puts(b, ", \"shape\": ");
        form_shape(b, NULL, t->v, FORM_JSON); /* static: checked by the plan */
        tb_printf(b, ", \"byteOffset\": %" PRIu64 ", \"byteLength\": %" PRIu64
                     ", \"layout\": \"row-major\", \"xxhash64\": \"%016" PRIx64 "\"}",
                  t->offset, t->length, t->hash);
    }
    tb_puts(b, p->n_tensors ? "\n  }\n}\n" : "}\n}\n");
}
