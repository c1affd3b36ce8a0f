/* test_rt_ext_gqa.c - the groupQueryAttention kernel (prep + online-softmax attention) on the Vulkan
 * runtime against the CPU reference (lib/eval/eval_gqa.c, ORT semantics): decode and prefill, packed
 * and separate QKV, grouped heads, per-batch seqlensK, rotary (half / interleaved, partial, position
 * ids), q/k norm, local window, softcap, attention bias, smooth softmax / head sink, caches longer
 * than a workgroup's chunk, float32 and float16, decode in one dispatch (ext_gqa_dec_fused.comp), on
 * ext_gqa_attn_dec.comp (keys over subgroups) and on ext_gqa_attn.comp; outputs and both presents compared.  C = 0: the
 * form without a KV cache (no pastKey/pastValue/seqlensK/totalSequenceLength, one output).  Float16 prefill with head
 * sizes a multiple of 16 runs on NV cooperative matrices where the device has them (ext_gqa_attn_flash_coop.comp),
 * and one case on that kernel's emulated build everywhere (ext_gqa_attn_flash_coop_emu.comp). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "rt_env.h"
#include "test_rt_ext.h"

typedef struct {
    DType dt;
    int64_t B, S, N, KV, H, C;
    int64_t seqlens[2];
    bool packed;
    int rotary;       /* 0 off, rot channels otherwise */
    bool interleaved, pos_ids, qk_norm, bias, sink, smooth;
    int64_t window;
    double softcap;
} GqaCase;

/* Whether the runtime runs the case's attention on the cooperative-matrix kernel (runtime/k_gqa.c
 * flash_coop_wg: float16 prefill with a cache, head size a multiple of 16 up to 128, the kernel's shared
 * memory (flash_coop_shared); natively on NV cooperative matrices with subgroup arithmetic, or emulated
 * on any device under WEBNNC_FLASH_COOP=emulate). */
static bool flash_coop(GqaCase c) {
    const WnrtDeviceInfo *dev = wnrt_context_device(rt_ctx);
    const char *e = getenv("WEBNNC_FLASH_COOP");
    bool emulate = e && strcmp(e, "emulate") == 0, native = dev->coopmat_nv && dev->subgroup_arithmetic && !(e && e[0] == '0');
    uint64_t shared = (uint64_t)(2 * 32 * (c.H + 8) * 2 + 4 * 16 * (36 * 4 + 40 * 2 + 16 * 4)) + (emulate ? 512 : 0);
    return (emulate || native) && c.dt == DT_F16 && c.C && c.S >= 2 && c.H % 16 == 0 && c.H <= 128 &&
           dev->max_shared_memory >= shared && !wnrt_env_flag("WEBNNC_NO_FLASH_ATTN", false);
}

/* The graph of case c: its groupQueryAttention node in *node, a name for failures in label. */
static Graph *gqa_graph(GqaCase c, Node **node, char label[160]) {
    Graph *g = graph_new("t");
    unsigned s = 31 + (unsigned)(c.S * 7 + c.C);
    Value *in[GQA_SLOTS] = {0};
    int64_t qw = (c.packed ? c.N + 2 * c.KV : c.N) * c.H;
    in[GQA_QUERY] = ext_rand(g, "q", c.dt, 3, (int64_t[]){c.B, c.S, qw}, &s, -1, 1);
    if (!c.packed) {
        in[GQA_KEY] = ext_rand(g, "k", c.dt, 3, (int64_t[]){c.B, c.S, c.KV * c.H}, &s, -1, 1);
        in[GQA_VALUE] = ext_rand(g, "v", c.dt, 3, (int64_t[]){c.B, c.S, c.KV * c.H}, &s, -1, 1);
    }
    if (c.C) {
        int64_t cache[4] = {c.B, c.KV, c.C, c.H};
        in[GQA_PAST_KEY] = ext_rand(g, "pk", c.dt, 4, cache, &s, -1, 1);
        in[GQA_PAST_VALUE] = ext_rand(g, "pv", c.dt, 4, cache, &s, -1, 1);
        int64_t total = 0;
        for (int b = 0; b < c.B; b++) total = c.seqlens[b] + 1 > total ? c.seqlens[b] + 1 : total;
        in[GQA_SEQLENS_K] = ext_ints(g, "seqlens", DT_I32, 1, (int64_t[]){c.B}, c.seqlens);
        in[GQA_TOTAL_SEQ] = ext_ints(g, "total", DT_I32, 0, NULL, &total);
    }
    int64_t max_pos = (c.C ? c.C : c.S) + 4;
    if (c.rotary) {
        int64_t cs[2] = {max_pos, c.rotary / 2};
        in[GQA_COS] = ext_rand(g, "cos", c.dt, 2, cs, &s, -1, 1);
        in[GQA_SIN] = ext_rand(g, "sin", c.dt, 2, cs, &s, -1, 1);
        if (c.pos_ids) {
            int64_t ids[512];
            ck_assert_int_le(c.B * c.S, 512);
            for (int64_t i = 0; i < c.B * c.S; i++) ids[i] = (i * 5 + 3) % max_pos;
            in[GQA_POSITION_IDS] = ext_ints(g, "pos", DT_I64, 2, (int64_t[]){c.B, c.S}, ids);
        }
    }
    if (c.bias) in[GQA_ATTENTION_BIAS] = ext_rand(g, "bias", c.dt, 4, (int64_t[]){1, c.N, c.S, c.C}, &s, -2, 2);
    if (c.sink) in[GQA_HEAD_SINK] = ext_rand(g, "sink", c.dt, 1, (int64_t[]){c.N}, &s, -1, 2);
    if (c.qk_norm) {
        in[GQA_Q_NORM] = ext_rand(g, "qn", c.dt, 1, (int64_t[]){c.H}, &s, 0.5, 1.5);
        in[GQA_K_NORM] = ext_rand(g, "kn", c.dt, 1, (int64_t[]){c.H}, &s, 0.5, 1.5);
    }
    int last = GQA_SLOTS - 1;
    while (!in[last]) last--;
    Node *n = graph_new_node(g, OP_GROUP_QUERY_ATTENTION, "gqa");
    for (int i = 0; i <= last; i++) node_add_input(g, n, in[i]);
    node_set_uint(g, n, "numHeads", c.N);
    node_set_uint(g, n, "kvNumHeads", c.KV);
    if (c.rotary) node_set_bool(g, n, "doRotary", true);
    if (c.interleaved) node_set_bool(g, n, "rotaryInterleaved", true);
    if (c.smooth) node_set_bool(g, n, "smoothSoftmax", true);
    if (c.window) node_set_int(g, n, "localWindowSize", c.window);
    if (c.softcap) node_set_float(g, n, "softcap", c.softcap);
    ck_assert_msg(graph_insert_node(g, n) == 0, "%s", diag_message());
    snprintf(label, 160, "gqa %s B %lld S %lld N %lld/%lld H %lld C %lld packed %d rot %d norm %d window %lld",
             dtype_name(c.dt), (long long)c.B, (long long)c.S, (long long)c.N, (long long)c.KV, (long long)c.H,
             (long long)c.C, c.packed, c.rotary, c.qk_norm, (long long)c.window);
    *node = n;
    return g;
}

/* ext_check of n at the tolerances of the kernels without cooperative matrices: one float16 output rounding,
 * or float32 sums. */
static void check_outputs(Graph *g, Node *n, GqaCase c, const char *label) {
    ext_check(g, n, c.dt == DT_F16 ? 2e-3 : 2e-5, c.dt == DT_F16 ? 1e-3 : 2e-6, label);
}

static void check_gqa(GqaCase c) {
    Node *n;
    char label[160];
    Graph *g = gqa_graph(c, &n, label);
    /* float16: one output rounding; on the cooperative-matrix kernel also the probabilities rounded to
     * float16 before P V (relative 2^-11 per weight) and, natively, the tensor cores' float32 sums (which
     * runtime/shaders/nbits_tile.glsl found to cost up to ~10 float16 ulps): an absolute 4e-3 there (the
     * outputs, means of values in [-1, 1], stay within 1), and the largest difference printed */
    if (flash_coop(c)) {
        const char *e = getenv("WEBNNC_FLASH_COOP");
        double worst = ext_check(g, n, 0, 4e-3, label);
        printf("%s: cooperative-matrix flash attention%s, max |difference| %.3g\n", label,
               e && strcmp(e, "emulate") == 0 ? " (emulated)" : "", worst * 4e-3);
    } else {
        check_outputs(g, n, c, label);
    }
    graph_free(g);
}

static const GqaCase decode_cases[] = {
    {DT_F32, 1, 1, 4, 2, 16, 24, {9}, false, 0, false, false, false, false, false, false, 0, 0},
    {DT_F32, 2, 1, 6, 2, 32, 40, {0, 39}, true, 32, false, false, false, false, false, false, 0, 0},
    {DT_F32, 1, 1, 8, 8, 64, 300, {299}, false, 64, true, true, true, false, false, false, 0, 0},
    {DT_F16, 1, 1, 14, 2, 64, 160, {150}, true, 64, false, false, false, false, false, false, 0, 0},
    /* 400 rows: 3 working chunks of 6 or of 3 (the split modes of the decode test); with 32 channels
     * also with runs of 8 keys on lavapipe (subgroups of 8: at most 4 channels per lane, k_gqa.c
     * GQA_DEC_T_CPL), whose combine takes 8 lanes per channel */
    {DT_F16, 1, 1, 14, 2, 64, 420, {400}, true, 64, false, false, false, false, false, false, 0, 0},
    {DT_F16, 1, 1, 8, 2, 32, 420, {400}, true, 32, false, false, false, false, false, false, 0, 0},
    /* partial rotary with position ids, q/k norm, packed, two batches */
    {DT_F32, 2, 1, 4, 1, 32, 48, {5, 47}, true, 16, false, true, true, false, false, false, 0, 0},
    /* local window, softcap, smooth softmax; float16 with norms and interleaved rotary */
    {DT_F32, 1, 1, 4, 2, 16, 64, {60}, false, 16, false, false, false, false, false, true, 7, 3.0},
    {DT_F16, 2, 1, 8, 2, 128, 40, {39, 1}, false, 64, true, false, true, false, false, false, 0, 0},
    /* float16 with a local window, softcap and smooth softmax; a 16-channel head (wide runs of 2 lanes
     * per key: 4 key groups in lavapipe's subgroups of 8) */
    {DT_F16, 1, 1, 4, 2, 32, 64, {60}, false, 16, false, false, false, false, false, true, 7, 3.0},
    {DT_F16, 1, 1, 4, 2, 16, 100, {93}, false, 16, false, false, false, false, false, false, 0, 0},
};

/* Decode (S = 1): in one dispatch (ext_gqa_dec_fused.comp, the default where the device has
 * subgroup arithmetic) with one workgroup per head (these capacities), split over 6 and over 3
 * workgroups per head with one working per 128 rows of the actual length (WEBNNC_GQA_DEC_CHUNKS,
 * WEBNNC_GQA_DEC_CHUNK_ROWS: 299 and 400 rows split, combined by the last workgroup to arrive), and
 * in two dispatches (WEBNNC_GQA_FUSED=0: ext_gqa_prep.comp + ext_gqa_attn_dec.comp); with runs of 8
 * keys scored by a transposing reduction (the default where the device has subgroup shuffles and a
 * lane holds at most 4 channels: lavapipe, head sizes up to 32) and with a subgroupAdd per key
 * (WEBNNC_GQA_DEC_TRANSPOSE=0, gqa_dec.glsl), split and in two dispatches.
 * The fused kernel prepares the query and new rows in registers where a lane holds few channels
 * (REG_PREP; lavapipe's subgroups of 8: head sizes up to 64), else and under WEBNNC_GQA_DEC_REGS=0
 * in shared memory.  Its geometry is fixed at pipeline creation, and under WEBNNC_GQA_DEC_FIXED=0
 * read from the parameters.  Its key loop reads float16 caches in wide runs (gqa_dec.glsl
 * DEC_WIDE_NK: 8 channels of a key per lane; WEBNNC_GQA_DEC_WIDE=1 and 8 keys per lane besides the
 * default 4), under WEBNNC_GQA_DEC_WIDE=0 as packed pairs across the subgroup, the next run loaded
 * while one is scored (DEC_PAIRS), and under WEBNNC_GQA_DEC_PAIRS=0 one channel at a time. */
START_TEST(decode) {
    static const struct {
        const char *chunks, *fused, *transpose, *regs, *fixed, *pairs, *wide;
    } modes[] = {
        {NULL, NULL, NULL, NULL, NULL, NULL}, {"6", NULL, NULL, NULL, NULL, NULL}, {"3", NULL, NULL, NULL, NULL, NULL},
        {NULL, "0", NULL, NULL, NULL, NULL},  {"3", NULL, "0", NULL, NULL, NULL},  {NULL, "0", "0", NULL, NULL, NULL},
        {NULL, NULL, NULL, "0", NULL, NULL},  {"3", NULL, NULL, "0", NULL, NULL},
        /* the geometry read from the parameters instead of fixed at pipeline creation */
        {NULL, NULL, NULL, NULL, "0", NULL},  {"3", NULL, NULL, "0", "0", NULL},
        /* float16 caches read one channel at a time */
        {NULL, NULL, NULL, NULL, NULL, "0"},  {"3", NULL, NULL, "0", NULL, "0"},
        /* float16 caches in runs of pairs across the subgroup instead of wide runs, and wide runs of 1
         * and 8 keys per lane (at most the lanes of a key: 8 for 64 channels on lavapipe) */
        {NULL, NULL, NULL, NULL, NULL, NULL, "0"}, {NULL, NULL, NULL, NULL, NULL, NULL, "1"},
        {"3", NULL, NULL, "0", NULL, NULL, "8"},
    };
    for (size_t mode = 0; mode < sizeof modes / sizeof modes[0]; mode++) {
        if (modes[mode].chunks) {
            setenv("WEBNNC_GQA_DEC_CHUNKS", modes[mode].chunks, 1);
            setenv("WEBNNC_GQA_DEC_CHUNK_ROWS", "128", 1);
        }
        const char *names[] = {"WEBNNC_GQA_FUSED", "WEBNNC_GQA_DEC_TRANSPOSE", "WEBNNC_GQA_DEC_REGS", "WEBNNC_GQA_DEC_FIXED",
                               "WEBNNC_GQA_DEC_PAIRS", "WEBNNC_GQA_DEC_WIDE"};
        const char *values[] = {modes[mode].fused, modes[mode].transpose, modes[mode].regs, modes[mode].fixed, modes[mode].pairs,
                                modes[mode].wide};
        const int n_env = (int)(sizeof names / sizeof names[0]);
        for (int e = 0; e < n_env; e++)
            if (values[e]) setenv(names[e], values[e], 1);
        for (size_t i = 0; i < sizeof decode_cases / sizeof decode_cases[0]; i++) check_gqa(decode_cases[i]);
        unsetenv("WEBNNC_GQA_DEC_CHUNKS");
        unsetenv("WEBNNC_GQA_DEC_CHUNK_ROWS");
        for (int e = 0; e < n_env; e++) unsetenv(names[e]);
    }
    /* a cache of more than 1024 rows splits by default (k_gqa.c GQA_DEC_SPLIT_CAPACITY: 8 workgroups
     * per head, all working after 1050 rows); 64 asked for with one per 16 rows would hold 64 x 66
     * partial floats, more than the last workgroup's shared memory takes (4096): 62 of them */
    const GqaCase long_cache = {DT_F16, 1, 1, 14, 2, 64, 1100, {1050}, true, 64, false, false, false, false, false, false, 0, 0};
    check_gqa(long_cache);
    setenv("WEBNNC_GQA_DEC_CHUNKS", "64", 1);
    setenv("WEBNNC_GQA_DEC_CHUNK_ROWS", "16", 1);
    check_gqa(long_cache);
    unsetenv("WEBNNC_GQA_DEC_CHUNKS");
    unsetenv("WEBNNC_GQA_DEC_CHUNK_ROWS");
    /* one subgroup per workgroup: with subgroups of fewer than 16 invocations (lavapipe: 8) the 64
     * rotary pairs of a 128-channel head outnumber the ones whose cosines are fetched ahead (4 per
     * invocation), so ext_gqa_dec_fused.comp's rotate() loads the rest itself.  A float16 cache
     * read by one subgroup: in wide runs of 4 keys (75, 74 and 76 runs, the last one partial at 302
     * rows); in pairs, the key loop alternating its two register sets over 75 and 74 runs (lavapipe:
     * runs of 4 keys at 8 channels per lane), so that it leaves the loop after either set, the last
     * run partial or whole; and without pairs, one channel at a time. */
    setenv("WEBNNC_GQA_DEC_SUBGROUPS", "1", 1);
    for (int pairs = 2; pairs >= 0; pairs--) { /* wide runs (4 keys: the last one partial at 302), pairs, neither */
        if (pairs < 2) setenv("WEBNNC_GQA_DEC_WIDE", "0", 1);
        if (!pairs) setenv("WEBNNC_GQA_DEC_PAIRS", "0", 1);
        check_gqa((GqaCase){DT_F16, 1, 1, 4, 2, 64, 310, {300}, true, 64, false, false, false, false, false, false, 0, 0});
        check_gqa((GqaCase){DT_F16, 1, 1, 4, 2, 64, 310, {296}, false, 64, false, true, true, false, false, false, 0, 0});
        check_gqa((GqaCase){DT_F16, 1, 1, 4, 2, 64, 310, {302}, false, 64, false, false, false, false, false, false, 0, 0});
        unsetenv("WEBNNC_GQA_DEC_PAIRS");
        unsetenv("WEBNNC_GQA_DEC_WIDE");
    }
    check_gqa((GqaCase){DT_F32, 1, 1, 4, 2, 128, 40, {30}, false, 128, true, false, false, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 1, 1, 4, 2, 128, 40, {30}, false, 128, false, true, true, false, false, false, 0, 0});
    unsetenv("WEBNNC_GQA_DEC_SUBGROUPS");
    /* the one-subgroup-reduction kernel (ext_gqa_attn.comp) that devices without subgroup
     * arithmetic run instead of ext_gqa_attn_dec.comp */
    setenv("WEBNNC_GQA_DEC", "0", 1);
    check_gqa((GqaCase){DT_F32, 1, 1, 8, 8, 64, 300, {299}, false, 64, true, true, true, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 1, 1, 4, 2, 16, 20, {10}, false, 16, false, false, false, false, false, false, 0, 2.5});
    unsetenv("WEBNNC_GQA_DEC");
}
END_TEST

/* Heads over 128 channels decode on the decode kernels too: 256 (Gemma-class; on lavapipe 32 channels
 * per lane, the query and new rows prepared in shared memory) and 192 (not a power of two: 21 subgroups
 * where subgroups are 32 wide, 24 channels per lane on lavapipe, float32 with interleaved partial rotary
 * at position ids).  In one dispatch (ext_gqa_dec_fused.comp), one fewer than in two (WEBNNC_GQA_FUSED=0:
 * ext_gqa_prep.comp + ext_gqa_attn_dec.comp), and right in both.  (The generic ext_gqa_attn.comp would
 * take two either way.)  Heads this wide split their keys over workgroups of 64 rows (k_gqa.c
 * GQA_DEC_WIDE_WORK_ROWS: here 4 of them); and unsplit (WEBNNC_GQA_DEC_CHUNKS=1). */
START_TEST(decode_wide_heads) {
    static const GqaCase cases[] = {
        {DT_F16, 1, 1, 4, 1, 256, 300, {290}, true, 256, false, true, true, false, false, false, 0, 0},
        {DT_F32, 2, 1, 4, 2, 192, 270, {260, 100}, false, 96, true, true, false, false, false, false, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        GqaCase c = cases[i];
        Node *n;
        char label[160];
        Graph *g = gqa_graph(c, &n, label);
        check_outputs(g, n, c, label);
        uint64_t bytes = (uint64_t)(c.B * c.N * c.H) * dtype_storage_bytes(c.dt, 1);
        void *out = malloc(bytes);
        ck_assert(out);
        int fused = ext_run_dispatches(g, 0, out, bytes, label);
        setenv("WEBNNC_GQA_FUSED", "0", 1);
        check_outputs(g, n, c, label);
        int two = ext_run_dispatches(g, 0, out, bytes, label);
        unsetenv("WEBNNC_GQA_FUSED");
        ck_assert_msg(fused == two - 1, "%s: %d dispatches fused, %d in two", label, fused, two);
        free(out);
        graph_free(g);
        setenv("WEBNNC_GQA_DEC_CHUNKS", "1", 1);
        check_gqa(c);
        unsetenv("WEBNNC_GQA_DEC_CHUNKS");
    }
}
END_TEST

START_TEST(prefill) {
    check_gqa((GqaCase){DT_F32, 1, 5, 4, 2, 16, 16, {4}, false, 16, false, false, false, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 2, 3, 4, 1, 24, 20, {7, 2}, true, 16, true, true, false, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F16, 1, 7, 4, 2, 32, 12, {6}, false, 32, false, false, false, false, false, false, 0, 0});
    /* heads of 256 (no flash kernel): ext_gqa_attn_dec.comp per token */
    check_gqa((GqaCase){DT_F16, 1, 5, 4, 1, 256, 24, {20}, true, 256, false, true, true, false, false, false, 0, 0});
}
END_TEST

/* Prefill with a KV cache, the query, key and value rows prepared by one dispatch of
 * ext_gqa_prep.comp (a workgroup range per role): grouped heads (query heads 3x / 4x the kv heads,
 * and as many), two batches with different pasts, rotary (half / interleaved, partial, position
 * ids), qNormWeight and kNormWeight (distinct weights), separate and packed QKV: a
 * query, key or value row prepared as another role's, or with another role's norm, source or
 * cache, fails the comparison of the output or of a present. */
START_TEST(prefill_prep) {
    check_gqa((GqaCase){DT_F32, 2, 9, 6, 2, 32, 24, {12, 8}, false, 32, false, true, true, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 2, 5, 8, 2, 16, 16, {9, 4}, true, 8, true, false, true, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 1, 6, 4, 4, 16, 12, {8}, false, 16, false, false, true, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 1, 6, 4, 1, 16, 12, {8}, true, 16, false, true, true, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F16, 2, 34, 6, 2, 64, 48, {40, 33}, false, 64, false, true, true, false, false, false, 0, 0});
}
END_TEST

/* Flash-style prefill (ext_gqa_attn_flash.comp, 32 query tokens per workgroup, 4 invocations per
 * query row): several and partial query blocks, a past in the cache, several key tiles cut by the
 * causal limit and a local window, head sizes 64 / 128 / 40 and 42 (not a multiple of 4: channels
 * past the head), two batches with different pasts, attentionBias, headSink, softcap, float16. */
START_TEST(flash_prefill) {
    check_gqa((GqaCase){DT_F32, 1, 70, 4, 2, 64, 120, {99}, false, 64, false, false, false, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F16, 1, 45, 14, 2, 64, 64, {44}, true, 64, false, false, false, false, false, false, 20, 0});
    check_gqa((GqaCase){DT_F32, 2, 33, 2, 1, 128, 50, {40, 32}, false, 0, false, false, false, true, true, false, 0, 30});
    check_gqa((GqaCase){DT_F32, 1, 40, 4, 4, 40, 40, {39}, false, 0, false, false, false, false, false, true, 9, 0});
    check_gqa((GqaCase){DT_F32, 1, 100, 6, 2, 42, 200, {169}, false, 0, false, false, false, false, false, false, 0, 0});
}
END_TEST

/* Float16 prefill, where the device has NV cooperative matrices on ext_gqa_attn_flash_coop.comp
 * (elsewhere on ext_gqa_attn_flash.comp): a Qwen2-0.5B-like layer (14 query heads over 2 kv heads)
 * over three query blocks of 64 (the last of 22 rows: S not a multiple of 16) and five key tiles
 * with a past; two batches with different pasts, head size 128, attentionBias, headSink and softcap;
 * head size 32 with a local window of 33 (not tile-aligned) and smoothSoftmax; head size 48 (three
 * channel blocks) with as many kv heads as query heads; head size 40 (not a multiple of 16: the
 * scalar flash kernel).  Natively also with workgroups of 1 and 3 subgroups (query blocks of 16 and
 * 48) and with WEBNNC_FLASH_COOP=0 (the scalar flash kernel). */
static const GqaCase flash_f16_cases[] = {
    {DT_F16, 1, 150, 14, 2, 64, 160, {159}, true, 64, false, false, false, false, false, false, 0, 0},
    {DT_F16, 2, 70, 4, 2, 128, 100, {99, 69}, false, 0, false, false, false, true, true, false, 0, 30},
    {DT_F16, 1, 100, 4, 2, 32, 130, {119}, false, 32, false, false, false, false, false, true, 33, 0},
    {DT_F16, 1, 40, 4, 4, 48, 60, {49}, false, 0, false, false, false, false, true, false, 0, 0},
    {DT_F16, 1, 33, 4, 2, 40, 40, {39}, false, 0, false, false, false, false, false, false, 0, 0},
};

/* Sets environment variable `name` to `value` (NULL: unsets it). */
static void env_put(const char *name, const char *value) {
    if (value) setenv(name, value, 1);
    else unsetenv(name);
}

/* The same kernel's emulated build (ext_gqa_attn_flash_coop_emu.comp, WEBNNC_FLASH_COOP=emulate) on
 * devices without NV cooperative matrices (on the H100 the driver fails to create the emulated
 * build's pipeline, VkResult -13; there the case runs on the native kernel), in one case (lavapipe takes ~25 s to compile each specialization of it): two batches
 * with different pasts, query blocks of 32 (2 subgroups: 32 + 32 + 6 rows) over three key tiles, 2
 * query heads per kv head, a local window of 17 (not tile-aligned), attentionBias, headSink and
 * softcap.  (lavapipe's 32 KiB of shared memory hold head sizes up to 96.) */
START_TEST(flash_prefill_emulated) {
    char *outer = getenv("WEBNNC_FLASH_COOP") ? strdup(getenv("WEBNNC_FLASH_COOP")) : NULL; /* the caller's, restored */
    if (!wnrt_context_device(rt_ctx)->coopmat_nv) setenv("WEBNNC_FLASH_COOP", "emulate", 1);
    setenv("WEBNNC_FLASH_COOP_SUBGROUPS", "2", 1);
    check_gqa((GqaCase){DT_F16, 2, 70, 4, 2, 64, 80, {79, 69}, true, 64, false, false, false, true, true, false, 17, 30});
    env_put("WEBNNC_FLASH_COOP", outer);
    unsetenv("WEBNNC_FLASH_COOP_SUBGROUPS");
    free(outer);
}
END_TEST

/* (Under a WEBNNC_FLASH_COOP of the caller's, e.g. 0, only the cases.) */
START_TEST(flash_prefill_f16) {
    static const struct {
        const char *coop, *subgroups; /* WEBNNC_FLASH_COOP, WEBNNC_FLASH_COOP_SUBGROUPS */
    } modes[] = {{NULL, NULL}, {NULL, "1"}, {NULL, "3"}, {"0", NULL}};
    bool sweep = wnrt_context_device(rt_ctx)->coopmat_nv && !getenv("WEBNNC_FLASH_COOP");
    for (size_t m = 0; m < (sweep ? sizeof modes / sizeof modes[0] : 1); m++) {
        if (modes[m].coop) setenv("WEBNNC_FLASH_COOP", modes[m].coop, 1);
        if (modes[m].subgroups) setenv("WEBNNC_FLASH_COOP_SUBGROUPS", modes[m].subgroups, 1);
        for (size_t i = 0; i < sizeof flash_f16_cases / sizeof flash_f16_cases[0]; i++) check_gqa(flash_f16_cases[i]);
        if (modes[m].coop) unsetenv("WEBNNC_FLASH_COOP");
        if (modes[m].subgroups) unsetenv("WEBNNC_FLASH_COOP_SUBGROUPS");
    }
}
END_TEST

START_TEST(variants) {
    /* local window, softcap, attention bias, head sink, smooth softmax, q/k norm */
    check_gqa((GqaCase){DT_F32, 1, 2, 4, 2, 16, 20, {17}, false, 0, false, false, false, false, false, false, 5, 0});
    check_gqa((GqaCase){DT_F32, 1, 1, 4, 2, 16, 20, {10}, false, 16, false, false, false, false, false, false, 0, 2.5});
    check_gqa((GqaCase){DT_F32, 1, 3, 4, 2, 16, 20, {12}, false, 0, false, false, false, true, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 2, 1, 4, 2, 16, 20, {3, 11}, true, 0, false, false, false, false, true, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 1, 2, 4, 2, 16, 20, {9}, false, 16, false, false, true, false, false, true, 0, 0});
    check_gqa((GqaCase){DT_F32, 1, 1, 2, 1, 128, 400, {399}, false, 128, false, false, true, true, true, false, 100, 30});
}
END_TEST

START_TEST(no_cache) { /* C = 0: keys are the S new tokens (fuse_torch_attention's form) */
    check_gqa((GqaCase){DT_F32, 1, 5, 4, 2, 16, 0, {0}, false, 0, false, false, false, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 1, 64, 4, 2, 32, 0, {0}, false, 32, false, false, false, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 2, 150, 4, 1, 24, 0, {0}, true, 16, true, true, true, false, false, false, 0, 0});
    check_gqa((GqaCase){DT_F32, 1, 9, 4, 2, 16, 0, {0}, false, 16, false, false, true, false, false, true, 4, 2.5});
    check_gqa((GqaCase){DT_F16, 1, 7, 4, 2, 32, 0, {0}, false, 32, false, false, false, false, false, false, 0, 0});
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-ext-gqa");
    /* the decode kernels in a case of their own, which tests/runtime/meson.build also runs on
     * lavapipe's 16-lane subgroups (CK_RUN_CASE=gqa-decode) */
    TCase *dec = tcase_create("gqa-decode");
    tcase_add_checked_fixture(dec, rt_setup, rt_teardown);
    tcase_set_timeout(dec, 300);
    tcase_add_test(dec, decode);
    tcase_add_test(dec, decode_wide_heads);
    suite_add_tcase(s, dec);
    TCase *tc = tcase_create("gqa");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, prefill);
    tcase_add_test(tc, prefill_prep);
    tcase_add_test(tc, flash_prefill);
    tcase_add_test(tc, flash_prefill_f16);
    tcase_add_test(tc, flash_prefill_emulated);
    tcase_add_test(tc, variants);
    tcase_add_test(tc, no_cache);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
