/* fuzz_onnx_load.c - libFuzzer harness for the ONNX loader: parses the input from memory (wire
 * check + protobuf-c + model validation), decodes every initializer and node tensor attribute,
 * and imports the graph.  Writes nothing to disk; external data is refused (no model folder):
 * fuzz_onnx_dir.c covers the folder layout.  Seeds: tests/fuzz/make_seeds.py; run all harnesses
 * with tests/fuzz/run_fuzzers.sh. */
#include "fuzz_onnx_common.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_onnx_model(onnx_model_load_buffer(data, size, NULL));
    return 0;
}
