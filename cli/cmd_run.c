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
 * total-length dim in this step's inputs (the attention_mask width).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "convert_pipeline.h"
#include "diag.h"
#include "kv_io.h"
#include "profile_report.h"
#include "tensor_compare.h"
#include "tensor_file.h"
#include "webnnc_profile.h"
#include "webnnc_runtime.h"

#define MAX_FILES 256

static const ArgSpec specs[] = {
    {"inputs", 0, ARG_VALUE, "DIR", "folder of input tensors (*.pb TensorProto or NAME.npy)"},
    {"expect", 0, ARG_VALUE, "DIR", "folder of expected outputs; compare and print PASS/FAIL"},
    {"output-dir", 0, ARG_VALUE, "DIR", "write every output as DIR/NAME.npy"},
    {"atol", 0, ARG_VALUE, "A", "absolute tolerance (default 1e-4)"},
    {"rtol", 0, ARG_VALUE, "R", "relative tolerance (default 1e-4)"},
    ARG_SPEC_DEVICE,
    {"random", 0, ARG_FLAG, NULL, "fill inputs with random values instead of --inputs"},
    {"fuse", 0, ARG_VALUE, "all|none|LIST", "fuse the loaded graph into extension ops first (as a WebNN implementation would)"},
    {"profile", 0, ARG_FLAG, NULL, "print the run's profile (as `webnnc profile`: GPU time per op type and node, host phases)"},
};

typedef struct {
    TensorFile t[MAX_FILES];
    int n;
} TensorSet;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool has_suffix(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a > b && strcmp(s + a - b, suf) == 0;
}

/* Reads every *.pb / *.npy file of dir (sorted by name). */
static int read_dir(const char *dir, TensorSet *set) {
    DIR *d = opendir(dir);
    if (!d) {
        diag_error("%s: cannot open folder (%s)", dir, strerror(errno));
        return -1;
    }
    char *names[MAX_FILES];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!has_suffix(e->d_name, ".pb") && !has_suffix(e->d_name, ".npy")) continue;
        if (n == MAX_FILES) {
            closedir(d);
            for (int i = 0; i < n; i++) free(names[i]);
            diag_error("%s: more than %d tensor files", dir, MAX_FILES);
            return -1;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            rc = tensor_file_read(path, &set->t[set->n]);
            if (rc == 0) set->n++;
        }
        free(names[i]);
    }
    return rc;
}

static void free_set(TensorSet *s) {
    for (int i = 0; i < s->n; i++) tensor_file_free(&s->t[i]);
    s->n = 0;
}

/* A file's tensor name matches a value by the value's name, its ONNX name, or the identifier the
 * converter made of it (`past.0.key` -> `past_0_key`: graphs read from JSON carry no ONNX names). */
static bool value_named(const Value *v, const char *name) {
    char id[NAME_SANITIZED_MAX];
    name_sanitize(name, id);
    return strcmp(v->name, name) == 0 || (v->origin && strcmp(v->origin, name) == 0) || strcmp(v->name, id) == 0;
}

static bool any_named(Value **vals, int nv, const char *name) {
    for (int i = 0; i < nv; i++)
        if (value_named(vals[i], name)) return true;
    return false;
}

/* Matches files to graph values; error lists missing and extra names (files naming one of `ignore`
 * are not extra). */
static int match(Value **vals, int nv, const TensorSet *set, int *file_of, const char *what, bool extra_is_error,
                 Value **ignore, int n_ignore) {
    char missing[1024] = "", extra[1024] = "";
    for (int i = 0; i < nv; i++) {
        file_of[i] = -1;
        for (int f = 0; f < set->n && file_of[i] < 0; f++)
            if (value_named(vals[i], set->t[f].name)) file_of[i] = f;
        if (file_of[i] < 0) snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", value_display_name(vals[i]));
    }
    for (int f = 0; f < set->n; f++) {
        bool used = false;
        for (int i = 0; i < nv && !used; i++) used = file_of[i] == f;
        if (!used && !any_named(ignore, n_ignore, set->t[f].name)) snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " %s", set->t[f].name);
    }
    if (missing[0] || (extra_is_error && extra[0])) {
        diag_error("%s: missing:%s%s; not in the graph:%s", what, missing[0] ? missing : " none", "", extra[0] ? extra : " none");
        return -1;
    }
    return 0;
}

static void fill_random(TensorFile *t, unsigned *seed) {
    uint64_t n = 1;
    for (int d = 0; d < t->rank; d++) n *= (uint64_t)t->shape[d];
    for (uint64_t i = 0; i < n; i++) {
        *seed = *seed * 1664525u + 1013904223u;
        double u = (double)(*seed >> 8) / 16777216.0;
        int64_t k = (int64_t)(u * 8);
        switch (t->dtype) {
        case DT_F32: ((float *)t->data)[i] = (float)(2 * u - 1); break;
        case DT_F16: ((uint16_t *)t->data)[i] = (uint16_t)(0x3800 | (*seed >> 20 & 0x3ff)); break; /* [0.5, 1) */
        case DT_I32: ((int32_t *)t->data)[i] = (int32_t)k; break;
        case DT_U32: ((uint32_t *)t->data)[i] = (uint32_t)k; break;
        case DT_I64: ((int64_t *)t->data)[i] = k; break;
        case DT_U64: ((uint64_t *)t->data)[i] = (uint64_t)k; break;
        case DT_I8: ((int8_t *)t->data)[i] = (int8_t)k; break;
        default: ((uint8_t *)t->data)[i] = (uint8_t)k; break;
        }
    }
}

static int random_inputs(Graph *g, TensorSet *set, int *file_of) {
    int64_t sym[1024];
    if (g->n_symbols > 1024 || g->n_inputs > MAX_FILES) {
        diag_error("too many symbols or inputs for --random");
        return -1;
    }
    for (int s = 0; s < g->n_symbols; s++) sym[s] = g->symbols[s].max_size < 16 ? g->symbols[s].max_size : 16;
    unsigned seed = 12345;
    for (int i = 0; i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        TensorFile *t = &set->t[set->n];
        memset(t, 0, sizeof *t);
        t->dtype = v->dtype;
        t->rank = v->rank;
        uint64_t n = 1;
        for (int d = 0; d < v->rank; d++) n *= (uint64_t)(t->shape[d] = dim_eval(g, v->shape[d], sym));
        t->nbytes = dtype_storage_bytes(v->dtype, n);
        t->name = strdup(v->name);
        t->data = malloc(t->nbytes ? (size_t)t->nbytes : 1);
        if (!t->name || !t->data) {
            diag_error("out of memory");
            return -1;
        }
        set->n++;
        fill_random(t, &seed);
        file_of[i] = i;
    }
    return 0;
}

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

/* Prints one output's comparison; returns 1 on FAIL. */
static int compare_output(const WnrtTensorInfo *info, const void *got, const TensorFile *want, double atol, double rtol) {
    bool shape_ok = info->rank == want->rank;
    for (int d = 0; shape_ok && d < info->rank; d++) shape_ok = info->shape[d] == want->shape[d];
    printf("%s [", info->name);
    for (int d = 0; d < info->rank; d++) printf("%s%lld", d ? ", " : "", (long long)info->shape[d]);
    printf("] %s", dtype_name(info->dtype));
    if (!shape_ok) {
        printf(": FAIL (expected shape differs)\n");
        return 1;
    }
    uint64_t n = 1;
    for (int d = 0; d < info->rank; d++) n *= (uint64_t)info->shape[d];
    CompareResult c;
    tensor_compare(info->dtype, got, want->dtype, want->data, n, info->rank >= 2 ? info->shape[info->rank - 1] : 0, atol,
                   rtol, &c);
    printf(": max_abs %.3g max_rel %.3g cosine %.6f", c.max_abs, c.max_rel, c.cosine);
    if (c.argmax_rows) printf(" argmax %lld/%lld", (long long)c.argmax_agree, (long long)c.argmax_rows);
    printf(" %s", c.failures ? "FAIL" : "PASS");
    if (c.failures) printf(" (%llu of %llu elements outside atol %g + rtol %g)", (unsigned long long)c.failures, (unsigned long long)n, atol, rtol);
    printf("\n");
    return c.failures ? 1 : 0;
}

/* --profile: the run's steps so far as one "run" phase, on stdout. */
static int print_profile(const Graph *g, WnrtModel *m, const ProfInfo *info, double t_begin) {
    static const char *const phase[] = {"run"};
    WnrtProfStep s;
    ProfReport rep;
    double t_end = wnrt_profile_now_ns();
    int rc = wnrt_profile_take(m, &s) < 0 || prof_report_init(&rep, g, phase, 1, false) < 0 ||
                     prof_report_step(&rep, 0, &s, t_begin, t_end) < 0
                 ? -1
                 : 0;
    if (rc == 0) prof_report_print(&rep, info, stdout);
    prof_report_free(&rep);
    return rc;
}

static int run_graph(const CliCommand *self, const ArgResult *r, Graph *g) {
    double atol, rtol;
    if (parse_double(self, args_value(r, "atol"), 1e-4, &atol) || parse_double(self, args_value(r, "rtol"), 1e-4, &rtol))
        return WN_EXIT_BAD_INPUT;
    int device;
    if (args_device(self, r, &device) < 0) return WN_EXIT_BAD_INPUT;
    static TensorSet ins, exp;
    int in_file[MAX_FILES], exp_file[MAX_FILES];
    int code = WN_EXIT_BAD_INPUT;
    WnrtContext *ctx = NULL;
    WnrtModel *m = NULL;
    void *buf = NULL, *cache = NULL;
    static int64_t shapes[MAX_FILES][WN_MAX_RANK]; /* bound shape per graph input (ONNX interface) */
    bool onnx_kv = false;                         /* a past came in the ONNX interface */
    if (g->n_inputs > MAX_FILES || g->n_outputs > MAX_FILES) {
        diag_error("too many graph inputs/outputs");
        goto done;
    }
    if (args_count(r, "random")) {
        if (random_inputs(g, &ins, in_file) < 0) goto done;
    } else if (read_dir(args_value(r, "inputs"), &ins) < 0 || match(g->inputs, g->n_inputs, &ins, in_file, "inputs", true, g->outputs, g->n_outputs) < 0)
        goto done;
    if (args_value(r, "expect") && (read_dir(args_value(r, "expect"), &exp) < 0 ||
                                    match(g->outputs, g->n_outputs, &exp, exp_file, "expected outputs", false, NULL, 0) < 0))
        goto done;
    if (!(ctx = wnrt_create(device)) || !(m = wnrt_load(ctx, g))) goto done;
    const char *no_gpu = NULL;
    if (args_count(r, "profile") && wnrt_profile_enable(m, &no_gpu) < 0) goto done;
    double t_begin = wnrt_profile_now_ns();
    for (int i = 0; i < g->n_inputs; i++) {
        const TensorFile *t = &ins.t[in_file[i]];
        if (t->dtype != g->inputs[i]->dtype) {
            diag_error("input %s: file has %s, the graph expects %s", value_display_name(g->inputs[i]), dtype_name(t->dtype),
                       dtype_name(g->inputs[i]->dtype));
            goto done;
        }
        const KvBinding *kv = kv_binding_of(g, g->inputs[i], false);
        const void *data = t->data;
        uint64_t nbytes = t->nbytes;
        int64_t shape[WN_MAX_RANK];
        memcpy(shape, t->shape, sizeof shape);
        memcpy(shapes[i], t->shape, sizeof shapes[i]);
        if (kv && t->rank == g->inputs[i]->rank && t->shape[kv->axis] != kv->capacity) {
            if (!(data = cache = kv_expand_past(kv, g->inputs[i], t->dtype, t->rank, t->shape, t->data, &nbytes))) goto done;
            shape[kv->axis] = kv->capacity;
            onnx_kv = true;
        }
        int rc = wnrt_bind_input(m, g->inputs[i]->name, data, nbytes, t->rank, shape);
        free(cache);
        cache = NULL;
        if (rc < 0) goto done;
    }
    if (wnrt_run(m) < 0) goto done;
    code = WN_EXIT_OK;
    const char *outdir = args_value(r, "output-dir");
    if (outdir && mkdir(outdir, 0755) != 0 && errno != EEXIST) {
        diag_error("%s: cannot create folder", outdir);
        code = WN_EXIT_BAD_INPUT;
        goto done;
    }
    for (int i = 0; i < g->n_outputs; i++) {
        WnrtTensorInfo info;
        if (wnrt_output_info(m, i, &info) < 0 || !(buf = malloc(info.nbytes ? (size_t)info.nbytes : 1)) ||
            wnrt_read_output(m, i, buf, info.nbytes) < 0) {
            if (!diag_has_error()) diag_error("out of memory");
            code = WN_EXIT_BAD_INPUT;
            goto done;
        }
        const KvBinding *kv = onnx_kv ? kv_binding_of(g, g->outputs[i], true) : NULL;
        int64_t total = kv ? kv_total_length(g, kv, shapes) : 0;
        if (kv && (total < 0 || kv_cut_present(kv, info.dtype, info.rank, info.shape, buf, total) < 0)) {
            code = WN_EXIT_BAD_INPUT;
            goto done;
        }
        if (outdir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.npy", outdir, info.name);
            if (tensor_file_write_npy(path, info.dtype, info.rank, info.shape, buf) < 0) {
                code = WN_EXIT_BAD_INPUT;
                goto done;
            }
        }
        if (args_value(r, "expect")) {
            if (compare_output(&info, buf, &exp.t[exp_file[i]], atol, rtol)) code = WN_EXIT_CHECK_FAILED;
        } else {
            printf("%s [", info.name);
            for (int d = 0; d < info.rank; d++) printf("%s%lld", d ? ", " : "", (long long)info.shape[d]);
            printf("] %s\n", dtype_name(info.dtype));
        }
        free(buf);
        buf = NULL;
    }
    if (args_count(r, "profile") &&
        print_profile(g, m, &(ProfInfo){r->pos[0], wnrt_context_device(ctx)->name, args_value(r, "fuse"), no_gpu, 0, 0, 0},
                      t_begin) < 0) {
        code = WN_EXIT_BAD_INPUT;
        goto done;
    }
    WnrtStats st;
    wnrt_stats(m, &st);
    fprintf(stderr, "webnnc: %s: %d dispatches, %d barriers, device memory %.1f MiB (tensors %.1f MiB after reuse of %.1f MiB, constants %.1f MiB)\n",
            wnrt_context_device(ctx)->name, st.dispatches, st.barriers, st.device_bytes / 1048576.0, st.peak_bytes / 1048576.0,
            st.intermediate_sum / 1048576.0, st.const_bytes / 1048576.0);
    if (g->n_kv) fprintf(stderr, "webnnc: KV caches: %d of %d written in place (present shares the past's buffer)\n", st.kv_aliased, g->n_kv);
done:
    free(buf);
    free(cache);
    wnrt_free(m);
    wnrt_destroy(ctx);
    free_set(&ins);
    free_set(&exp);
    return code;
}

int cmd_run(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    if (!args_value(&r, "inputs") && !args_count(&r, "random")) return cli_usage_error(self, "--inputs DIR or --random is required");
    const char *path = r.pos[0];
    diag_set_file(path);
    unsigned fuse_mask;
    if (args_fuse(&r, &fuse_mask) < 0) return WN_EXIT_BAD_INPUT;
    Graph *g = read_webnn_fused(path, fuse_mask);
    if (!g) return cli_fail(path, WN_EXIT_BAD_INPUT);
    rc = run_graph(self, &r, g);
    graph_free(g);
    if (rc == WN_EXIT_BAD_INPUT) return cli_fail(path, rc);
    return rc;
}
