/* onnx_test_util.c - helpers shared by the ONNX loader tests (see onnx_test_util.h). */
#include "onnx_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what) {
    perror(what);
    abort();
}

void tu_model_init(TuModel *t) {
    memset(t, 0, sizeof *t);
    onnx__model_proto__init(&t->model);
    onnx__graph_proto__init(&t->graph);
    onnx__operator_set_id_proto__init(&t->opset);
    t->opset.domain = "";
    t->opset.has_version = 1;
    t->opset.version = 17;
    t->opsets[0] = &t->opset;
    t->graph.name = "g";
    t->graph.initializer = t->inits;
    t->model.has_ir_version = 1;
    t->model.ir_version = 8;
    t->model.n_opset_import = 1;
    t->model.opset_import = t->opsets;
    t->model.graph = &t->graph;
}

void tu_model_add_init(TuModel *t, Onnx__TensorProto *tensor) {
    if (t->graph.n_initializer >= TU_MAX_INITS) abort();
    t->inits[t->graph.n_initializer++] = tensor;
}

uint8_t *tu_pack(const Onnx__ModelProto *m, size_t *len) {
    *len = onnx__model_proto__get_packed_size(m);
    uint8_t *buf = malloc(*len ? *len : 1);
    if (!buf) die("malloc");
    if (onnx__model_proto__pack(m, buf) != *len) abort();
    return buf;
}

void tu_tensor_init(TuTensor *x, const char *name, int onnx_type, int rank, const int64_t *dims) {
    memset(x, 0, sizeof *x);
    onnx__tensor_proto__init(&x->t);
    x->t.name = (char *)name;
    x->t.has_data_type = 1;
    x->t.data_type = onnx_type;
    if (rank > 16) abort();
    for (int i = 0; i < rank; i++) x->dims[i] = dims[i];
    x->t.n_dims = (size_t)rank;
    x->t.dims = x->dims;
}

void tu_tensor_raw(TuTensor *x, const void *data, size_t len) {
    x->t.has_raw_data = 1;
    x->t.raw_data.len = len;
    x->t.raw_data.data = (uint8_t *)data;
}

void tu_tensor_external(TuTensor *x, const char *location, const char *offset, const char *length) {
    const char *keys[3] = {"location", "offset", "length"};
    const char *vals[3] = {location, offset, length};
    size_t n = 0;
    for (int i = 0; i < 3; i++) {
        if (!vals[i]) continue;
        onnx__string_string_entry_proto__init(&x->ext[n]);
        x->ext[n].key = (char *)keys[i];
        x->ext[n].value = (char *)vals[i];
        x->ext_ptrs[n] = &x->ext[n];
        n++;
    }
    x->t.n_external_data = n;
    x->t.external_data = x->ext_ptrs;
    x->t.has_data_location = 1;
    x->t.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

void tu_wire_init(TuWire *w, size_t cap) {
    w->buf = malloc(cap);
    if (!w->buf) die("malloc");
    w->cap = w->start = cap;
}

void tu_wire_prepend(TuWire *w, const void *bytes, size_t len) {
    if (len > w->start) abort();
    w->start -= len;
    memcpy(w->buf + w->start, bytes, len);
}

static size_t encode_varint(uint64_t v, uint8_t *out) {
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        out[n++] = b | (v ? 0x80 : 0);
    } while (v);
    return n;
}

void tu_wire_varint_field(TuWire *w, unsigned field, uint64_t v) {
    uint8_t tmp[24];
    size_t n = encode_varint((uint64_t)field << 3 | 0, tmp);
    n += encode_varint(v, tmp + n);
    tu_wire_prepend(w, tmp, n);
}

void tu_wire_wrap(TuWire *w, unsigned field) {
    uint8_t tmp[24];
    size_t n = encode_varint((uint64_t)field << 3 | 2, tmp);
    n += encode_varint(w->cap - w->start, tmp + n);
    tu_wire_prepend(w, tmp, n);
}

const uint8_t *tu_wire_data(const TuWire *w, size_t *len) {
    *len = w->cap - w->start;
    return w->buf + w->start;
}

void tu_wire_free(TuWire *w) { free(w->buf); }
