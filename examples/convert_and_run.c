/* convert_and_run.c - the README's library example: converts an ONNX decoder with libwebnnc, writes
 * and validates the output folder, reads it back, runs it and greedily picks the next token.
 *   cc convert_and_run.c $(pkg-config --cflags --libs webnnc) -o convert_and_run
 *   ./convert_and_run testdata/tiny_decoder.onnx /tmp/tiny-webnn */
#include <stdio.h>
#include <webnnc/webnnc.h>

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, webnnc_last_error());
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 3) return fprintf(stderr, "usage: %s MODEL.onnx OUTDIR\n", argv[0]), 2;
    webnnc_model *onnx, *graph;
    webnnc_session *s;
    webnnc_tensor *out;
    int n_out;
    char summary[256];
    if (webnnc_load(argv[1], &onnx) || webnnc_convert(onnx, NULL) || webnnc_write(onnx, argv[2], NULL)) return fail("convert");
    if (webnnc_validate(argv[2], 0, NULL, summary, sizeof summary)) return fail("validate");
    printf("webnnc %s: %s: %s\n", webnnc_version(), argv[2], summary);
    if (webnnc_read(argv[2], NULL, &graph) || webnnc_session_create(graph, -1, &s)) return fail("read");
    int64_t ids[8] = {1, 17, 42, 9, 7, 30, 51, 8}, next;
    webnnc_tensor in = {"input_ids", WEBNNC_INT64, 2, {1, 8}, ids, sizeof ids};
    if (webnnc_run(s, &in, 1, &out, &n_out)) return fail("run");
    const float *logits = out[0].data; /* [1, 8, vocab] float32 */
    int64_t rows = out[0].shape[1], vocab = out[0].shape[2];
    double sum = 0;
    printf("%s argmax:", out[0].name);
    for (int64_t r = 0, best = 0; r < rows; r++, best = 0) {
        for (int64_t k = 0; k < vocab; k++) {
            sum += logits[r * vocab + k];
            if (logits[r * vocab + k] > logits[r * vocab + best]) best = k;
        }
        printf(" %lld", (long long)best);
    }
    printf("\nsum %.9g\n", sum);
    if (webnnc_generate(graph, -1, ids, 8, 1, &next)) return fail("generate");
    printf("next token %lld\n", (long long)next);
    webnnc_tensors_free(out, n_out);
    webnnc_session_free(s);
    webnnc_model_free(graph);
    webnnc_model_free(onnx);
    return 0;
}
