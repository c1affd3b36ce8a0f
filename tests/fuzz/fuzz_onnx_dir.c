/* fuzz_onnx_dir.c - libFuzzer harness for an ONNX model folder with external data: the input is
 * split at FUZZ_PART_SEP into model.onnx | model.onnx.data | w.bin, written into a scratch folder
 * and loaded with onnx_model_load (external-data path checks, mmap, ranges), then decoded and
 * imported like fuzz_onnx_load.  Seeds: real models with the head of their data files, the
 * external-data cases of testdata/bad, a small valid external-data model (make_seeds.py). */
#include "core.h"
#include "fuzz_onnx_common.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FuzzPart p[3];
    fuzz_split(data, size, p, 3);
    fuzz_write("model.onnx", p[0].data, p[0].size);
    fuzz_write("model.onnx.data", p[1].data, p[1].size);
    fuzz_write("w.bin", p[2].data, p[2].size);
    diag_clear();
    fuzz_onnx_model(onnx_model_load(fuzz_scratch_dir()));
    return 0;
}
