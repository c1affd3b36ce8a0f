/* cmd_run.c - `webnnc run GRAPH|OUTDIR --inputs DIR [--expect DIR] [--output-dir DIR] [--atol A]
 * [--rtol R] [--device N] [--random]`: runs a webnn-graph on the Vulkan runtime.
 *
 * Input/expect folders hold ONNX TensorProto files (*.pb, name inside) or NAME.npy files, bound by
 * name (the ONNX name or the graph's identifier for it).
 * Missing or extra inputs are an error listing them; files in --inputs that name a graph output are
 * ignored, so one ONNX test_data_set folder (input_N.pb + output_N.pb) serves as --inputs and
 * --expect.  --random fills inputs (floats in [-1, 1), integers in [0, 8), dynamic dims at
 * min(maxSize, 16)).  With --expect each output prints shape,
 * max abs/rel error, cosine similarity, argmax agreement (last axis, float outputs) and PASS/FAIL
 * (an element passes when |a - b| <= atol + rtol * |b|; defaults atol 1e-4, rtol 1e-4); exit 1
 * on any FAIL.  --output-dir writes every output as NAME.npy.
 *
 * KV caches (graphs with Graph.kv bindings, docs/kv-cache.md): a past file in the ONNX interface
 * ([B, kvH, P, H] with P < C, P = 0 at prefill) fills rows 0..P-1 of a zeroed cache; then every
 * present comes back in the ONNX shape [B, kvH, total, H], total being the size of the binding's
 * total-length dim in this step's inputs (the attention_mask width).  Reading and binding the
 * tensors is lib/run (run_inputs.c, run_io.c, shared with webnnc_run); this file prints.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "convert.h"
#include "core.h"
#include "report.h"
#include "run.h"
#include "run_report.h"
#include "profile_report.h"
#include "webnnc_runtime.h"

static const ArgSpec specs[] = {
    {"inputs", 0, ARG_VALUE, "DIR", "folder of input tensors (*.pb TensorProto or NAME.npy)"},
    {"expect", 0, ARG_VALUE, "DIR", "folder of expected outputs; compare and print PASS/FAIL"},
    {"output-dir", 0, ARG_VALUE, "DIR", "write every output as DIR/NAME.npy"},
    {"atol", 0, ARG_VALUE, "A", "absolute tolerance (default: from the output dtype and the weights' precision, printed)"},
    {"rtol", 0, ARG_VALUE, "R", "relative tolerance (default: likewise)"},
    {"repeat", 0, ARG_VALUE, "N", "run N times (1..10000) and print min / median / p90 run times"},
    ARG_SPEC_JSON,
    ARG_SPEC_DEVICE,
    {"random", 0, ARG_FLAG, NULL, "fill inputs with random values instead of --inputs"},
    {"fuse", 0, ARG_VALUE, "all|none|LIST", "fuse the loaded graph into extension ops first (as a WebNN implementation would)"},
    {"profile", 0, ARG_FLAG, NULL, "print the run's profile (as `webnnc profile`: GPU time per op type and node, host phases)"},
};

static int parse_double(const CliCommand *self, const char *s, double def, double *out) {
    if (!s) {
        *out = def;
        return 0;
    }
    char *end;
    *out = strtod(s, &end);
    if (*end || *out < 0) return cli_usage_error(self, "not a non-negative number: %s", s);
    return 0;
}

/* wnrt_run `repeat` times (the last run's outputs are read), each timed into ms[]. */
static int run_timed(WnrtModel *m, int repeat, double *ms) {
    for (int i = 0; i < repeat; i++) {
        double t0 = convert_now_s();
        if (wnrt_run(m) < 0) return -1;
        ms[i] = (convert_now_s() - t0) * 1e3;
    }
    return 0;
}

/* --profile: the run's steps so far as one "run" phase, on stdout. */
static int print_profile(const Graph *g, WnrtModel *m, const ProfInfo *info, double t_begin) {
    static const char *const phase[] = {"run"};
    WnrtProfStep s;
    ProfReport rep;
    double t_end = wnrt_profile_now_ns();
    int rc = wnrt_profile_take(m, &s) < 0 || prof_report_init(&rep, g, phase, 1, false) < 0 ||
                     prof_report_model(&rep, m) < 0 || prof_report_step(&rep, 0, &s, t_begin, t_end) < 0
                 ? -1
                 : 0;
    if (rc == 0) prof_report_print(&rep, info, stdout);
    prof_report_free(&rep);
    return rc;
}

/* Binds every input from its file (before each run: a run may reuse input buffers), through
 * run_io (a past in the ONNX KV interface is expanded to the cache capacity). */
static int bind_inputs(WnrtModel *m, RunIo *io, const TensorSet *ins, const int *in_file) {
    const Graph *g = io->g;
    for (int i = 0; i < g->n_inputs; i++) {
        const TensorFile *t = &ins->t[in_file[i]];
        if (t->dtype != g->inputs[i]->dtype) {
            diag_error("input %s: file has %s, the graph expects %s", value_display_name(g->inputs[i]), dtype_name(t->dtype),
                       dtype_name(g->inputs[i]->dtype));
            return -1;
        }
        if (run_io_bind(io, m, i, t->rank, t->shape, t->data, t->nbytes) < 0) return -1;
    }
    return 0;
}

/* --atol, --rtol, --repeat and --device, checked before the graph is read: 0, or -1 after a usage
 * error. */
static int parse_numbers(const CliCommand *self, const ArgResult *r, int *repeat, int *device) {
    double atol, rtol, repeat_d;
    if (parse_double(self, args_value(r, "atol"), 0, &atol) || parse_double(self, args_value(r, "rtol"), 0, &rtol) ||
        parse_double(self, args_value(r, "repeat"), 1, &repeat_d))
        return -1;
    *repeat = repeat_d <= 10000 ? (int)repeat_d : 0;
    if (*repeat != repeat_d || *repeat < 1)
        return cli_usage_error(self, "--repeat takes a whole number of runs in 1..10000, not %s", args_value(r, "repeat")), -1;
    return args_device(self, r, device) < 0 ? -1 : 0;
}

/* Runs g; with report (--json) the results go into it instead of stdout. */
static int run_graph(const ArgResult *r, Graph *g, int repeat, int device, cJSON *report) {
    const char *precision = weights_precision(g);
    double *ms = NULL;
    cJSON *outputs = report ? report_add_array(report, "outputs") : NULL;
    static TensorSet ins, exp;
    int in_file[TENSOR_SET_MAX], exp_file[TENSOR_SET_MAX];
    int code = WN_EXIT_BAD_INPUT;
    WnrtContext *ctx = NULL;
    WnrtModel *m = NULL;
    void *buf = NULL;
    RunIo io = {0};
    if (g->n_inputs > TENSOR_SET_MAX || g->n_outputs > TENSOR_SET_MAX) {
        diag_error("too many graph inputs/outputs");
        goto done;
    }
    if (run_io_init(&io, g) < 0) goto done;
    if (args_count(r, "random")) {
        if (run_tensor_set_random(g, &ins, in_file) < 0) goto done;
    } else if (run_tensor_set_read_dir(args_value(r, "inputs"), &ins) < 0 || run_tensor_set_match(g->inputs, g->n_inputs, &ins, in_file, "inputs", true, g->outputs, g->n_outputs) < 0)
        goto done;
    if (args_value(r, "expect") && (run_tensor_set_read_dir(args_value(r, "expect"), &exp) < 0 ||
                                    run_tensor_set_match(g->outputs, g->n_outputs, &exp, exp_file, "expected outputs", false, NULL, 0) < 0))
        goto done;
    if (!(ctx = wnrt_create(device)) || !(m = wnrt_load(ctx, g))) goto done;
    const char *no_gpu = NULL;
    if (args_count(r, "profile") && wnrt_profile_enable(m, &no_gpu) < 0) goto done;
    double t_begin = wnrt_profile_now_ns();
    if (!(ms = malloc((size_t)repeat * sizeof *ms))) abort();
    for (int k = 0; k < repeat; k++) {
        if (bind_inputs(m, &io, &ins, in_file) < 0) goto done;
        if (run_timed(m, 1, ms + k) < 0) goto done;
    }
    code = WN_EXIT_OK;
    const char *outdir = args_value(r, "output-dir");
    if (outdir && mkdir(outdir, 0755) != 0 && errno != EEXIST) {
        diag_error("%s: cannot create folder", outdir);
        code = WN_EXIT_BAD_INPUT;
        goto done;
    }
    for (int i = 0; i < g->n_outputs; i++) {
        WnrtTensorInfo info;
        if (!(buf = run_io_read(&io, m, i, &info))) {
            code = WN_EXIT_BAD_INPUT;
            goto done;
        }
        if (outdir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.npy", outdir, info.name);
            if (onnx_tensor_file_write_npy(path, info.dtype, info.rank, info.shape, buf) < 0) {
                code = WN_EXIT_BAD_INPUT;
                goto done;
            }
        }
        Tolerance tol = tolerance_for(info.dtype, precision, args_value(r, "atol"), args_value(r, "rtol"));
        const TensorFile *want = args_value(r, "expect") ? &exp.t[exp_file[i]] : NULL;
        if (run_report_output(outputs, &info, buf, want, &tol)) code = WN_EXIT_CHECK_FAILED;
        free(buf);
        buf = NULL;
    }
    if (repeat > 1 || report) run_report_timing(report, ms, repeat);
    if (args_count(r, "profile") &&
        print_profile(g, m, &(ProfInfo){r->pos[0], wnrt_context_device(ctx)->name, args_value(r, "fuse"), no_gpu, 0, 0, 0},
                      t_begin) < 0) {
        code = WN_EXIT_BAD_INPUT;
        goto done;
    }
    WnrtStats st;
    wnrt_stats(m, &st);
    if (report) {
        cJSON_AddStringToObject(report, "device", wnrt_context_device(ctx)->name);
        cJSON_AddStringToObject(report, "weightsPrecision", precision);
        cJSON *j = report_add_object(report, "stats");
        cJSON_AddNumberToObject(j, "dispatches", st.dispatches);
        cJSON_AddNumberToObject(j, "ioDispatches", st.io_dispatches);
        cJSON_AddNumberToObject(j, "barriers", st.barriers);
        cJSON_AddNumberToObject(j, "deviceBytes", (double)st.device_bytes);
    }
    char io_note[64] = "";
    if (st.io_dispatches) snprintf(io_note, sizeof io_note, " (%d of them input/output copies)", st.io_dispatches);
    fprintf(stderr, "webnnc: %s: %d dispatches%s, %d barriers, device memory %.1f MiB (tensors %.1f MiB after reuse of %.1f MiB, constants %.1f MiB)\n",
            wnrt_context_device(ctx)->name, st.dispatches, io_note, st.barriers, st.device_bytes / 1048576.0, st.peak_bytes / 1048576.0,
            st.intermediate_sum / 1048576.0, st.const_bytes / 1048576.0);
    if (g->n_kv) fprintf(stderr, "webnnc: KV caches: %d of %d written in place (present shares the past's buffer)\n", st.kv_aliased, g->n_kv);
done:
    free(ms);
    free(buf);
    wnrt_free(m);
    wnrt_destroy(ctx);
    run_tensor_set_free(&ins);
    run_tensor_set_free(&exp);
    run_io_free(&io);
    return code;
}

int cmd_run(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    if (!args_value(&r, "inputs") && !args_count(&r, "random")) return cli_usage_error(self, "--inputs DIR or --random is required");
    const char *path = r.pos[0];
    int repeat, device;
    if (parse_numbers(self, &r, &repeat, &device) < 0) return WN_EXIT_BAD_INPUT;
    cJSON *report = args_count(&r, "json") ? report_new(self->name) : NULL;
    if (report) cJSON_AddStringToObject(report, "graph", path);
    diag_set_file(path);
    unsigned fuse_mask;
    if (args_fuse(&r, &fuse_mask) < 0) return report ? report_end(report, WN_EXIT_BAD_INPUT) : WN_EXIT_BAD_INPUT;
    Graph *g = convert_read_webnn_fused(path, fuse_mask);
    if (!g) return report_fail(report, path, WN_EXIT_BAD_INPUT);
    rc = run_graph(&r, g, repeat, device, report);
    graph_free(g);
    if (rc == WN_EXIT_BAD_INPUT) return report_fail(report, path, rc);
    return report ? report_end(report, rc) : rc;
}
