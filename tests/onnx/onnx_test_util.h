/* onnx_test_util.h - helpers shared by the ONNX loader tests: a minimal valid ModelProto to add
 * tensors to, packing, and protobuf wire-byte builders (suite runner, scratch folders and files:
 * test_util.h). */
#ifndef WEBNNC_ONNX_TEST_UTIL_H
#define WEBNNC_ONNX_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "onnx_model.h"
#include "test_util.h"

#define TU_MAX_INITS 8

/* A model with ir_version 8, opset ai.onnx 17 and an empty graph "g"; storage is inline. */
typedef struct {
    Onnx__ModelProto model;
    Onnx__GraphProto graph;
    Onnx__OperatorSetIdProto opset;
    Onnx__OperatorSetIdProto *opsets[1];
    Onnx__TensorProto *inits[TU_MAX_INITS];
} TuModel;

void tu_model_init(TuModel *t);
void tu_model_add_init(TuModel *t, Onnx__TensorProto *tensor);
/* Packs a model into malloc'd bytes. */
uint8_t *tu_pack(const Onnx__ModelProto *m, size_t *len);

/* A tensor with name, ONNX data type and dims (dims copied into inline storage). */
typedef struct {
    Onnx__TensorProto t;
    int64_t dims[16];
    Onnx__StringStringEntryProto ext[3];
    Onnx__StringStringEntryProto *ext_ptrs[3];
} TuTensor;
void tu_tensor_init(TuTensor *x, const char *name, int onnx_type, int rank, const int64_t *dims);
void tu_tensor_raw(TuTensor *x, const void *data, size_t len);
/* External data: offset/length NULL to leave the key out. */
void tu_tensor_external(TuTensor *x, const char *location, const char *offset, const char *length);

/* Builds protobuf wire bytes back to front: tu_wire_wrap prefixes the bytes built so far with a
 * length-delimited field header, turning them into one field of an enclosing message. */
typedef struct {
    uint8_t *buf;
    size_t cap, start; /* content is buf[start, cap) */
} TuWire;
void tu_wire_init(TuWire *w, size_t cap);
void tu_wire_prepend(TuWire *w, const void *bytes, size_t len);
void tu_wire_varint_field(TuWire *w, unsigned field, uint64_t v);
void tu_wire_wrap(TuWire *w, unsigned field);
const uint8_t *tu_wire_data(const TuWire *w, size_t *len);
void tu_wire_free(TuWire *w);

#endif
