/* onnx_model.h - loading ONNX models with protobuf-c: model files or model folders, opset
 * imports, tensors (raw_data, typed fields, external data memory-mapped with path checks). */
#ifndef WEBNNC_ONNX_MODEL_H
#define WEBNNC_ONNX_MODEL_H

#include <stdint.h>

#include "ir.h"
#include "onnx.pb-c.h"

typedef struct OnnxModel {
    Onnx__ModelProto *proto;
    char *path;               /* the .onnx file */
    char *dir;                /* its folder: external data is resolved relative to it */
    char *genai_config_path;  /* genai_config.json beside the model, or NULL */
    struct OnnxMappings *maps; /* memory-mapped external data files */
} OnnxModel;

/* Loads a .onnx file, or a folder holding model.onnx (and genai_config.json, tokenizer files).
 * Returns NULL with a diagnostic (diag.h) on any problem. */
OnnxModel *onnx_model_load(const char *path);
void onnx_model_free(OnnxModel *m);

/* Opset version imported for a domain ("" or "ai.onnx" for the default domain); 0 if absent. */
int64_t onnx_model_opset(const OnnxModel *m, const char *domain);

/* Describes a TensorProto: IR dtype, shape, and its bytes in IR layout.  Data is referenced in
 * place when possible (raw_data, mmapped external data); converted copies (typed fields, bfloat16
 * -> float32, bool -> uint8) are allocated from the graph arena.  Validates dtype, dims
 * (non-negative, element count < 2^31 unless allow_large), and data length against dtype x shape.
 * Returns 0, or -1 with a diagnostic naming the tensor. */
typedef struct {
    DType dtype;
    int rank;
    int64_t shape[WN_MAX_RANK];
    const void *data;
    uint64_t nbytes;
} OnnxTensorData;
int onnx_tensor_read(OnnxModel *m, Graph *g, const Onnx__TensorProto *t, OnnxTensorData *out);

/* Hands the model (and its mappings) to the graph: freed by graph_free(). */
void onnx_model_attach(Graph *g, OnnxModel *m);

#endif
