/* graph_load.c - convert_graph_load_any(), convert_graph_load_baseline() and convert_graph_load_fused(): a model input (ONNX or
 * webnn-graph) into the IR (graph_load.h). */
#include "convert_pipeline.h"
#include "core.h"
#include "pipeline_plan.h"
#include "graph_load.h"
#include "input_kind.h"
#include "webnn.h"

Graph *convert_graph_load_any(const char *path, const ImportOptions *iopt, int *origin_nodes) {
    *origin_nodes = 0;
    InputKind kind = convert_input_kind(path);
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

Graph *convert_graph_load_baseline(const char *path, DimSettingList *fix, DimSettingList *dim, int verbose, int *origin_nodes,
                           int *exit_code) {
    *origin_nodes = 0;
    *exit_code = WN_EXIT_BAD_INPUT;
    if (convert_input_kind(path) == INPUT_ONNX) {
        ConvertOptions copt = {fix, dim, 0, verbose};
        size_t onnx_nodes = 0;
        Graph *g = convert_onnx(path, &copt, &onnx_nodes, exit_code);
        *origin_nodes = onnx_nodes > (size_t)INT32_MAX ? INT32_MAX : (int)onnx_nodes;
        return g;
    }
    ImportOptions iopt = {fix->items, fix->count, dim->items, dim->count};
    Graph *g = convert_graph_load_any(path, &iopt, origin_nodes);
    PassOptions popt = {.verbose = verbose, .keep_quantized = 1};
    if (g && pipeline_run(g, PIPE_GRAPH_BASELINE, &popt) < 0) {
        graph_free(g);
        return NULL;
    }
    if (g) *exit_code = WN_EXIT_OK;
    return g;
}

Graph *convert_graph_load_fused(const char *path, const char *fuse, const DimSettingList *fix, const DimSettingList *dim,
                        int *exit_code) {
    int origin;
    unsigned mask = 0;
    *exit_code = WN_EXIT_BAD_INPUT;
    if (fuse && fuse_parse(fuse, &mask) < 0) return NULL;
    Graph *g;
    if (convert_input_kind(path) == INPUT_ONNX) {
        DimSettingList f = *fix, d = *dim; /* each load gets its own GenAI defaults */
        g = convert_graph_load_baseline(path, &f, &d, 0, &origin, exit_code);
    } else {
        ImportOptions none = {0};
        g = convert_graph_load_any(path, &none, &origin);
    }
    if (!g) return NULL;
    PassOptions popt = {.keep_quantized = 1};
    if (fuse_and_tidy(g, mask, &popt) < 0) {
        graph_free(g);
        *exit_code = WN_EXIT_BAD_INPUT;
        return NULL;
    }
    *exit_code = WN_EXIT_OK;
    return g;
}
