/* fuzz_webnn_read.c - libFuzzer harness for the webnn-graph JSON reader (webnn_read_json with no
 * weights folder).  Every input must be rejected with a diagnostic or accepted; an accepted graph
 * must write out (webnn_write into the scratch folder), read back with its weights, and write the
 * same JSON again (the round-trip guarantee) - anything else aborts.  Seeds: tests/webnn/fuzz_seeds
 * (make_seeds.py copies them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fuzz_util.h"
#include "webnn_io.h"

static const char *scratch_out(void) {
    static char out[4200];
    if (!out[0]) snprintf(out, sizeof out, "%s/out", fuzz_scratch_dir());
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    diag_clear();
    Graph *g = webnn_read_json((const char *)data, size, NULL);
    if (!g) {
        fuzz_require_diag();
        return 0;
    }
    char *j1 = webnn_graph_json(g);
    if (!j1 || webnn_write(g, scratch_out(), NULL) != 0) {
        fprintf(stderr, "accepted graph does not write: %s\n", diag_message());
        abort();
    }
    Graph *g2 = webnn_read(scratch_out());
    if (!g2) {
        fprintf(stderr, "written graph does not read back: %s\n%s\n", diag_message(), j1);
        abort();
    }
    char *j2 = webnn_graph_json(g2);
    if (!j2 || strcmp(j1, j2) != 0) {
        fprintf(stderr, "round trip differs:\n%s\n---\n%s\n", j1, j2 ? j2 : diag_message());
        abort();
    }
    free(j1);
    free(j2);
    graph_free(g2);
    graph_free(g);
    return 0;
}
