/* fuzz_onnx_common.h - what the ONNX harnesses do with a loaded model (fuzz_onnx_common.c): decode
 * every initializer and tensor attribute (touching all bytes) and import the graph. */
#ifndef WEBNNC_FUZZ_ONNX_COMMON_H
#define WEBNNC_FUZZ_ONNX_COMMON_H

#include "onnx_model.h"

/* Exercises and frees `m`; a NULL model (rejected) must have left a diagnostic. */
void fuzz_onnx_model(OnnxModel *m);

#endif
