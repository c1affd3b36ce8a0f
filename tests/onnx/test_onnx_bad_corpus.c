/* test_onnx_bad_corpus.c - runs the loader over testdata/bad (made by testdata/gen_bad_inputs.py):
 * cases in the loader's scope must fail with their specific message; graph-level cases (cycles,
 * dangling inputs, unknown ops...) must load, since refusing them is the importer's job. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "onnx_model.h"

static const struct {
    const char *name;
    const char *message; /* expected substring; NULL: must load (importer's job); "": any error */
} expected[] = {
    {"empty", "empty model file"},
    {"truncated", "malformed protobuf at byte"},
    {"truncated_last_byte", "malformed protobuf at byte"},
    {"random", ""},
    {"deep_recursion", "above the limit protobuf-nesting (64)"},
    {"no_graph", "no graph"},
    {"negative_dim", "negative dimension -1"},
    {"huge_dims", "element count overflows"},
    {"overflow_dims", "element count overflows"},
    {"rank9", "rank 9 exceeds"},
    {"wrong_raw_length", "raw_data has 8 bytes, expected 12"},
    {"double_initializer", "unsupported data type DOUBLE"},
    {"ext_dotdot", "must be a relative path inside the model folder"},
    {"ext_absolute", "must be a relative path inside the model folder"},
    {"ext_symlink", "resolves outside the model folder"},
    {"ext_missing", "not found"},
    {"ext_range", "past the end"},
    {"ext_length_mismatch", "does not match"},
    {"cycle", NULL},
    {"dangling_input", NULL},
    {"missing_required_input", NULL},
    {"unknown_op", NULL},
};
enum { N_EXPECTED = sizeof expected / sizeof expected[0] };

/* Loads the model and decodes every initializer; returns 0 or -1 (diagnostic set). */
static int load_all(const char *path) {
    OnnxModel *m = onnx_model_load(path);
    if (!m) return -1;
    Graph *g = graph_new("bad");
    onnx_model_attach(g, m);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < m->proto->graph->n_initializer; i++) {
        OnnxTensorData d;
        rc = onnx_tensor_read(m, g, m->proto->graph->initializer[i], &d);
    }
    graph_free(g);
    return rc;
}

int main(void) {
    const char *src = getenv("WEBNNC_SOURCE_ROOT");
    char root[1024], list[1100];
    snprintf(root, sizeof root, "%s/testdata/bad", src ? src : ".");
    snprintf(list, sizeof list, "%s/cases.txt", root);
    FILE *f = fopen(list, "r");
    if (!f) {
        fprintf(stderr, "FAIL: cannot open %s (run testdata/gen_bad_inputs.py testdata/bad)\n", list);
        return 1;
    }
    bool seen[N_EXPECTED] = {0};
    int failures = 0, cases = 0;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        char *name = strtok(line, "\t\n");
        char *input = strtok(NULL, "\t\n");
        if (!name || !input) continue;
        cases++;
        int k = 0;
        while (k < N_EXPECTED && strcmp(expected[k].name, name) != 0) k++;
        if (k == N_EXPECTED) {
            fprintf(stderr, "FAIL %s: case not listed in this test\n", name);
            failures++;
            continue;
        }
        seen[k] = true;
        char path[3200];
        snprintf(path, sizeof path, "%s/%s", root, input);
        diag_clear();
        int rc = load_all(path);
        const char *want = expected[k].message;
        if (!want && rc != 0) {
            fprintf(stderr, "FAIL %s: should load (importer's case) but: %s\n", name, diag_message());
            failures++;
        } else if (want && rc == 0) {
            fprintf(stderr, "FAIL %s: loaded, expected \"%s\"\n", name, want);
            failures++;
        } else if (want && !strstr(diag_message(), want)) {
            fprintf(stderr, "FAIL %s: message \"%s\" lacks \"%s\"\n", name, diag_message(), want);
            failures++;
        } else {
            printf("ok %s: %s\n", name, rc ? diag_message() : "loads");
        }
    }
    fclose(f);
    for (int k = 0; k < N_EXPECTED; k++)
        if (!seen[k]) {
            fprintf(stderr, "FAIL %s: missing from the corpus\n", expected[k].name);
            failures++;
        }
    printf("%d cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
