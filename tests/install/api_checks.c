/* api_checks.c - the public API's statuses and messages beyond the README example, built like it
 * against the installed library by install_test.sh: bad paths, options and inputs give
 * WEBNNC_BAD_INPUT with one message; a fused graph validates only with allow_extensions
 * (WEBNNC_CHECK_FAILED without); dims and tensor facts; webnnc_generate_with's options and its
 * refusal to sample without the device token loop; webnnc_fuse on a read graph.
 *   api_checks MODEL.onnx TMPDIR   -> prints "api checks: N passed", exit 0 */
#include <stdio.h>
#include <string.h>
#include <webnnc/webnnc.h>

static int passed, failed;

static void expect(int got, int want, const char *what) {
    const char *msg = webnnc_last_error();
    int ok = got == want && (want == WEBNNC_OK ? msg[0] == 0 : msg[0] != 0 && !strchr(msg, '\n'));
    printf("%s %s: %s (%s)\n", ok ? "ok  " : "FAIL", what, webnnc_status_string(got), msg);
    ok ? passed++ : failed++;
}

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    ok ? passed++ : failed++;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    char out[4096], fused[4096], summary[256];
    snprintf(out, sizeof out, "%s/api-out", argv[2]);
    snprintf(fused, sizeof fused, "%s/api-fused", argv[2]);
    webnnc_model *m = NULL, *g = NULL;
    webnnc_session *s = NULL;
    webnnc_tensor *outs = NULL, info;
    int n_out = 0;
    expect(webnnc_load("/nonexistent/model.onnx", &m), WEBNNC_BAD_INPUT, "load of a missing file");
    expect(webnnc_load("notes.txt", &m), WEBNNC_BAD_INPUT, "load of an unknown kind");
    expect(webnnc_load(argv[1], &m), WEBNNC_OK, "load");
    check(webnnc_model_node_count(m) == -1 && webnnc_model_input_count(m) == -1, "no graph facts before convert");
    expect(webnnc_write(m, out, NULL), WEBNNC_BAD_INPUT, "write before convert");
    webnnc_convert_options opt;
    webnnc_convert_options_init(&opt);
    webnnc_dim fix[] = {{"batch", 1}}, dim[] = {{"batch", 4}};
    opt.fixed = fix, opt.n_fixed = 1, opt.bounded = dim, opt.n_bounded = 1;
    expect(webnnc_convert(m, &opt), WEBNNC_BAD_INPUT, "a dim both fixed and bounded");
    webnnc_convert_options_init(&opt);
    opt.fuse = "nosuchpattern";
    expect(webnnc_convert(m, &opt), WEBNNC_BAD_INPUT, "an unknown fuse pattern");
    opt.fuse = "all", opt.limits = "chromium";
    expect(webnnc_convert(m, &opt), WEBNNC_BAD_INPUT, "limits with fuse");
    opt.limits = NULL;
    expect(webnnc_convert(m, &opt), WEBNNC_OK, "convert --fuse all");
    expect(webnnc_convert(m, &opt), WEBNNC_BAD_INPUT, "convert twice");
    expect(webnnc_write(m, fused, &(webnnc_write_options){.text = 1}), WEBNNC_OK, "write fused, text form");
    expect(webnnc_validate(fused, 0, NULL, summary, sizeof summary), WEBNNC_CHECK_FAILED, "validate fused, spec ops only");
    expect(webnnc_validate(fused, 1, NULL, summary, sizeof summary), WEBNNC_OK, "validate fused, extensions allowed");
    expect(webnnc_read(fused, "none", &g), WEBNNC_OK, "read");
    expect(webnnc_model_input(g, 0, &info), WEBNNC_OK, "input facts");
    check(!strcmp(webnnc_dtype_name(info.dtype), "int64") && info.rank == 2 && info.shape[1] == 8, "input_ids is int64 [1, 8]");
    expect(webnnc_model_output(g, 5, &info), WEBNNC_BAD_INPUT, "output index out of range");
    expect(webnnc_session_create(g, -1, &s), WEBNNC_OK, "session");
    int32_t ids32[8] = {0};
    webnnc_tensor bad = {"input_ids", WEBNNC_INT32, 2, {1, 8}, ids32, sizeof ids32};
    expect(webnnc_run(s, &bad, 1, &outs, &n_out), WEBNNC_BAD_INPUT, "run with the wrong dtype");
    bad.name = "nosuchinput";
    expect(webnnc_run(s, &bad, 1, &outs, &n_out), WEBNNC_BAD_INPUT, "run with an unknown input");
    int64_t ids[8] = {1, 17, 42, 9, 7, 30, 51, 8}, next[2];
    webnnc_tensor in = {"input_ids", WEBNNC_INT64, 2, {1, 8}, ids, sizeof ids};
    expect(webnnc_run(s, &in, 1, &outs, &n_out), WEBNNC_OK, "run the fused graph");
    check(n_out == 1 && outs[0].rank == 3 && outs[0].shape[1] == 8, "one [1, 8, vocab] output");
    expect(webnnc_generate(g, -1, ids, 8, 2, next), WEBNNC_BAD_INPUT, "generate past the graph's length");
    webnnc_generate_options gopt;
    webnnc_generate_options_init(&gopt);
    int n_new = -1;
    check(gopt.temperature == 0 && gopt.top_p == 1 && gopt.n_eos == 0, "generate options: greedy defaults");
    gopt.top_p = 0;
    expect(webnnc_generate_with(g, -1, ids, 4, 2, &gopt, next, &n_new), WEBNNC_BAD_INPUT, "generate with top_p 0");
    webnnc_generate_options_init(&gopt);
    gopt.temperature = 1;
    expect(webnnc_generate_with(g, -1, ids, 4, 2, &gopt, next, &n_new), WEBNNC_BAD_INPUT,
           "sampling without KV caches (no device token loop)");
    check(n_new == 0 && strstr(webnnc_last_error(), "device token loop"), "the message names the device token loop");
    webnnc_tensors_free(outs, n_out);
    webnnc_session_free(s);
    expect(webnnc_fuse(g, "all"), WEBNNC_OK, "fuse a read graph");
    webnnc_model_free(g);
    webnnc_model_free(m);
    printf("api checks: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
