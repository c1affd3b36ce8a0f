/* fuzz_webnn_text.c - libFuzzer harness for the .webnn text reader (webnn_read_text with no
 * weights folder).  Every input must be rejected with a one-line diagnostic or accepted; an
 * accepted graph must render as text again, and that text must read back to a graph whose text is
 * the same (the round-trip guarantee) - anything else aborts.  Inputs that once crashed it go to
 * tests/fuzz/regressions/webnn_text/ (read by the webnn-text unit test).
 */
// Run (from the repository root; seeds: the text forms the round-trip tests write, and the regressions):
// CC=clang meson setup build-fuzz-webnn -Dfuzz=true && ninja -C build-fuzz-webnn tests/fuzz/fuzz_webnn_text && mkdir -p build-fuzz-webnn/corpus-text && build-fuzz-webnn/tests/fuzz/fuzz_webnn_text -max_total_time=300 -max_len=8192 -timeout=10 build-fuzz-webnn/corpus-text tests/fuzz/regressions/webnn_text
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "webnn_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    diag_clear();
    Graph *g = webnn_read_text((const char *)data, size, NULL);
    if (!g) {
        if (!diag_has_error() || strchr(diag_message(), '\n')) abort(); /* one line saying why */
        return 0;
    }
    char *t1 = webnn_graph_text(g);
    if (!t1) { /* the reader accepted what the writer cannot spell */
        fprintf(stderr, "accepted graph has no text form: %s\n", diag_message());
        abort();
    }
    Graph *g2 = webnn_read_text(t1, strlen(t1), NULL);
    char *t2 = g2 ? webnn_graph_text(g2) : NULL;
    if (!t2 || strcmp(t1, t2) != 0) {
        fprintf(stderr, "text round trip differs (%s):\n%s\n---\n%s\n", diag_message(), t1, t2 ? t2 : "");
        abort();
    }
    free(t1);
    free(t2);
    graph_free(g2);
    graph_free(g);
    return 0;
}
