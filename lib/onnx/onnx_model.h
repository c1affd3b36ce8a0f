/* onnx_model.h - loading ONNX models with protobuf-c: model files or model folders, opset
 * imports, tensors (raw_data, typed fields, external data memory-mapped with path checks). */
#ifndef WEBNNC_ONNX_MODEL_H
#define WEBNNC_ONNX_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "onnx.pb-c.h"

typedef struct OnnxModel {
    Onnx__ModelProto *proto;
    char *path;               /* the .onnx file ("<memory>" for onnx_model_load_buffer) */
    char *dir;                /* its folder: external data is resolved relative to it (or NULL) */
    char *genai_config_path;  /* genai_config.json beside the model, or NULL */
    struct OnnxMappings *maps; /* memory-mapped external data files */
} OnnxModel;

/* Deepest nesting of length-delimited submessages accepted in a model file: the protobuf-nesting
 * limit (input_limits.def), at most this. */
#define ONNX_MAX_NESTING INPUT_PROTO_NESTING_MAX

/* Loads a .onnx file, or a folder holding model.onnx (and genai_config.json, tokenizer files).
 * Returns NULL with a diagnostic (diag.h) on any problem. */
OnnxModel *onnx_model_load(const char *path);
/* Same from bytes in memory (copied by the parser; `buf` may be freed afterwards).  External
 * data is resolved relative to `dir_for_external_data`; when it is NULL, tensors that use
 * external data are refused.  Writes nothing to disk. */
OnnxModel *onnx_model_load_buffer(const void *buf, size_t len, const char *dir_for_external_data);
void onnx_model_free(OnnxModel *m);

/* Opset version imported for a domain ("" or "ai.onnx" for the default domain); 0 if absent. */
int64_t onnx_model_opset(const OnnxModel *m, const char *domain);

/* Describes a TensorProto: IR dtype, shape, and its bytes in IR layout.  Data is referenced in
 * place when possible (raw_data, mmapped external data); converted copies (typed fields, bfloat16
 * -> float32, bool -> uint8) are allocated from the graph arena.  Validates dtype, dims
 * (non-negative, rank <= WN_MAX_RANK, element count without overflow), and data length against
 * dtype x shape.  A zero-element tensor loads with nbytes 0 (the importer decides what to do).
 * Returns 0, or -1 with a diagnostic naming the tensor and the file. */
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

/* ---- lower-level pieces (used by the loader and its tests) ------------------------------- */

/* Checks that `buf` is well-formed protobuf wire format for `desc` (e.g.
 * &onnx__model_proto__descriptor): varints, lengths and wire types, and submessages of known
 * message fields nested at most ONNX_MAX_NESTING deep (iteratively, no recursion).  `file` names
 * the input in the diagnostic.  Returns 0, or -1 with a diagnostic. */
int onnx_wire_check(const uint8_t *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                    const char *file);

/* Checks a graph and its subgraphs against the node-count and string-length limits
 * (input_limits.def).  0, or -1 with a diagnostic naming `file` and the limit. */
int onnx_graph_check_limits(const Onnx__GraphProto *g, const char *file);

/* Bytes [offset, offset + length) of external data file `location` (relative to m->dir), from a
 * read-only mapping shared by all tensors of that file.  Refuses absolute paths, ".." components,
 * paths leaving the model folder (symlinks), missing or non-regular files and ranges past the
 * end.  `tensor` names the tensor in the diagnostic.  Returns NULL with a diagnostic on failure
 * (for length 0, a non-NULL pointer that must not be read). */
const void *onnx_model_external_bytes(OnnxModel *m, const char *tensor, const char *location,
                                      uint64_t offset, uint64_t length);

#endif
