/* fuzz_tensor_pb.c - libFuzzer harness for ONNX TensorProto .pb input files (`webnnc run`
 * inputs, test_data_set_N/input_N.pb): wire check, protobuf-c, tensor decoding (typed fields,
 * raw_data, external data refused).  Seeds: the test data sets of the shared models. */
#include "fuzz_tensor_file.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_tensor_file("input_0.pb", data, size);
    return 0;
}
