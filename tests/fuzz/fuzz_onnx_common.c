/* fuzz_onnx_common.c - decode + import of a fuzzed ONNX model, shared by fuzz_onnx_load and
 * fuzz_onnx_dir (fuzz_onnx_common.h). */
#include "fuzz_onnx_common.h"

#include "core.h"
#include "fuzz_util.h"
#include "onnx_import.h"

static void decode_tensor(OnnxModel *m, Graph *g, const Onnx__TensorProto *t) {
    OnnxTensorData d;
    diag_clear();
    if (onnx_tensor_read(m, g, t, &d) == 0) fuzz_touch(d.data, (size_t)d.nbytes);
    else fuzz_require_diag();
}

static void decode_tensors(OnnxModel *m) {
    Graph *g = graph_new("fuzz");
    const Onnx__GraphProto *gp = m->proto->graph;
    for (size_t i = 0; i < gp->n_initializer; i++) decode_tensor(m, g, gp->initializer[i]);
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t a = 0; a < gp->node[i]->n_attribute; a++)
            if (gp->node[i]->attribute[a]->t) decode_tensor(m, g, gp->node[i]->attribute[a]->t);
    graph_free(g);
}

void fuzz_onnx_model(OnnxModel *m) {
    if (!m) {
        fuzz_require_diag();
        diag_clear();
        return;
    }
    decode_tensors(m);
    diag_clear();
    ImportOptions opt = {0};
    Graph *g = onnx_import(m, &opt);
    if (g) graph_free(g); /* owns m */
    else onnx_model_free(m);
    diag_clear();
}
