/* convert_pipeline.c - the conversion pipeline of `webnnc convert` in memory (convert_pipeline.h):
 * load -> GenAI dim defaults -> import -> passes -> verify; used by convert, generate and the
 * library API, and the fused read of a webnn-graph (run, generate). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "convert_pipeline.h"
#include "core.h"
#include "pipeline_plan.h"
#include "onnx.h"
#include "webnn.h"


const char *convert_dim_conflict(const DimSettingList *fix, const DimSettingList *dim) {
    for (int i = 0; i < fix->count; i++)
        for (int j = 0; j < dim->count; j++)
            if (strcmp(fix->items[i].name, dim->items[j].name) == 0) return fix->items[i].name;
    return NULL;
}

Graph *convert_read_webnn_fused(const char *path, unsigned fuse_mask) {
    Graph *g = webnn_read(path);
    if (g && (pipeline_run(g, PIPE_RESTORE, NULL) != 0 || fuse_run(g, fuse_mask, NULL) < 0)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

double convert_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double convert_stage_done(int verbose, const char *stage, double since) {
    double t = convert_now_s();
    if (verbose) fprintf(stderr, "webnnc: %-16s %8.3f s\n", stage, t - since);
    return t;
}

/* GenAI defaults (genai_config.h) added to the user's settings; the max length goes to *kv_capacity. */
static int genai_defaults(const OnnxModel *m, DimSettingList *fix, DimSettingList *dim, int64_t *kv_capacity) {
    if (!m->genai_config_path) return 0;
    GenaiConfig cfg;
    if (onnx_genai_config_read(m->genai_config_path, &cfg) < 0) return -1;
    /* A user bound on the total length below max_length bounds every sequence dim (a query longer
     * than the cache cannot be attended). */
    for (int i = 0; i < dim->count; i++)
        if (!strcmp(dim->items[i].name, "total_sequence_length") && dim->items[i].value < cfg.max_length)
            cfg.max_length = dim->items[i].value;
    int nf = fix->count, nd = dim->count;
    onnx_genai_default_dims(&cfg, fix->items, fix->count, dim->items, dim->count, fix->items, &nf, dim->items, &nd,
                       CONVERT_MAX_DIMS);
    fix->count = nf;
    dim->count = nd;
    *kv_capacity = cfg.max_length;
    for (int i = 0; i < dim->count; i++) /* the user's bound on the total length caps the cache */
        if (!strcmp(dim->items[i].name, "total_sequence_length")) *kv_capacity = dim->items[i].value;
    return 0;
}

Graph *convert_onnx(const char *input, const ConvertOptions *opt, size_t *onnx_nodes, int *exit_code) {
    *exit_code = WN_EXIT_BAD_INPUT;
    double t = convert_now_s();
    OnnxModel *m = onnx_model_load(input);
    if (!m) return NULL;
    *onnx_nodes = m->proto && m->proto->graph ? m->proto->graph->n_node : 0;
    convert_stage_done(opt->verbose, "load", t);
    return convert_onnx_model(m, opt, exit_code);
}

Graph *convert_onnx_model(OnnxModel *m, const ConvertOptions *opt, int *exit_code) {
    *exit_code = WN_EXIT_BAD_INPUT;
    double t = convert_now_s();
    int64_t kv_capacity = 0;
    if (genai_defaults(m, opt->fix, opt->dim, &kv_capacity) < 0) {
        onnx_model_free(m);
        return NULL;
    }
    ImportOptions iopt = {opt->fix->items, opt->fix->count, opt->dim->items, opt->dim->count};
    Graph *g = onnx_import(m, &iopt);
    if (!g) {
        onnx_model_free(m);
        return NULL;
    }
    t = convert_stage_done(opt->verbose, "import", t);

    PassOptions popt = {.verbose = opt->verbose, .kv_capacity = kv_capacity, .keep_quantized = 1, .limits = opt->limits};
    /* Spec-only baseline first (decompose, then fold/identity/DCE: folding never grows constants,
     * so int4 weights stay behind their dequantizeLinear), then the fusions of --fuse on that
     * baseline, as `webnnc ladder` and `webnnc run --fuse` do, then tidy up again; or, spec-only
     * with limits, legalized (passes/pipeline_plan.c). */
    unsigned fuse = opt->fuse_mask;
    if (pipeline_run(g, PIPE_ONNX_BASELINE, &popt) != 0 || (fuse && fuse_and_tidy(g, fuse, &popt) != 0) ||
        (!fuse && opt->limits && pipeline_run(g, PIPE_LEGALIZE, &popt) != 0)) {
        graph_free(g);
        return NULL;
    }
    t = convert_stage_done(opt->verbose, "passes", t);
    if (graph_verify(g, (fuse ? 0 : VERIFY_SPEC_ONLY) | VERIFY_EXPORTABLE) != 0) {
        graph_free(g);
        *exit_code = WN_EXIT_CHECK_FAILED;
        return NULL;
    }
    convert_stage_done(opt->verbose, "verify", t);
    *exit_code = WN_EXIT_OK;
    return g;
}
