/* fuzz_tensor_file.c - see fuzz_tensor_file.h. */
#include "fuzz_tensor_file.h"

#include <stdio.h>
#include <stdlib.h>

#include "core.h"
#include "fuzz_util.h"
#include "tensor_file.h"

void fuzz_tensor_file(const char *name, const uint8_t *data, size_t size) {
    const char *path = fuzz_write(name, data, size);
    TensorFile t;
    diag_clear();
    if (onnx_tensor_file_read(path, &t) != 0) {
        fuzz_require_diag();
        return;
    }
    uint64_t numel = 1;
    if (t.rank < 0 || t.rank > WN_MAX_RANK || !t.name) abort();
    for (int d = 0; d < t.rank; d++) {
        if (t.shape[d] < 0) abort();
        numel *= (uint64_t)t.shape[d];
    }
    if (dtype_storage_bytes(t.dtype, numel) != t.nbytes) {
        fprintf(stderr, "fuzz: %s reads as %llu bytes for %llu elements of %s\n", name,
                (unsigned long long)t.nbytes, (unsigned long long)numel, dtype_name(t.dtype));
        abort();
    }
    fuzz_touch(t.data, (size_t)t.nbytes);
    onnx_tensor_file_free(&t);
}
