/* graph_load.h - loads any model input of the CLI into the IR: an ONNX model (file or folder,
 * imported) or a webnn-graph (file or output folder, read), for the commands that compare graphs
 * (ladder, diff). */
#ifndef WEBNNC_CLI_GRAPH_LOAD_H
#define WEBNNC_CLI_GRAPH_LOAD_H

#include "onnx_import.h"

/* Returns the graph (NULL with a diagnostic); *origin_nodes gets the ONNX node count (the graph's
 * node count for a webnn-graph). */
Graph *graph_load_any(const char *path, const ImportOptions *iopt, int *origin_nodes);

#endif
