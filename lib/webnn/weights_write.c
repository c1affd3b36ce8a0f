/* weights_write.c - model.weights (the WGWT blob: "WGWT", u32 LE version 1, tensors at absolute
 * offsets aligned to the plan's align (64 by default, 1: contiguous) with zero padding, int4/uint4
 * one byte per element) and manifest.json (wg-weights-manifest v1 with an XXH64 per tensor).
 *
 * One pass over the bytes: each weights constant is written in chunks that are hashed (XXH64
 * streaming state) while still in cache and then written with pwrite() at the tensor's offset;
 * the tensor is placed in the plan (wn_write_plan_place) only once its hash is known, and when it
 * duplicates an earlier tensor the output position is rewound over it.  Bytes that come from a
 * memory-mapped file are dropped from the resident set as soon as they are written
 * (file_map_release), so memory stays bounded whatever the model size.  Small tensors, padding
 * and unpacked 4-bit data go through one 4 MiB buffer.  The file is preallocated to its size
 * without deduplication and truncated to the real size at the end. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "core.h"
#include "graph_form.h"
#include "tensor_codec.h"
#include "writers.h"

enum { BUF_SIZE = 4 << 20, DIRECT_MIN = 1 << 20, CHUNK = 1 << 20, PROGRESS_MIN = 64 << 20 };

typedef struct {
    int fd;
    const char *path;
    uint8_t *buf;
    size_t len;           /* buffered bytes, destined for [buf_off, buf_off + len) */
    uint64_t buf_off;
    XXH64_state_t *hash;  /* the current tensor's hash, NULL for header and padding */
    uint64_t done, total; /* progress: weights bytes consumed, of all weights constants */
} Out;

static uint64_t out_pos(const Out *o) { return o->buf_off + o->len; }

static int write_at(Out *o, const void *data, uint64_t n, uint64_t off) {
    const uint8_t *p = data;
    while (n) {
        size_t chunk = n > (256u << 20) ? (256u << 20) : (size_t)n;
        ssize_t w = pwrite(o->fd, p, chunk, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            diag_error("%s: write failed: %s", o->path, w < 0 ? strerror(errno) : "no progress");
            return -1;
        }
        p += w;
        n -= (uint64_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

static int flush(Out *o) {
    int rc = write_at(o, o->buf, o->len, o->buf_off);
    o->buf_off += o->len;
    o->len = 0;
    return rc;
}

/* Moves the output position back to `pos` (an earlier tensor end): later writes overwrite what
 * lies beyond it, and the file is truncated to its final size at the end. */
static void rewind_to(Out *o, uint64_t pos) {
    if (pos >= o->buf_off) {
        o->len = (size_t)(pos - o->buf_off);
    } else {
        o->buf_off = pos;
        o->len = 0;
    }
}

static void progress(Out *o, uint64_t n) {
    if (!o->hash) return;
    o->done += n;
    if (o->total >= PROGRESS_MIN) progress_update("writing weights", o->done, o->total);
}

/* Large spans: hash a chunk while it is in cache, write it, drop its source pages. */
static int write_direct(Out *o, const uint8_t *p, uint64_t n) {
    if (flush(o)) return -1;
    while (n) {
        size_t c = n > CHUNK ? CHUNK : (size_t)n;
        if (o->hash) XXH64_update(o->hash, p, c);
        if (write_at(o, p, c, o->buf_off)) return -1;
        file_map_release(p, c);
        o->buf_off += c;
        progress(o, c);
        p += c;
        n -= c;
    }
    return 0;
}

static int sink(void *ctx, const void *bytes, uint64_t n) {
    Out *o = ctx;
    if (n >= DIRECT_MIN) return write_direct(o, bytes, n);
    if (o->hash) XXH64_update(o->hash, bytes, (size_t)n);
    if (o->len + n > BUF_SIZE && flush(o)) return -1;
    memcpy(o->buf + o->len, bytes, (size_t)n);
    o->len += (size_t)n;
    progress(o, n);
    return 0;
}

static int pad_to(Out *o, uint64_t offset) {
    static const uint8_t zeros[WN_WEIGHTS_ALIGN];
    uint64_t pos = out_pos(o);
    return offset > pos ? sink(o, zeros, offset - pos) : 0;
}

/* Size of model.weights if nothing deduplicates: the preallocation and the progress total. */
static uint64_t size_without_dedup(const WritePlan *p, uint64_t *weights_bytes) {
    uint64_t off = WN_WEIGHTS_HEADER;
    *weights_bytes = 0;
    for (int i = 0; i < p->n_consts; i++) {
        const PlannedConst *c = &p->consts[i];
        if (c->kind != CONST_WEIGHTS) continue;
        uint64_t len = c->elements * file_elem_bytes(c->v->dtype); /* bounded by the plan */
        off = (off + p->align - 1) / p->align * p->align + len;
        *weights_bytes += len;
    }
    return off;
}

/* Writes constant c at the next offset while hashing it, then places it (rewinding over it when
 * it duplicates an earlier tensor). */
static int write_tensor(WritePlan *p, PlannedConst *c, Out *o, XXH64_state_t *st) {
    uint64_t start = out_pos(o);
    if (pad_to(o, wn_write_plan_next_offset(p))) return -1;
    XXH64_reset(st, 0);
    o->hash = st;
    int rc = wn_tensor_file_bytes(c->v, c->elements, sink, o);
    o->hash = NULL;
    if (rc) return -1;
    if (!wn_write_plan_place(p, c, XXH64_digest(st))) {
        rewind_to(o, start);
        const Value *first = p->tensors[c->tensor].v; /* read again by the comparison */
        file_map_release(first->data, first->nbytes);
    }
    file_map_release(c->v->data, c->v->nbytes);
    return 0;
}

int wn_weights_write_fd(WritePlan *p, int fd, const char *path) {
    Out o = {.fd = fd, .path = path};
    uint64_t upper = size_without_dedup(p, &o.total);
    /* A hint: allocating the blocks at once is cheaper than block by block.  fallocate, not
     * posix_fallocate (never emulated by writing zeros); failures (no support, no space for the
     * undeduplicated size) are left to the writes to report. */
    if (upper > WN_WEIGHTS_HEADER) (void)fallocate(fd, 0, 0, (off_t)upper);
    o.buf = malloc(BUF_SIZE);
    XXH64_state_t *st = XXH64_createState();
    if (!o.buf || !st) abort();
    static const uint8_t header[WN_WEIGHTS_HEADER] = {'W', 'G', 'W', 'T', 1, 0, 0, 0};
    int rc = sink(&o, header, sizeof header);
    for (int i = 0; i < p->n_consts && !rc; i++)
        if (p->consts[i].kind == CONST_WEIGHTS) rc = write_tensor(p, &p->consts[i], &o, st);
    if (!rc) rc = flush(&o);
    if (!rc && ftruncate(fd, (off_t)p->weights_size) != 0) {
        diag_error("%s: cannot set its size: %s", path, strerror(errno));
        rc = -1;
    }
    progress_done();
    XXH64_freeState(st);
    free(o.buf);
    return rc ? -1 : 0;
}

void wn_manifest_emit(const WritePlan *p, TextBuf *b) {
    wn_tb_puts(b, "{\n  \"format\": \"wg-weights-manifest\",\n  \"version\": 1,\n  \"endianness\": \"little\",\n"
               "  \"tensors\": {");
    for (int i = 0; i < p->n_tensors; i++) {
        const PlannedTensor *t = &p->tensors[i];
        wn_tb_puts(b, i ? ",\n    " : "\n    ");
        wn_tb_json_string(b, t->v->name);
        wn_tb_puts(b, ": {\"dataType\": ");
        wn_tb_json_string(b, dtype_name(t->v->dtype));
        wn_tb_puts(b, ", \"shape\": ");
        wn_form_shape(b, NULL, t->v, FORM_JSON); /* static: checked by the plan */
        wn_tb_printf(b, ", \"byteOffset\": %" PRIu64 ", \"byteLength\": %" PRIu64
                     ", \"layout\": \"row-major\", \"xxhash64\": \"%016" PRIx64 "\"}",
                  t->offset, t->length, t->hash);
    }
    wn_tb_puts(b, p->n_tensors ? "\n  }\n}\n" : "}\n}\n");
}
