/* pipeline_plan.c - THE pipeline table (pipeline_plan.h): the pass sequences of every phase
 * (baselines, tidy-up, legalization, restore, last logits), the fusion patterns with their ladder
 * stages, and the `--fuse all|none|LIST` parser and runner. */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "pipeline_plan.h"

const char *const fuse_stage_labels[] = {"+matmulNBits", "+GQA", "+norms and rotary", "+silu and gelu", "+qkv and gatedMlp"};
const int fuse_stage_count = (int)(sizeof fuse_stage_labels / sizeof *fuse_stage_labels);

/* Stage 0 (labelled "+matmulNBits") recovers both quantized-weight ops.  Run order matters: GQA before the norms and rotary it contains (the ORT form), torch attention
 * after the norms and rotary (it takes their q/k norms and rotations, per-token ones included),
 * projections before qkv/gatedMlp. */
const FusePattern fuse_patterns[] = {
    {"matmulNBits", "fuse_matmul_nbits", 0},
    {"gatherBlockQuantized", "fuse_gather_block_quantized", 0},
    {"gqa", "fuse_gqa", 1},
    {"rmsNorm", "fuse_rms_norm", 2},
    {"rotary", "fuse_rotary", 2},
    {"torchRotary", "fuse_torch_rotary", 2},
    {"torchAttention", "fuse_torch_attention", 1},
    {"silu", "fuse_silu", 3},
    {"gelu", "fuse_gelu", 3},
    {"qkv", "fuse_qkv", 4},
    {"gatedMlp", "fuse_gated_mlp", 4},
};
const int fuse_pattern_count = (int)(sizeof fuse_patterns / sizeof *fuse_patterns);

int fuse_parse(const char *spec, unsigned *mask) {
    *mask = 0;
    if (!spec || strcmp(spec, "none") == 0) return 0;
    if (strcmp(spec, "all") == 0) {
        for (int i = 0; i < fuse_pattern_count; i++)
            if (pass_find(fuse_patterns[i].pass)) *mask |= 1u << i;
        return 0;
    }
    const char *p = spec;
    while (*p) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int i = 0; i < fuse_pattern_count && found < 0; i++)
            if (strlen(fuse_patterns[i].name) == len && strncmp(p, fuse_patterns[i].name, len) == 0) found = i;
        if (found < 0 || !pass_find(fuse_patterns[found].pass)) {
            char names[256] = "";
            for (int i = 0; i < fuse_pattern_count; i++)
                if (pass_find(fuse_patterns[i].pass))
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? " " : "", fuse_patterns[i].name);
            diag_error("--fuse: unknown pattern '%.*s' (known: all, none, %s)", (int)(len > 64 ? 64 : len), p, names);
            return -1;
        }
        *mask |= 1u << found;
        p += len;
        if (*p == ',') p++;
    }
    return 0;
}

int fuse_run(Graph *g, unsigned mask, const PassOptions *opt) {
    for (int i = 0; i < fuse_pattern_count; i++) {
        if (!(mask & (1u << i))) continue;
        const char *name = fuse_patterns[i].pass;
        if (pass_run_list(g, &name, 1, opt) < 0) return -1;
    }
    static const char *const tail[] = {"dce"};
    return mask ? pass_run_list(g, tail, 1, opt) : 0;
}

/* The phases.  Both baselines decompose every extension op; an imported ONNX model first re-splits
 * compound dims and gives the KV cache its capacity, a read webnn-graph folds before decomposing
 * (its constants may feed the ops being decomposed). */
#define DECOMPOSE "decompose_matmul_nbits", "decompose_rms_norm", "decompose_rotary", \
                  "decompose_gather_block_quantized", "decompose_quick_gelu", "decompose_gqa"
#define TIDY "fold_constants", "identity", "dce"
static const char *const onnx_baseline[] = {"compound_dims", "kv_cache", DECOMPOSE, TIDY, NULL};
static const char *const graph_baseline[] = {"kv_cache", TIDY, DECOMPOSE, "identity", "dce", NULL};
static const char *const tidy[] = {TIDY, NULL};
static const char *const legalize[] = {"legalize_limits", "dce", NULL};
static const char *const restore[] = {"restore_scatter", NULL};
static const char *const last_logits[] = {"last_logits", NULL};
static const char *const *const pipelines[PIPE_COUNT] = {
    [PIPE_ONNX_BASELINE] = onnx_baseline, [PIPE_GRAPH_BASELINE] = graph_baseline, [PIPE_TIDY] = tidy,
    [PIPE_LEGALIZE] = legalize,           [PIPE_RESTORE] = restore,               [PIPE_LAST_LOGITS] = last_logits,
};

const char *const *pipeline_passes(Pipeline p) { return p >= 0 && p < PIPE_COUNT ? pipelines[p] : NULL; }

int pipeline_run(Graph *g, Pipeline p, const PassOptions *opt) {
    const char *const *names = pipeline_passes(p);
    if (!names) {
        diag_error("internal: unknown pipeline %d", (int)p);
        return -1;
    }
    int n = 0;
    while (names[n]) n++;
    return pass_run_list(g, names, n, opt);
}

unsigned fuse_stage_mask(int stage) {
    unsigned mask = 0;
    for (int i = 0; i < fuse_pattern_count; i++)
        if (fuse_patterns[i].stage <= stage && pass_find(fuse_patterns[i].pass)) mask |= 1u << i;
    return mask;
}

int fuse_and_tidy(Graph *g, unsigned mask, const PassOptions *opt) {
    if (!mask) return 0;
    return fuse_run(g, mask, opt) < 0 ? -1 : pipeline_run(g, PIPE_TIDY, opt);
}
