/* fuzz_npy.c - libFuzzer harness for NumPy .npy input files (`webnnc run` inputs): header
 * parsing, dtype and shape, data length.  Seeds: .npy files webnnc writes (make_seeds.py). */
#include "fuzz_tensor_file.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_tensor_file("input.npy", data, size);
    return 0;
}
