/* tensor_file.h - single-tensor files for `webnnc run`: ONNX TensorProto files (input_N.pb /
 * output_N.pb, the name inside) and NumPy .npy files (name = file stem); and writing .npy. */
#ifndef WEBNNC_TENSOR_FILE_H
#define WEBNNC_TENSOR_FILE_H

#include <stdint.h>

#include "core.h"

typedef struct {
    char *name;  /* malloc'ed */
    DType dtype;
    int rank;
    int64_t shape[WN_MAX_RANK];
    void *data;  /* malloc'ed, IR layout */
    uint64_t nbytes;
} TensorFile;

/* Reads PATH (.pb or .npy).  0, or -1 with a diagnostic naming the file. */
int onnx_tensor_file_read(const char *path, TensorFile *out);
void onnx_tensor_file_free(TensorFile *t);
/* Writes a .npy file (little-endian, C order).  0 or -1 + diagnostic. */
int onnx_tensor_file_write_npy(const char *path, DType dt, int rank, const int64_t *shape, const void *data);

#endif
