/* fuzz_webnn_dir.c - libFuzzer harness for a webnn-graph output folder: the input is split at
 * FUZZ_PART_SEP into model.webnn.json | manifest.json | model.weights, written into a
 * scratch folder and read with webnn_read (manifest entries, WGWT header, ranges, xxHash64,
 * 4-bit repacking).  Every constant of an accepted graph is touched end to end.  Inputs of odd
 * length are read with WEBNN_READ_SKIP_HASH, so that mutated weight bytes get past the xxHash64
 * check to the code behind it; even ones check every hash.  Seeds: folders
 * that `webnnc convert` writes for the test models (make_seeds.py). */
#include "core.h"
#include "fuzz_util.h"
#include "webnn_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FuzzPart p[3];
    fuzz_split(data, size, p, 3);
    fuzz_write(WN_GRAPH_FILE, p[0].data, p[0].size);
    fuzz_write(WN_MANIFEST_FILE, p[1].data, p[1].size);
    fuzz_write(WN_WEIGHTS_FILE, p[2].data, p[2].size);
    diag_clear();
    Graph *g = webnn_read_ex(fuzz_scratch_dir(), (size & 1) ? WEBNN_READ_SKIP_HASH : 0);
    if (!g) {
        fuzz_require_diag();
        return 0;
    }
    for (int i = 0; i < g->n_values; i++) {
        const Value *v = g->values[i];
        if ((v->flags & VF_CONST) && v->data) fuzz_touch(v->data, (size_t)v->nbytes);
    }
    graph_free(g);
    return 0;
}
