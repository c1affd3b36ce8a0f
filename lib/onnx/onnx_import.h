/* onnx_import.h - ONNX graph -> IR.  Standard ops are lowered to WebNN ops by the handlers listed
 * in onnx_ops.def; subgraphs whose inputs are all constant are folded while importing. */
#ifndef WEBNNC_ONNX_IMPORT_H
#define WEBNNC_ONNX_IMPORT_H

#include "onnx_model.h"

typedef struct {
    const char *name;
    int64_t value;
} DimSetting;

typedef struct {
    const DimSetting *fix;   /* --fix NAME=N: symbolic dim frozen to a static size */
    int n_fix;
    const DimSetting *bound; /* --dim NAME=MAX: symbolic dim kept dynamic with an upper bound */
    int n_bound;
} ImportOptions;

/* Imports the model's main graph.  On success the graph owns `m` (onnx_model_attach).
 * On failure returns NULL with a diagnostic such as
 *   "unsupported op Foo (ai.onnx, opset 17) at node NAME"; `m` is still the caller's. */
Graph *onnx_import(OnnxModel *m, const ImportOptions *opt);

/* The ONNX op types the importer handles (onnx_ops.def order), domain-qualified outside the
 * default domain ("com.microsoft.MatMulNBits"); *count receives the number.  (onnx_ops_list.c) */
const char *const *onnx_supported_ops(int *count);

#endif
