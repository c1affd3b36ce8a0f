/* onnx.h - what lib/onnx offers the floors above (its one public header): the ONNX model and its
 * external data (onnx_model.h), its import into the IR (onnx_import.h), genai_config.json
 * (genai_config.h) and tensor files (.pb / .npy, tensor_file.h). */
#ifndef WEBNNC_ONNX_H
#define WEBNNC_ONNX_H

#include "genai_config.h"
#include "onnx_import.h"
#include "onnx_model.h"
#include "tensor_file.h"

#endif
