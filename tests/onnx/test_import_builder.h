/* test_import_builder.h - builds small ONNX ModelProtos in C for the importer tests (inputs,
 * initializers, nodes with attributes), packs them and imports them through the real loader. */
#ifndef WEBNNC_TEST_IMPORT_BUILDER_H
#define WEBNNC_TEST_IMPORT_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "onnx_import.h"

typedef struct MB MB;

/* ONNX TensorProto.DataType codes used by the tests. */
enum { TF32 = 1, TU8 = 2, TI8 = 3, TI32 = 6, TI64 = 7, TBOOL = 9, TF16 = 10 };

/* A model importing the default domain at `opset`. */
MB *mb_new(int64_t opset);
void mb_free(MB *b);
void mb_opset(MB *b, const char *domain, int64_t version);
/* shape: comma separated sizes or names ("1,seq,4"); "" is a scalar; "?" an unknown dim. */
void mb_input(MB *b, const char *name, int elem, const char *shape);
void mb_output(MB *b, const char *name);
/* Initializer with raw bytes; shape as for mb_input (sizes only). */
void mb_init(MB *b, const char *name, int elem, const char *shape, const void *data, size_t nbytes);
/* 1-D int64 initializer ("" shape when n < 0: a scalar holding vals[0]). */
void mb_init_i64(MB *b, const char *name, int n, const int64_t *vals);
void mb_init_f32(MB *b, const char *name, const char *shape, int n, const float *vals);
/* Node with comma separated input/output names (empty entries = absent optional inputs). */
Onnx__NodeProto *mb_node(MB *b, const char *op, const char *name, const char *inputs, const char *outputs);
void mb_node_domain(MB *b, Onnx__NodeProto *n, const char *domain);
void mb_attr_i(MB *b, Onnx__NodeProto *n, const char *name, int64_t v);
void mb_attr_f(MB *b, Onnx__NodeProto *n, const char *name, float v);
void mb_attr_s(MB *b, Onnx__NodeProto *n, const char *name, const char *v);
void mb_attr_ints(MB *b, Onnx__NodeProto *n, const char *name, int count, const int64_t *v);
void mb_attr_tensor(MB *b, Onnx__NodeProto *n, const char *name, int elem, const char *shape, const void *data,
                    size_t nbytes);
/* Packs, loads (onnx_model_load_buffer) and imports; NULL with diag_message() on failure. */
Graph *mb_import(MB *b, const ImportOptions *opt);
/* Imports and asserts success (returns the graph), or failure with a message containing needle. */
Graph *mb_import_ok(MB *b, const ImportOptions *opt);
void mb_import_fails(MB *b, const ImportOptions *opt, const char *needle);

/* ---- checking the IR -------------------------------------------------------------------------- */
/* Live nodes of kind op. */
int count_op(const Graph *g, OpId op);
/* The k-th live node of kind op (0-based), or NULL. */
Node *nth_op(const Graph *g, OpId op, int k);
/* "float32[1, 8, 4]" form of a value's type (static buffer, overwritten by the next call). */
const char *type_of(const Graph *g, const Value *v);
/* Formats an integer-array option as "1,2,3" ("-" when absent; static buffer). */
const char *ints_of(const Node *n, const char *key);
/* Formats a dimension-array option as "2,seq" ("-" when absent; static buffer). */
const char *dims_of(const Graph *g, const Node *n, const char *key);

#endif
