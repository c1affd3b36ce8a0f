/* fuzz_onnx_load.c - libFuzzer harness for the ONNX loader: parses the input from memory (wire
 * check + protobuf-c + model validation), decodes every initializer and node tensor attribute,
 * and imports the graph.  Writes nothing to disk;
 * external data is refused (no model folder).
 */
// Run (from the repository root; corpus = shared models, ONNX node-test models, bad inputs, past crashes):
// CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz tests/fuzz/fuzz_onnx_load && mkdir -p build-fuzz/corpus && for d in ../shared/models/*-cpu ../shared/models/*-dynamo; do cp $d/model.onnx build-fuzz/corpus/$(basename $d).onnx; done; build-fuzz/tests/fuzz/fuzz_onnx_load -max_total_time=600 -max_len=65536 -timeout=10 build-fuzz/corpus testdata/bad tests/fuzz/regressions
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "onnx_model.h"
#include "onnx_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode_tensors(OnnxModel *m) {
    Graph *g = graph_new("fuzz");
    const Onnx__GraphProto *gp = m->proto->graph;
    OnnxTensorData d;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        diag_clear();
        if (onnx_tensor_read(m, g, gp->initializer[i], &d) == 0 && d.nbytes) {
            /* touch the first and last byte so ASan checks the whole range is readable */
            volatile uint8_t sink = ((const uint8_t *)d.data)[0];
            sink = ((const uint8_t *)d.data)[d.nbytes - 1];
            (void)sink;
        }
    }
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t a = 0; a < gp->node[i]->n_attribute; a++)
            if (gp->node[i]->attribute[a]->t) {
                diag_clear();
                onnx_tensor_read(m, g, gp->node[i]->attribute[a]->t, &d);
            }
    graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    diag_clear();
    OnnxModel *m = onnx_model_load_buffer(data, size, NULL);
    if (!m) return 0;
    decode_tensors(m);
    diag_clear();
    ImportOptions opt = {0};
    Graph *g = onnx_import(m, &opt);
    if (g) {
        graph_free(g); /* owns m */
        return 0;
    }
    onnx_model_free(m);
    return 0;
}
