/* tensor_file.c - reading TensorProto (.pb) and NumPy (.npy) tensor files and writing .npy
 * (tensor_file.h).  Sizes are validated before allocation; .npy headers are parsed strictly
 * (little-endian or byte-sized descr, C order, shape tuple).  .npy files are written through a
 * temporary file renamed into place (outdir.h). */
#include "tensor_file.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "onnx_model.h"
#include "webnn.h"

/* Whole file, bounded by the tensor-file-size limit. */
static uint8_t *slurp(const char *path, uint64_t *len) {
    size_t n = 0;
    uint8_t *buf = (uint8_t *)input_file_read(path, LIMIT_TENSOR_FILE_BYTES, &n);
    *len = n;
    return buf;
}

static int read_pb(const char *path, TensorFile *out) {
    uint64_t len;
    uint8_t *buf = slurp(path, &len);
    if (!buf) return -1;
    int rc = -1;
    Onnx__TensorProto *t = NULL;
    Graph *g = NULL;
    if (onnx_wire_check(buf, (size_t)len, &onnx__tensor_proto__descriptor, path) < 0) goto done;
    t = onnx__tensor_proto__unpack(NULL, (size_t)len, buf);
    if (!t) {
        diag_error("%s: not an ONNX TensorProto", path);
        goto done;
    }
    g = graph_new("tensor");
    OnnxTensorData d;
    if (!g || onnx_tensor_read(NULL, g, t, &d) < 0) goto done;
    out->name = strdup(t->name && t->name[0] ? t->name : "");
    out->dtype = d.dtype;
    out->rank = d.rank;
    memcpy(out->shape, d.shape, sizeof d.shape);
    out->nbytes = d.nbytes;
    out->data = malloc(d.nbytes ? (size_t)d.nbytes : 1);
    if (!out->name || !out->data) {
        diag_error("%s: out of memory", path);
        goto done;
    }
    if (d.nbytes) memcpy(out->data, d.data, (size_t)d.nbytes);
    rc = 0;
done:
    if (t) onnx__tensor_proto__free_unpacked(t, NULL);
    graph_free(g);
    free(buf);
    return rc;
}

static const struct {
    const char *descr;
    DType dt;
} npy_types[] = {{"<f4", DT_F32}, {"<f2", DT_F16}, {"<i4", DT_I32}, {"<u4", DT_U32}, {"<i8", DT_I64},
                 {"<u8", DT_U64}, {"|i1", DT_I8},  {"|u1", DT_U8},  {"|b1", DT_U8}};

static const char *find_key(const char *hdr, const char *key) {
    const char *p = strstr(hdr, key);
    if (!p) return NULL;
    p += strlen(key);
    while (*p == ' ' || *p == ':') p++;
    return p;
}

static int read_npy(const char *path, TensorFile *out) {
    uint64_t len;
    uint8_t *buf = slurp(path, &len);
    if (!buf) return -1;
    int rc = -1;
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        diag_error("%s: not a .npy file", path);
        goto done;
    }
    uint64_t hlen, hstart;
    if (buf[6] == 1) hlen = buf[8] | (uint64_t)buf[9] << 8, hstart = 10;
    else if (len >= 12) hlen = buf[8] | (uint64_t)buf[9] << 8 | (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24, hstart = 12;
    else hlen = UINT64_MAX, hstart = 0;
    if (hlen > len - hstart || hlen > 65536) {
        diag_error("%s: bad .npy header", path);
        goto done;
    }
    char hdr[65537];
    memcpy(hdr, buf + hstart, (size_t)hlen);
    hdr[hlen] = 0;
    const char *d = find_key(hdr, "'descr'"), *fo = find_key(hdr, "'fortran_order'"), *sh = find_key(hdr, "'shape'");
    if (!d || !fo || !sh || *d != '\'' || strncmp(fo, "False", 5) != 0 || *sh != '(') {
        diag_error("%s: unsupported .npy header (need descr, fortran_order False, shape)", path);
        goto done;
    }
    out->dtype = DT_INVALID;
    for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; i++) {
        size_t n = strlen(npy_types[i].descr);
        if (strncmp(d + 1, npy_types[i].descr, n) == 0 && d[1 + n] == '\'') out->dtype = npy_types[i].dt;
    }
    if (out->dtype == DT_INVALID) {
        diag_error("%s: unsupported .npy dtype %.8s", path, d);
        goto done;
    }
    out->rank = 0;
    uint64_t numel = 1;
    const char *p = sh + 1;
    for (;;) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ')') break;
        if (!isdigit((unsigned char)*p) || out->rank >= WN_MAX_RANK) {
            diag_error("%s: bad .npy shape", path);
            goto done;
        }
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (v > INT32_MAX || !checked_mul_u64(numel, v, &numel)) {
            diag_error("%s: .npy shape too large", path);
            goto done;
        }
        if (!input_limit_ok(LIMIT_TENSOR_ELEMENTS, numel, path, ".npy element count")) goto done;
        out->shape[out->rank++] = (int64_t)v;
        p = end;
    }
    out->nbytes = dtype_storage_bytes(out->dtype, numel);
    if (len - hstart - hlen != out->nbytes) {
        diag_error("%s: .npy holds %llu data bytes, %llu expected", path, (unsigned long long)(len - hstart - hlen),
                   (unsigned long long)out->nbytes);
        goto done;
    }
    out->data = malloc(out->nbytes ? (size_t)out->nbytes : 1);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    out->name = strndup(base, strlen(base) - 4);
    if (!out->data || !out->name) {
        diag_error("%s: out of memory", path);
        goto done;
    }
    memcpy(out->data, buf + hstart + hlen, (size_t)out->nbytes);
    rc = 0;
done:
    free(buf);
    return rc;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int onnx_tensor_file_read(const char *path, TensorFile *out) {
    memset(out, 0, sizeof *out);
    int rc = ends_with(path, ".npy") ? read_npy(path, out) : read_pb(path, out);
    if (rc < 0) onnx_tensor_file_free(out);
    return rc;
}

void onnx_tensor_file_free(TensorFile *t) {
    free(t->name);
    free(t->data);
    memset(t, 0, sizeof *t);
}

int onnx_tensor_file_write_npy(const char *path, DType dt, int rank, const int64_t *shape, const void *data) {
    const char *descr = NULL;
    for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0] && !descr; i++)
        if (npy_types[i].dt == dt) descr = npy_types[i].descr;
    if (!descr) {
        diag_error("%s: cannot write dtype %s as .npy", path, dtype_name(dt));
        return -1;
    }
    char dims[WN_MAX_RANK * 24 + 4] = "";
    uint64_t numel = 1;
    for (int d = 0; d < rank; d++) {
        size_t l = strlen(dims);
        snprintf(dims + l, sizeof dims - l, "%lld,%s", (long long)shape[d], d + 1 < rank ? " " : "");
        numel *= (uint64_t)shape[d];
    }
    if (rank > 1) dims[strlen(dims) - 1] = 0; /* (a, b) ; keep the comma for 1-d: (a,) */
    char hdr[512 + 64];
    int n = snprintf(hdr, 512, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims);
    int total = 10 + n + 1;
    int pad = (64 - total % 64) % 64;
    uint16_t hl = (uint16_t)(n + pad + 1);
    uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(hl & 0xff), (uint8_t)(hl >> 8)};
    memset(hdr + n, ' ', (size_t)pad);
    hdr[n + pad] = '\n';
    /* a temporary file renamed over path: a symlink planted at path is replaced, never followed */
    OutFile f;
    if (wn_outfile_open(&f, path) < 0) return -1;
    uint64_t nb = dtype_storage_bytes(dt, numel);
    if (wn_outfile_write(&f, pre, sizeof pre) < 0 || wn_outfile_write(&f, hdr, (size_t)(n + pad + 1)) < 0 ||
        wn_outfile_write(&f, data, (size_t)nb) < 0) {
        wn_outfile_abort(&f);
        return -1;
    }
    return wn_outfile_commit(&f);
}
