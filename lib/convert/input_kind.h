/* input_kind.h - tells an ONNX model (file or folder) from a webnn-graph (file or output folder). */
#ifndef WEBNNC_INPUT_KIND_H
#define WEBNNC_INPUT_KIND_H

typedef enum { INPUT_UNKNOWN, INPUT_ONNX, INPUT_WEBNN } InputKind;

/* By name: *.onnx -> ONNX, *.json and *.webnn (text form) -> webnn-graph; a folder holding
 * model.webnn.json or model.webnn -> webnn-graph,
 * any other folder -> ONNX (the loader looks for model.onnx in it).  INPUT_UNKNOWN otherwise. */
InputKind convert_input_kind(const char *path);

#endif
