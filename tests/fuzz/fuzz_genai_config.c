/* fuzz_genai_config.c - libFuzzer harness for genai_config.json: onnx_genai_config_read and the
 * default dim settings derived from it (every setting must be positive).  Seeds: the
 * genai_config.json files of the shared models. */
#include <stdlib.h>

#include "core.h"
#include "fuzz_util.h"
#include "genai_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_write("genai_config.json", data, size);
    GenaiConfig cfg;
    diag_clear();
    if (onnx_genai_config_read(path, &cfg) != 0) {
        fuzz_require_diag();
        return 0;
    }
    DimSetting fix[8], bound[8];
    int n_fix = 0, n_bound = 0;
    onnx_genai_default_dims(&cfg, NULL, 0, NULL, 0, fix, &n_fix, bound, &n_bound, 8);
    for (int i = 0; i < n_fix; i++)
        if (fix[i].value <= 0) abort();
    for (int i = 0; i < n_bound; i++)
        if (bound[i].value <= 0) abort();
    return 0;
}
