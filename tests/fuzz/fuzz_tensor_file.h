/* fuzz_tensor_file.h - the body of the `webnnc run` input-file harnesses (fuzz_npy.c,
 * fuzz_tensor_pb.c): write the input as scratch/NAME, read it with onnx_tensor_file_read, check the
 * result is self-consistent (rank, shape x dtype = nbytes, all bytes readable). */
#ifndef WEBNNC_FUZZ_TENSOR_FILE_H
#define WEBNNC_FUZZ_TENSOR_FILE_H

#include <stddef.h>
#include <stdint.h>

void fuzz_tensor_file(const char *name, const uint8_t *data, size_t size);

#endif
