/* cmd_bench.c - `webnnc bench [copy|matvec|matvec-int4|matvec-int4-nozp|dispatch|launch|gemm-int4|attention-prefill|all]
 * [--device N] [--size N] [--rows N] [--nodes N] [--tokens N] [--iters N] [--copy-mib N] [--json]
 * [--no-fuse]`: runtime benchmarks (not tests).
 *
 * Each benchmark builds its IR graph in code, loads it with the public runtime API (the path of
 * `webnnc run`), binds non-zero inputs, warms up (5 runs and at least 0.3 s), then times --iters
 * replays of the recorded command buffer.  Time per run is the median GPU time between two
 * timestamps the runtime writes after the input uploads and after the last node dispatch
 * (wnrt_set_timing); without timestamp support it falls back to the wall clock of wnrt_run
 * (submit + wait).  Wall-clock figures are printed as well.
 *
 *   copy         a buffer copy kernel (expand to the same shape, int64 elements) over --copy-mib
 *                MiB (default 256, 64 on CPU devices); bytes = read + write.  The runtime copies
 *                dense runs with 16-byte vector loads and stores (k_strided.c), so this is the
 *                device's copy bandwidth as our kernels see it; WEBNNC_NO_VEC_COPY=1 measures the
 *                element-by-element strided path instead.
 *   matvec       y = x . W with x float16 [1, S], W a constant float16 [S, N] (S = --size, 4096;
 *                N = --rows, default S: a projection's shape, e.g. a vocabulary head's 151936 rows
 *                of 896 as --size 896 --rows 151936); R independent products with their own weights
 *                so that R * |W| >= 256 MiB (64 MiB on CPU devices) and the weights cannot stay in
 *                the GPU's L2 (R <= 64: the weights of small shapes may); time per product = run / R;
 *                bytes = weights + x + y.
 *   matvec-int4  the same with W = transpose(dequantizeLinear(uint4 [N, S], float16 scale and uint4
 *                zero point per block of 32 along K)); bytes = packed weights + scales + zero points
 *                + x + y.
 *   matvec-int4-nozp  the same without zero points (all-zero zero points, which the rewrite
 *                drops); bytes = packed weights + scales + x + y.
 *   dispatch     a chain of --nodes (300) dependent add ops on float32 [64]; per-dispatch cost
 *                = run / nodes (every node waits on the previous one: dispatch + barrier).
 *   launch       --nodes independent add ops on float32 [64] (each x + x into its own graph
 *                output): no barrier between them, so run / nodes is the launch cost alone;
 *                `dispatch` minus `launch` is what a barrier between dependent dispatches costs.
 *   gemm-int4    matmulNBits with --tokens (512) float16 activation rows of S and a uint4 [S, S]
 *                weight (the prefill GEMM); TFLOP/s from 2 M S S.
 *   attention-prefill  groupQueryAttention over a --tokens prompt, Qwen2-0.5B's layer shape
 *                (bench_ext.c); TFLOP/s from the causal QK and PV products.
 *
 * Bandwidth benchmarks print % of the copy bandwidth measured in the same invocation (copy is run
 * first when not requested).  --no-fuse runs the generic kernels (WEBNNC_NO_FUSE=1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "bench_ext.h"
#include "core.h"
#include "webnnc_runtime.h"

static const ArgSpec specs[] = {
    {"device", 0, ARG_VALUE, "N", "Vulkan device index (see `webnnc devices`; default auto)"},
    {"size", 0, ARG_VALUE, "S", "row length S of the mat-vec benchmarks (default 4096; multiple of 32)"},
    {"rows", 0, ARG_VALUE, "N", "output rows N of the mat-vec benchmarks (default S: S x S weights)"},
    {"nodes", 0, ARG_VALUE, "N", "nodes of the dispatch and launch benchmarks (default 300)"},
    {"tokens", 0, ARG_VALUE, "N", "activation rows / prompt tokens of gemm-int4 and attention-prefill (default 512)"},
    {"iters", 0, ARG_VALUE, "N", "timed runs per benchmark (default 50)"},
    {"copy-mib", 0, ARG_VALUE, "N", "MiB copied by the copy benchmark (default 256; 64 on CPU devices)"},
    {"json", 0, ARG_FLAG, NULL, "print one JSON object instead of text"},
    {"no-fuse", 0, ARG_FLAG, NULL, "disable the plan-level mat-vec rewrites (generic kernels)"},
};

enum { B_COPY, B_MATVEC, B_MATVEC_INT4, B_MATVEC_INT4_NOZP, B_DISPATCH, B_LAUNCH, B_GEMM_INT4, B_ATTN_PREFILL, B_COUNT };
static const char *const bench_names[B_COUNT] = {"copy", "matvec", "matvec-int4", "matvec-int4-nozp", "dispatch", "launch",
                                                 "gemm-int4", "attention-prefill"};

typedef struct {
    int64_t size, rows, nodes, iters, copy_mib, tokens;
    bool cpu;
} BenchConfig;

typedef struct {
    bool done;
    char detail[128];
    int64_t repeat;      /* independent products per run (mat-vec) */
    double gpu_us, gpu_min_us, wall_us; /* per run: median GPU, min GPU, median wall */
    double bytes;        /* moved per run */
    double flops;        /* arithmetic per run (gemm-int4, attention-prefill) */
    int dispatches, barriers;
} BenchResult;

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Deterministic float16 values with the exponent bits of `base` and random mantissa and sign
 * (0x1c00: |v| < 1/128 for scales, 0x2c00: < 1/8 for weights, 0x3800: [0.5, 1) for inputs). */
static void fill_f16(uint16_t *p, uint64_t n, uint16_t base) {
    uint32_t s = 1;
    for (uint64_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        p[i] = (uint16_t)(base | ((s >> 12) & 0x3ff) | ((s >> 22) & 1) << 15);
    }
}

static void fill_bytes(uint8_t *p, uint64_t n) {
    uint32_t s = 7;
    for (uint64_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        p[i] = (uint8_t)(s >> 16);
    }
}

/* Graph-input values (benchmarks never run on zeros, which can hide work): float16 and float32
 * in (-1, 1), other dtypes random bytes. */
static void fill_input(DType dt, void *p, uint64_t n, uint64_t bytes) {
    if (dt == DT_F16) {
        fill_f16(p, n, 0x3800);
    } else if (dt == DT_F32) {
        uint32_t s = 3;
        for (uint64_t i = 0; i < n; i++) {
            s = s * 1103515245u + 12345u;
            ((float *)p)[i] = (float)((int32_t)(s >> 8) - (1 << 23)) / (float)(1 << 23);
        }
    } else {
        fill_bytes(p, bytes);
    }
}

#define WARMUP_RUNS 5
#define WARMUP_US 300000.0

/* Loads g, binds its inputs (fill_input values of their static shapes), warms up and times cfg->iters runs. */
static int time_graph(WnrtContext *ctx, Graph *g, const BenchConfig *cfg, bool *gpu_timing, BenchResult *r) {
    WnrtModel *m = wnrt_load(ctx, g);
    if (!m) return -1;
    int rc = -1;
    double *gpu = calloc((size_t)cfg->iters, sizeof *gpu), *wall = calloc((size_t)cfg->iters, sizeof *wall);
    void *data = NULL;
    if (!gpu || !wall) {
        diag_error("out of memory");
        goto done;
    }
    if (*gpu_timing && wnrt_set_timing(m, true) < 0) {
        diag_clear(); /* no timestamps: wall clock */
        *gpu_timing = false;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        int64_t shape[WN_MAX_RANK];
        uint64_t n = 1;
        for (int d = 0; d < v->rank; d++) n *= (uint64_t)(shape[d] = v->shape[d].v);
        uint64_t bytes = dtype_storage_bytes(v->dtype, n);
        free(data);
        if (!(data = calloc(bytes ? bytes : 1, 1))) {
            diag_error("out of memory");
            goto done;
        }
        fill_input(v->dtype, data, n, bytes);
        if (wnrt_bind_input(m, v->name, data, bytes, v->rank, shape) < 0) goto done;
    }
    /* warm-up: at least WARMUP_RUNS runs and WARMUP_US of wall time, so that GPU clocks have
     * left their idle state before timing (a cold H100 timed the dispatch chain at 6.8 us per
     * dispatch instead of 2.9) */
    double warm_start = now_us();
    for (int i = 0; i < WARMUP_RUNS || (now_us() - warm_start < WARMUP_US && i < 100000); i++)
        if (wnrt_run(m) < 0) goto done;
    for (int64_t i = 0; i < cfg->iters; i++) {
        double t0 = now_us();
        if (wnrt_run(m) < 0) goto done;
        wall[i] = now_us() - t0;
        double ns = 0;
        if (*gpu_timing && wnrt_last_gpu_ns(m, &ns) < 0) goto done;
        gpu[i] = *gpu_timing ? ns / 1e3 : wall[i];
    }
    WnrtStats st;
    wnrt_stats(m, &st);
    r->dispatches = st.dispatches;
    r->barriers = st.barriers;
    r->wall_us = median(wall, (int)cfg->iters);
    r->gpu_us = median(gpu, (int)cfg->iters);
    r->gpu_min_us = gpu[0];
    r->done = true;
    rc = 0;
done:
    free(gpu);
    free(wall);
    free(data);
    wnrt_free(m);
    return rc;
}

static Value *binary(Graph *g, OpId op, Value *a, Value *b) {
    Node *n = graph_new_node(g, op, NULL);
    node_add_input(g, n, a);
    node_add_input(g, n, b);
    return graph_finish(g, n);
}

static Value *input(Graph *g, const char *name, DType dt, int64_t d0, int64_t d1) {
    Dim d[2] = {dim_static(d0), dim_static(d1)};
    return graph_add_input(g, name, dt, 2, d);
}

static int bench_copy(WnrtContext *ctx, const BenchConfig *cfg, bool *ts, BenchResult *r) {
    int64_t cols = 1024, rows = cfg->copy_mib * 1024 * 1024 / 8 / cols;
    uint64_t bytes = (uint64_t)(rows * cols) * 8;
    void *data = calloc(bytes, 1);
    Graph *g = graph_new("bench_copy");
    if (!data || !g) {
        free(data);
        graph_free(g);
        diag_error("out of memory");
        return -1;
    }
    Value *c = graph_add_const(g, "src", DT_I64, 2, (int64_t[]){rows, cols}, data, bytes);
    Node *n = graph_new_node(g, OP_EXPAND, NULL);
    node_add_input(g, n, c);
    node_set_dims(g, n, "newShape", 2, (Dim[]){dim_static(rows), dim_static(cols)});
    Value *y = graph_finish(g, n);
    int rc = -1;
    if (y) {
        graph_add_output(g, y);
        rc = time_graph(ctx, g, cfg, ts, r);
    }
    r->bytes = 2.0 * (double)bytes;
    r->repeat = 1;
    snprintf(r->detail, sizeof r->detail, "%lld MiB int64, read + write%s", (long long)cfg->copy_mib,
             getenv("WEBNNC_NO_VEC_COPY") ? " (element-wise path)" : "");
    graph_free(g);
    free(data);
    return rc;
}

/* R independent products y_r = x . W_r, W_r = constant float16 [S, N] or
 * transpose(dequantizeLinear(uint4 [N, S], scale, zero point; blocks of 32 along K)); with
 * zp == false the zero points are all 0 (dropped by the rewrite, not counted as bytes moved). */
static int bench_matvec(WnrtContext *ctx, const BenchConfig *cfg, bool int4, bool zp_used, bool *ts, BenchResult *r) {
    int64_t S = cfg->size, N = cfg->rows, nb = S / 32;
    uint64_t wbytes = int4 ? (uint64_t)(N * S) / 2 : (uint64_t)(N * S) * 2;
    uint64_t sbytes = int4 ? (uint64_t)(N * nb) * 2 : 0, zbytes = int4 ? (uint64_t)(N * nb) / 2 : 0;
    uint64_t budget = (cfg->cpu ? 64ull : 256ull) << 20;
    int64_t R = (int64_t)((budget + wbytes - 1) / wbytes);
    if (R > 64) R = 64;
    void *w = malloc(wbytes), *sc = int4 ? malloc(sbytes) : NULL, *zp = int4 ? malloc(zbytes) : NULL;
    Graph *g = graph_new(int4 ? "bench_matvec_int4" : "bench_matvec");
    int rc = -1;
    if (!w || !g || (int4 && (!sc || !zp))) {
        diag_error("out of memory");
        goto done;
    }
    if (int4) {
        fill_bytes(w, wbytes);
        fill_f16(sc, sbytes / 2, 0x1c00);
        if (zp_used) fill_bytes(zp, zbytes);
        else memset(zp, 0, zbytes);
    } else {
        fill_f16(w, wbytes / 2, 0x2c00);
    }
    Value *x = input(g, "x", DT_F16, 1, S);
    for (int64_t i = 0; i < R && x; i++) {
        char name[32];
        Value *wt;
        snprintf(name, sizeof name, "w%lld", (long long)i);
        if (int4) {
            Value *q = graph_add_const(g, name, DT_U4, 2, (int64_t[]){N, S}, w, wbytes);
            Value *s = graph_add_const(g, "scale", DT_F16, 2, (int64_t[]){N, nb}, sc, sbytes);
            Value *z = graph_add_const(g, "zero_point", DT_U4, 2, (int64_t[]){N, nb}, zp, zbytes);
            Node *dq = graph_new_node(g, OP_DEQUANTIZE_LINEAR, NULL);
            node_add_input(g, dq, q);
            node_add_input(g, dq, s);
            node_add_input(g, dq, z);
            Node *t = graph_new_node(g, OP_TRANSPOSE, NULL);
            node_add_input(g, t, graph_finish(g, dq));
            node_set_ints(g, t, "permutation", 2, (int64_t[]){1, 0});
            wt = graph_finish(g, t);
        } else {
            wt = graph_add_const(g, name, DT_F16, 2, (int64_t[]){S, N}, w, wbytes);
        }
        Value *y = wt ? binary(g, OP_MATMUL, x, wt) : NULL;
        if (!y) goto done;
        graph_add_output(g, y);
    }
    if (x) rc = time_graph(ctx, g, cfg, ts, r);
    r->repeat = R;
    r->bytes = (double)R * (double)(wbytes + sbytes + (zp_used ? zbytes : 0) + (uint64_t)(S + N) * 2);
    snprintf(r->detail, sizeof r->detail, "%s %lldx%lld, %lld weight sets",
             !int4 ? "float16" : zp_used ? "uint4 (block 32, zero points)" : "uint4 (block 32, no zero points)",
             (long long)N, (long long)S, (long long)R);
done:
    graph_free(g);
    free(w);
    free(sc);
    free(zp);
    return rc;
}

/* dispatch: a chain of dependent adds; launch (independent): each x + x into its own output. */
static int bench_dispatch(WnrtContext *ctx, const BenchConfig *cfg, bool independent, bool *ts, BenchResult *r) {
    Graph *g = graph_new(independent ? "bench_launch" : "bench_dispatch");
    if (!g) {
        diag_error("out of memory");
        return -1;
    }
    Value *x = input(g, "x", DT_F32, 1, 64), *v = x;
    for (int64_t i = 0; i < cfg->nodes && v; i++) {
        v = binary(g, OP_ADD, independent ? x : v, x);
        if (v && independent) graph_add_output(g, v);
    }
    int rc = -1;
    if (v) {
        if (!independent) graph_add_output(g, v);
        rc = time_graph(ctx, g, cfg, ts, r);
    }
    r->repeat = 1;
    r->bytes = 0;
    snprintf(r->detail, sizeof r->detail, "%lld %s add nodes on float32 [64]", (long long)cfg->nodes,
             independent ? "independent" : "dependent");
    graph_free(g);
    return rc;
}

/* gemm-int4 / attention-prefill: graphs from bench_ext.c. */
static int bench_flops(WnrtContext *ctx, const BenchConfig *cfg, int which, bool *ts, BenchResult *r) {
    Graph *g = which == B_GEMM_INT4 ? bench_gemm_int4_graph(cfg->tokens, cfg->size, &r->flops, r->detail, sizeof r->detail)
                                    : bench_attention_graph(cfg->tokens, &r->flops, r->detail, sizeof r->detail);
    if (!g) return -1;
    int rc = time_graph(ctx, g, cfg, ts, r);
    r->repeat = 1;
    r->bytes = 0;
    graph_free(g);
    return rc;
}

static int parse_int(const CliCommand *self, const ArgResult *a, const char *name, int64_t def, int64_t lo, int64_t hi,
                     int64_t *out) {
    const char *s = args_value(a, name);
    *out = def;
    if (!s) return 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) {
        cli_usage_error(self, "--%s must be an integer in [%lld, %lld], got '%s'", name, (long long)lo, (long long)hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
        else putchar(*s);
    }
    putchar('"');
}

static void print_results(const WnrtDeviceInfo *d, int dev_index, const BenchConfig *cfg, bool ts, const BenchResult *res,
                          bool json) {
    const BenchResult *copy = &res[B_COPY];
    double copy_gbs = copy->done ? copy->bytes / copy->gpu_us / 1e3 : 0;
    const char *method = ts ? "gpu-timestamps" : "wall-clock";
    if (json) {
        printf("{\"device\": {\"index\": %d, \"name\": ", dev_index);
        json_string(d->name);
        printf(", \"type\": \"%s\", \"vendor_id\": %u, \"device_id\": %u, \"api\": \"%u.%u.%u\"},\n", wnrt_device_type_name(d->type),
               d->vendor_id, d->device_id, (d->api_version >> 22) & 0x7f, (d->api_version >> 12) & 0x3ff, d->api_version & 0xfff);
        printf(" \"timing\": \"%s\", \"iters\": %lld, \"results\": [", method, (long long)cfg->iters);
    } else {
        printf("device %d: %s (%s); time per run = median of %lld %s runs\n", dev_index, d->name,
               wnrt_device_type_name(d->type), (long long)cfg->iters, ts ? "GPU-timestamped" : "wall-clock timed");
    }
    bool first = true;
    for (int b = 0; b < B_COUNT; b++) {
        const BenchResult *r = &res[b];
        if (!r->done) continue;
        double per = r->gpu_us / (double)r->repeat;
        double gbs = r->bytes > 0 ? r->bytes / r->gpu_us / 1e3 : 0;
        double pct = copy_gbs > 0 && r->bytes > 0 ? 100.0 * gbs / copy_gbs : 0;
        bool chain = b == B_DISPATCH || b == B_LAUNCH;
        double per_dispatch = chain ? r->gpu_us / (double)cfg->nodes : 0;
        double per_dispatch_wall = chain ? r->wall_us / (double)cfg->nodes : 0;
        if (json) {
            printf("%s\n  {\"name\": \"%s\", \"detail\": ", first ? "" : ",", bench_names[b]);
            json_string(r->detail);
            printf(", \"run_us\": %.3f, \"run_min_us\": %.3f, \"wall_us\": %.3f, \"repeat\": %lld, \"per_item_us\": %.3f, "
                   "\"bytes\": %.0f, \"gbps\": %.3f, \"pct_of_copy\": %.2f, \"dispatches\": %d, \"barriers\": %d",
                   r->gpu_us, r->gpu_min_us, r->wall_us, (long long)r->repeat, per, r->bytes, gbs, pct, r->dispatches,
                   r->barriers);
            if (r->flops > 0) printf(", \"tflops\": %.3f", r->flops / r->gpu_us / 1e6);
            if (chain)
                printf(", \"nodes\": %lld, \"per_dispatch_us\": %.3f, \"per_dispatch_wall_us\": %.3f", (long long)cfg->nodes,
                       per_dispatch, per_dispatch_wall);
            printf("}");
        } else if (chain) {
            printf("%-12s %s: %.1f us per run (wall %.1f us), %.3f us per dispatch (wall %.3f us); %d dispatches, %d barriers\n",
                   bench_names[b], r->detail, r->gpu_us, r->wall_us, per_dispatch, per_dispatch_wall, r->dispatches, r->barriers);
        } else if (r->flops > 0) {
            printf("%-12s %s: %.1f us per run (wall %.1f us), %.2f TFLOP/s\n", bench_names[b], r->detail, r->gpu_us, r->wall_us,
                   r->flops / r->gpu_us / 1e6);
        } else {
            printf("%-12s %s: %.1f us per run (wall %.1f us)", bench_names[b], r->detail, r->gpu_us, r->wall_us);
            if (r->repeat > 1) printf(", %.2f us per product", per);
            printf(", %.1f GB/s", gbs);
            if (b != B_COPY) printf(", %.1f%% of copy", pct);
            printf("\n");
        }
        first = false;
    }
    if (json) printf("\n]}\n");
}

int cmd_bench(const CliCommand *self, int argc, char **argv) {
    ArgResult a;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 0, 1, argc, argv, &a);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *which = a.n_pos ? a.pos[0] : "all";
    bool want[B_COUNT] = {false};
    bool all = strcmp(which, "all") == 0;
    for (int b = 0; b < B_COUNT; b++) want[b] = all || strcmp(which, bench_names[b]) == 0;
    bool any = false;
    for (int b = 0; b < B_COUNT; b++) any = any || want[b];
    if (!any)
        return cli_usage_error(self,
                               "unknown benchmark '%s' (copy, matvec, matvec-int4, matvec-int4-nozp, dispatch, launch, gemm-int4, "
                               "attention-prefill or all)",
                               which);
    BenchConfig cfg;
    int64_t dev;
    if (parse_int(self, &a, "device", -1, -1, 1024, &dev) < 0 || parse_int(self, &a, "size", 4096, 32, 16384, &cfg.size) < 0 ||
        parse_int(self, &a, "rows", 0, 1, 1 << 20, &cfg.rows) < 0 ||
        parse_int(self, &a, "nodes", 300, 1, 100000, &cfg.nodes) < 0 || parse_int(self, &a, "tokens", 512, 1, 16384, &cfg.tokens) < 0 || parse_int(self, &a, "iters", 50, 1, 100000, &cfg.iters) < 0 ||
        parse_int(self, &a, "copy-mib", 0, 1, 16384, &cfg.copy_mib) < 0)
        return WN_EXIT_BAD_INPUT;
    if (cfg.size % 32) return cli_usage_error(self, "--size must be a multiple of 32 (the int4 block), got %lld", (long long)cfg.size);
    if (!cfg.rows) cfg.rows = cfg.size;
    bool matvec = want[B_MATVEC] || want[B_MATVEC_INT4] || want[B_MATVEC_INT4_NOZP];
    /* one weight set of at most 2 GiB (float16 for matvec, else uint4): host and device copies of more are a typo */
    double set_gib = (double)cfg.rows * (double)cfg.size * (want[B_MATVEC] ? 2.0 : 0.5) / (double)(1 << 30);
    if (matvec && set_gib > 2.0)
        return cli_usage_error(self, "--rows %lld x --size %lld is %.1f GiB of %s weights per set; at most 2 GiB", (long long)cfg.rows,
                               (long long)cfg.size, set_gib, want[B_MATVEC] ? "float16" : "uint4");
    if (args_count(&a, "no-fuse")) setenv("WEBNNC_NO_FUSE", "1", 1);
    WnrtContext *ctx = wnrt_create((int)dev);
    if (!ctx) return cli_fail(NULL, WN_EXIT_BAD_INPUT);
    const WnrtDeviceInfo *d = wnrt_context_device(ctx);
    cfg.cpu = d->type == WNRT_DEV_CPU;
    if (!cfg.copy_mib) cfg.copy_mib = cfg.cpu ? 64 : 256;
    if (matvec) want[B_COPY] = true; /* the reference bandwidth */
    BenchResult res[B_COUNT];
    memset(res, 0, sizeof res);
    bool ts = true;
    int err = 0;
    for (int b = 0; b < B_COUNT && !err; b++) {
        if (!want[b]) continue;
        if (b == B_COPY) err = bench_copy(ctx, &cfg, &ts, &res[b]);
        else if (b == B_DISPATCH || b == B_LAUNCH) err = bench_dispatch(ctx, &cfg, b == B_LAUNCH, &ts, &res[b]);
        else if (b == B_GEMM_INT4 || b == B_ATTN_PREFILL) err = bench_flops(ctx, &cfg, b, &ts, &res[b]);
        else err = bench_matvec(ctx, &cfg, b != B_MATVEC, b == B_MATVEC_INT4, &ts, &res[b]);
    }
    if (err) {
        wnrt_destroy(ctx);
        return cli_fail(NULL, WN_EXIT_BAD_INPUT);
    }
    print_results(d, (int)dev, &cfg, ts, res, args_count(&a, "json") > 0);
    wnrt_destroy(ctx);
    return WN_EXIT_OK;
}
