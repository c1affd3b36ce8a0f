/* graph_load.c - graph_load_any(): ONNX model or webnn-graph into the IR (graph_load.h). */
#include "diag.h"
#include "graph_load.h"
#include "input_kind.h"
#include "webnn_io.h"

Graph *graph_load_any(const char *path, const ImportOptions *iopt, int *origin_nodes) {
    *origin_nodes = 0;
    InputKind kind = input_kind(path);
    if (kind == INPUT_WEBNN) {
        Graph *g = webnn_read(path);
        if (g) *origin_nodes = graph_node_count(g);
        return g;
    }
    if (kind != INPUT_ONNX) {
        diag_error("not an ONNX model or webnn-graph");
        return NULL;
    }
    OnnxModel *m = onnx_model_load(path);
    if (!m) return NULL;
    *origin_nodes = m->proto && m->proto->graph ? (int)m->proto->graph->n_node : 0;
    Graph *g = onnx_import(m, iopt);
    if (!g) onnx_model_free(m);
    return g;
}
