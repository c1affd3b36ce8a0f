/* k_gqa.c - kernel family `gqa` (op family gqa): groupQueryAttention with a fixed-capacity KV cache
 * (packed or separate QKV, q/k RMSNorm, rotary with cos/sin caches and optional positionIds,
 * causal + local window, softcap, attentionBias, smoothSoftmax / headSink), float32/float16.
 * Dispatches: (1) present = past (a copy, skipped when the plan gives present the past's storage),
 * (2) shaders/ext_gqa_prep.comp once, a grid range per role: query rows (normed, rotated) into the
 * output, new key rows (normed, rotated) and value rows into the presents at past + s, (3) shaders/ext_gqa_attn.comp:
 * one workgroup per (batch, token, head), online softmax over the valid cache rows, no score
 * matrix; for prefill (S >= 2, head size <= 128, subgroup shuffles) shaders/ext_gqa_attn_flash.comp
 * instead: one workgroup per (batch, head, 128 / GQA_FLASH_TPR query tokens), key/value tiles in
 * shared memory, GQA_FLASH_TPR invocations per query row (WEBNNC_NO_FLASH_ATTN=1 keeps the per-token kernel), or
 * where the prefill GEMMs run on NV cooperative matrices (ext_coop: float16) and the head size is a multiple of 16,
 * shaders/ext_gqa_attn_flash_coop.comp: the same blocks, 16 query tokens per subgroup, QK^T and PV as
 * 16x16x16 float16 products (WEBNNC_FLASH_COOP=0 keeps ext_gqa_attn_flash.comp); decode (and heads over 128 with no flash)
 * runs shaders/ext_gqa_attn_dec.comp where the device has subgroup arithmetic and the head at most GQA_DEC_MAX_H
 * channels: the same per-token workgroups with the keys split over GQA_DEC_SUBGROUPS subgroups in runs of
 * GQA_DEC_T_KB keys scored together by a transposing reduction where the device has subgroup shuffles (else GQA_DEC_KB, a
 * subgroupAdd each; WEBNNC_GQA_DEC_TRANSPOSE=0), partial softmaxes combined in shared memory, 8 lanes
 * per channel (WEBNNC_GQA_DEC=0 keeps ext_gqa_attn.comp).  A decode step (S = 1) with that kernel
 * and no attentionBias / headSink runs (2) and (3) as one dispatch instead,
 * shaders/ext_gqa_dec_fused.comp, with up to GQA_DEC_MAX_CHUNKS workgroups per head whose partial
 * results (scratch storage) the last to finish combines (arrival counters) (WEBNNC_GQA_FUSED=0
 * keeps the two).  past / total come from seqlensK on the device (no CPU round trip).  Semantics: the CPU
 * reference lib/eval/eval_gqa.c; operand slots and outputs: lib/core/gqa.h.
 * Without a KV cache (no pastKey/pastValue, one output): the prep of the query rows only (C = 0: past = 0), then
 * shaders/ext_gqa_attn_nc.comp, which reads the keys/values of the S new tokens straight from the
 * key/value (or packed query) input and folds the key's RMSNorm and rotary into the dot product
 * (attentionBias and headSink are not supported there: 8 bindings at most). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "gqa_dec_sizes.h"
#include "k_ext_nbits.h"
#include "k_ext_util.h"
#include "k_oproj_fold.h"
#include "kx_util.h"

#define GQA_WG 128       /* attention / prep workgroup size */
#define GQA_MAX_HEAD 512 /* head size limit: 4 channels per invocation, shared rows of 1024 */
#define GQA_FLASH_MIN_S 2   /* query tokens from which prefill attention runs flash-style ... */
#define GQA_FLASH_MAX_H 128 /* ... for heads up to this size (ext_gqa_attn_flash.comp; with 256-channel heads it was
                             * no faster than ext_gqa_attn_dec.comp per token: H200, prefill attention us per layer
                             * after 128 / 512 tokens, 4 heads 40.5 / 133 against 19.7 / 105, 8 heads (Gemma2-2B
                             * shape) 46.9 / 170 against 35.5 / 207) */
#define GQA_FLASH_TPR 8     /* invocations per query row there (WEBNNC_FLASH_TPR = 2..16, powers of 2; H100, 512 tokens,
                             * Qwen2-0.5B layer: 2 / 4 / 8 / 16 took 200 / 178 / 161 / 313 us), ... */
#define GQA_FLASH_COOP_SUBGROUPS 4 /* subgroups of 32 per workgroup of ext_gqa_attn_flash_coop.comp, 16 query rows each
                                   * (WEBNNC_FLASH_COOP_SUBGROUPS = 1..4) */
/* decode kernels (ext_gqa_attn_dec.comp, ext_gqa_dec_fused.comp): head size and subgroups x head size limits of their
 * shared arrays, GQA_DEC_MAX_H and GQA_DEC_PARTIALS (shaders/gqa_dec_sizes.h), ... */
#define GQA_DEC_MAX_CPL 32    /* ... and channels per lane (lavapipe's subgroups of 8: heads of 256) */
#define GQA_DEC_SPLIT_CAPACITY 1024 /* fused decode: caches of more rows than this split a head over ... */
#define GQA_DEC_MAX_CHUNKS 8        /* ... this many workgroups, ... */
#define GQA_DEC_WORK_ROWS 128       /* ... of which one per this many rows of the actual length works (ext_gqa_dec_fused.comp
                                     * DEC_CHUNK_ROWS; WEBNNC_GQA_DEC_CHUNK_ROWS=16..65536), the others return at once.
                                     * H200, Qwen2-0.5B shape, capacity 4096, attention us per layer (timestamped) after
                                     * 128 / 512 / 1024 / 2048 tokens: one workgroup per head 9.10 / 12.44 / 16.58 / 23.80;
                                     * 8 per head, one working per 128 rows 9.80 / 12.91 / 13.20 / 15.04; the previous
                                     * default (4 per head, one per 1024 rows) 9.67 / 13.57 / 18.99 / 22.09 (22.58 with the
                                     * combine that read the partials step by step).  Smaller caches keep one workgroup
                                     * per head: workgroups that return at once still cost (9.10 -> 9.67 after 128 tokens),
                                     * the split-capable kernel is slower even where one works, and after 512 tokens the
                                     * split does not pay for its combine (12.44 unsplit, 12.91 with 4 working, 14.7 with 2
                                     * of 256 rows each).  That slowdown comes from code that does not run: after 1024
                                     * tokens with one working (diagnostic builds, spec constant) 16.8 us with one
                                     * workgroup per head (23 KB of code); 19.4 with 8 (34 KB); 17.8 without the partial
                                     * write, counter and combine (25 KB); 17.1 without the unnormalized-output path too
                                     * (23 KB).  Whether the code size or the memory barrier and coherent accesses of that
                                     * tail slow the key loop is not known. */
#define GQA_DEC_WIDE_H 128         /* Heads over this many channels ... */
#define GQA_DEC_WIDE_WORK_ROWS 64  /* ... take one workgroup per this many rows of the capacity and of the actual length
                                    * instead.  H200, attention us per layer after 128 / 512 tokens, 256-channel heads
                                    * (capacity 1024, so 8 workgroups per head): Qwen2-0.5B-shaped with 4 heads 19.0 /
                                    * 37.9 unsplit, 19.1 / 23.1 split; Gemma2-2B-shaped (8 heads) 26.6 / 46.7 against
                                    * 25.1 / 28.5.  Split so, a head of 128 channels (8 heads) took 15.3 / 20.3 against
                                    * 12.0 / 18.3, and Qwen2-0.5B (64 channels, 14 heads) 13.1 / 17.8 against 9.1 / 12.4. */
#define GQA_DEC_REG_CPL 8 /* fused decode: query and new rows prepared in registers up to this many channels per lane
                           * (ext_gqa_dec_fused.comp REG_PREP: CPL^2 shuffles per rotated row; WEBNNC_GQA_DEC_REGS=0: never) */
#define GQA_DEC_SUBGROUPS 24 /* ... its subgroups per workgroup, fewer where the workgroup would exceed 1024 invocations or
                              * the device's limit.  H100, Qwen2-0.5B int4 decode, fused kernel with the partials combined
                              * by 8 lanes per channel (gqa_dec.glsl), attention us per layer after 128 / 512 tokens:
                              * 8 subgroups 11.17 / 17.93, 16 10.51 / 14.82, 24 9.74 / 13.24, 32 9.60 / 13.54.  (With
                              * one invocation per channel combining the partials, 16 had been faster than 32.) */
#define GQA_DEC_KB 4   /* keys per run of a subgroup, each scored by a subgroupAdd, ... */
#define GQA_DEC_T_KB 8 /* ... or scored together by a transposing reduction (gqa_dec.glsl; H100, Qwen2-0.5B, 128 decode
                        * steps after a 512-token prompt: attention 18.3 -> 17.1 us per layer), ... */
#define GQA_DEC_WIDE_NK 8 /* ... or (float16 caches) in wide runs of this many keys per lane, or half as many
                           * where one round of those covers the keys (dec_wide), ... */
#define GQA_DEC_WIDE_SUBGROUPS 20 /* ... with this many subgroups per workgroup (H200, Qwen2-0.5B webgpu decode of 128
                                   * tokens after 128 / 512 (tok/s), 16: 1536 / 1463, 20: 1528 / 1488, 24: 1529 / 1472,
                                   * 28: 1508 / 1450, 32: 1499 / 1441; the better of 4 and 8 keys per lane) */
#define GQA_DEC_T_CPL 4 /* ... where a lane holds at most this many channels: the run's keys and values are 2 * 8 * CPL
                         * registers.  H200, a 256-channel head (8 channels per lane), Qwen2-0.5B-shaped with 4 heads,
                         * attention us per layer after 128 / 512 tokens: runs of 8 23.5 / 44.4, of 4 19.1 / 38.0 (Gemma2-
                         * 2B-shaped: 34.2 / 56.1 against 26.6 / 46.7).  Lavapipe (subgroups of 8) builds a 256-channel
                         * head's shaders with 32 channels per lane: over a minute of the test suite with runs of 8. */

typedef struct { /* ext_gqa_prep.comp; arrays per role: query, key, value */
    uint32_t B, S, H, C, rot, max_pos;
    float eps;
    uint32_t base_seqlens, base_pos, base_cos, base_sin;
    uint32_t heads[3], src_row[3], src_head0[3], base_src[3], base_dst[3];
    uint32_t base_norm[2];
} PrepPush;

typedef struct {
    uint32_t B, S, N, kvN, H, C, window;
    float scale, softcap;
    uint32_t bias_b, bias_n;
    uint32_t base_out, base_seqlens, base_k, base_v, base_bias, base_sink;
} AttnPush;

typedef struct {
    uint32_t B, N, kvN, H, C, window, rot, max_pos;
    float scale, softcap, eps;
    uint32_t q_row, q_head0, k_row, k_head0, v_row, v_head0;
    uint32_t base_out, base_seqlens, base_k, base_v, base_q_in, base_k_in, base_v_in;
    uint32_t base_pos, base_cos, base_sin, base_q_norm, base_k_norm;
    uint32_t base_ws, base_cnt;
    /* ext_gqa_dec_oproj.comp (plan_oproj.c) */
    uint32_t o_w, o_s, o_z, o_kshift, o_rows, base_res, base_rb, base_y;
} DecFusedPush;
_Static_assert(sizeof(DecFusedPush) <= K_PUSH_MAX, "decode attention parameters");

typedef struct {
    uint32_t B, S, N, kvN, H, window;
    float scale, softcap, eps;
    uint32_t rot, max_pos;
    uint32_t k_row, k_head0, v_row, v_head0;
    uint32_t base_out, base_k, base_v, base_cos, base_sin, base_pos, base_norm;
} AttnNcPush;

static bool present(const Node *n, int slot) { return kx_opt(n, slot) != NULL; }

static bool has_cache(const Node *n) { return present(n, GQA_PAST_KEY) || present(n, GQA_PAST_VALUE); }

/* Rows of the actual length per working workgroup of the fused decode kernel for a head of H channels
 * (how many of a head's workgroups work); heads over GQA_DEC_WIDE_H channels take GQA_DEC_WIDE_WORK_ROWS. */
static uint32_t dec_work_rows(int64_t H) { return H > GQA_DEC_WIDE_H ? GQA_DEC_WIDE_WORK_ROWS : GQA_DEC_WORK_ROWS; }

/* Workgroups per (batch, head) of the fused decode kernel: GQA_DEC_MAX_CHUNKS for caches of more than
 * GQA_DEC_SPLIT_CAPACITY rows, else 1 (heads over GQA_DEC_WIDE_H channels: one per GQA_DEC_WIDE_WORK_ROWS
 * rows of the capacity, at most GQA_DEC_MAX_CHUNKS) (WEBNNC_GQA_DEC_CHUNKS=1..64 overrides); fewer when
 * their partial results would not fit the last one's shared memory.  Before the scratch storage is
 * considered (dec_chunks); also plan_oproj.c's condition, through ext_gqa_oproj_ok. */
static uint64_t dec_chunks_wanted(const Node *n) {
    const Value *pk = n->inputs[GQA_PAST_KEY];
    int64_t C = pk->rank == 4 ? pk->shape[2].v : 0, H = pk->rank == 4 ? pk->shape[3].v : 0;
    uint64_t chunks = H > GQA_DEC_WIDE_H ? (uint64_t)(C > 0 ? C : 0) / GQA_DEC_WIDE_WORK_ROWS
                      : C > GQA_DEC_SPLIT_CAPACITY ? GQA_DEC_MAX_CHUNKS
                                                   : 1;
    if (chunks > GQA_DEC_MAX_CHUNKS) chunks = GQA_DEC_MAX_CHUNKS;
    chunks = (uint64_t)wnrt_env_long("WEBNNC_GQA_DEC_CHUNKS", 1, 64, chunks ? (long)chunks : 1);
    uint64_t part_floats = 2 + (uint64_t)(H > 0 ? H : 1); /* one chunk's partial result: max, sum, H outputs */
    /* the last chunk combines the partials in shared memory (ext_gqa_dec_fused.comp): at most GQA_DEC_PARTIALS floats */
    while (chunks > 1 && chunks * part_floats > GQA_DEC_PARTIALS) chunks--;
    return chunks;
}

/* ... and 1 when the partial results for the largest batch would not fit the scratch storage.
 * Depends on the node's bounds only (the same at check and record time).  *ws_bytes / *words: what
 * the chunks need. */
static uint32_t dec_chunks(const KernelCtx *kc, const Node *n, uint64_t *ws_bytes, uint64_t *words) {
    const Value *pk = n->inputs[GQA_PAST_KEY];
    int64_t N = node_int(n, "numHeads", 0), H = pk->rank == 4 ? pk->shape[3].v : 0;
    uint64_t chunks = dec_chunks_wanted(n), part_floats = 2 + (uint64_t)(H > 0 ? H : 1);
    uint64_t bn = value_max_elements(n->inputs[GQA_SEQLENS_K]) * (uint64_t)(N > 0 ? N : 1);
    *words = bn;
    *ws_bytes = bn * chunks * part_floats * sizeof(float);
    return chunks > 1 && *ws_bytes <= kc_scratch_limit(kc) && *words * 4 <= kc_scratch_limit(kc) ? (uint32_t)chunks : 1;
}

static int gqa_check(KernelCtx *kc, const Node *n) {
    bool cache = has_cache(n);
    if (!present(n, GQA_QUERY) || ext_float(n, n->inputs[GQA_QUERY]) < 0) return -1;
    if (n->n_outputs != (cache ? GQA_OUTPUTS : 1) || (cache && (!present(n, GQA_PAST_KEY) || !present(n, GQA_PAST_VALUE) ||
                                                               !present(n, GQA_SEQLENS_K)))) {
        diag_node_error(n, "missing KV cache operands or outputs");
        return -1;
    }
    if (!cache && (present(n, GQA_ATTENTION_BIAS) || present(n, GQA_HEAD_SINK))) {
        diag_node_error(n, "attentionBias and headSink need a KV cache in the Vulkan kernel");
        return -1;
    }
    DType dt = n->inputs[GQA_QUERY]->dtype;
    static const int float_slots[] = {GQA_KEY, GQA_VALUE, GQA_PAST_KEY, GQA_PAST_VALUE, GQA_COS, GQA_SIN,
                                      GQA_ATTENTION_BIAS, GQA_HEAD_SINK, GQA_Q_NORM, GQA_K_NORM};
    for (unsigned i = 0; i < sizeof float_slots / sizeof float_slots[0]; i++)
        if (present(n, float_slots[i]) && n->inputs[float_slots[i]]->dtype != dt)
            return kx_no_kernel(n, n->inputs[float_slots[i]]->dtype);
    if (present(n, GQA_K_SCALE) || present(n, GQA_V_SCALE)) {
        diag_node_error(n, "quantized KV cache (kScale/vScale) is not supported");
        return -1;
    }
    if (cache && n->inputs[GQA_SEQLENS_K]->dtype != DT_I32) return kx_no_kernel(n, n->inputs[GQA_SEQLENS_K]->dtype);
    if (present(n, GQA_POSITION_IDS) && n->inputs[GQA_POSITION_IDS]->dtype != DT_I32 &&
        n->inputs[GQA_POSITION_IDS]->dtype != DT_I64)
        return kx_no_kernel(n, n->inputs[GQA_POSITION_IDS]->dtype);
    const Value *o = n->outputs[GQA_OUT];
    int64_t N = node_int(n, "numHeads", 0);
    int64_t H = o->rank == 3 && dim_is_static(o->shape[2]) && N > 0 ? o->shape[2].v / N : 0;
    if (H < 1 || H > GQA_MAX_HEAD) {
        diag_node_error(n, "head size %lld outside the kernel's 1..%d", (long long)H, GQA_MAX_HEAD);
        return -1;
    }
    uint64_t ws_bytes, words;
    if (cache && dec_chunks(kc, n, &ws_bytes, &words) > 1)
        if (kc_scratch_reserve(kc, ws_bytes) < 0 || kc_counters_reserve(kc, words) < 0) return -1;
    if (kcheck_shader(kc, n, "ext_gqa_prep", dt, dt) < 0 ||
        (cache && (kcheck_shader(kc, n, "ext_gqa_attn_flash", dt, dt) < 0 || kcheck_shader(kc, n, "ext_gqa_attn_dec", dt, dt) < 0 ||
                   kcheck_shader(kc, n, "ext_gqa_dec_fused", dt, dt) < 0 ||
                   (ext_coop(kc, dt) && kcheck_shader(kc, n, "ext_gqa_attn_flash_coop", dt, dt) < 0))))
        return -1;
    return kcheck_shader(kc, n, cache ? "ext_gqa_attn" : "ext_gqa_attn_nc", dt, dt);
}

typedef struct {
    int64_t B, S, N, kvN, H, C, rot, max_pos;
    bool packed, rotary, cache;
} GqaDims;

/* Actual sizes from the operands, validated against each other. */
static int gqa_dims(const Node *n, const KTensor *in, const KTensor *out, GqaDims *d) {
    const KTensor *q = &in[GQA_QUERY], *pk = &in[GQA_PAST_KEY];
    d->N = node_int(n, "numHeads", 0);
    d->kvN = node_int(n, "kvNumHeads", 0);
    d->packed = !present(n, GQA_KEY);
    d->rotary = node_bool(n, "doRotary", false);
    d->cache = has_cache(n);
    if (q->rank != 3 || (d->cache && pk->rank != 4) || out[GQA_OUT].rank != 3 || d->N < 1 || d->kvN < 1 || d->N % d->kvN)
        goto bad;
    d->B = q->shape[0], d->S = q->shape[1];
    d->H = d->cache ? pk->shape[3] : out[GQA_OUT].shape[2] / d->N;
    d->C = d->cache ? pk->shape[2] : d->S;
    if (d->cache && (pk->shape[0] != d->B || pk->shape[1] != d->kvN || in[GQA_PAST_VALUE].numel != pk->numel ||
        out[GQA_PRESENT_KEY].numel != pk->numel || out[GQA_PRESENT_VALUE].numel != pk->numel ||
        q->shape[2] != (d->packed ? d->N + 2 * d->kvN : d->N) * d->H || out[GQA_OUT].numel != (uint64_t)(d->B * d->S * d->N * d->H) ||
        in[GQA_SEQLENS_K].numel != (uint64_t)d->B || d->S > d->C))
        goto bad;
    if (!d->cache && (d->H < 1 || q->shape[2] != (d->packed ? d->N + 2 * d->kvN : d->N) * d->H ||
                      out[GQA_OUT].numel != (uint64_t)(d->B * d->S * d->N * d->H)))
        goto bad;
    if (!d->packed && (in[GQA_KEY].numel != (uint64_t)(d->B * d->S * d->kvN * d->H) || in[GQA_VALUE].numel != in[GQA_KEY].numel))
        goto bad;
    d->rot = d->max_pos = 0;
    if (d->rotary) {
        if (!present(n, GQA_COS) || !present(n, GQA_SIN) || in[GQA_COS].rank != 2 || in[GQA_SIN].numel != in[GQA_COS].numel)
            goto bad;
        d->max_pos = in[GQA_COS].shape[0];
        d->rot = 2 * in[GQA_COS].shape[1];
        if (d->rot > d->H || d->max_pos < 1) goto bad;
        if (present(n, GQA_POSITION_IDS) && in[GQA_POSITION_IDS].numel != (uint64_t)(d->B * d->S)) goto bad;
    }
    for (int slot = GQA_Q_NORM; slot <= GQA_K_NORM; slot++)
        if (present(n, slot) && in[slot].numel != (uint64_t)d->H) goto bad;
    if (present(n, GQA_HEAD_SINK) && in[GQA_HEAD_SINK].numel != (uint64_t)d->N) goto bad;
    if (present(n, GQA_ATTENTION_BIAS)) {
        const KTensor *b = &in[GQA_ATTENTION_BIAS];
        if (b->rank != 4 || (b->shape[0] != 1 && b->shape[0] != d->B) || (b->shape[1] != 1 && b->shape[1] != d->N) ||
            b->shape[2] != d->S || b->shape[3] != d->C)
            goto bad;
    }
    return (d->cache && ext_fits(n, pk->numel, "KV cache") < 0) || ext_fits(n, q->numel, "query") < 0 ? -1 : 0;
bad:
    diag_node_error(n, "operand sizes do not match the attention geometry");
    return -1;
}

/* Binding of optional operand slot (its base), or `fallback` (never read) when absent. */
static int bind_opt(KernelCtx *kc, const Node *n, const KTensor *in, int slot, const KBind *fallback, KBind *b,
                    uint32_t *base) {
    if (!present(n, slot)) {
        *b = *fallback;
        *base = 0;
        return 0;
    }
    return ext_bind(kc, n, &in[slot], false, b, base);
}

static bool same_storage(const KTensor *a, const KTensor *b) { return a->buffer == b->buffer && a->offset == b->offset; }

/* Step 2 in one dispatch: the query rows (role 0) and, with a cache, the new key (1) and value (2)
 * rows, each role a range of the grid (ext_gqa_prep.comp).  Without a cache the key and value
 * roles have no heads and their bindings repeat the query's (never used). */
static int record_prep(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out, const GqaDims *d) {
    int sh = kc_find_shader(kc, n, "ext_gqa_prep", in[GQA_QUERY].dtype, in[GQA_QUERY].dtype);
    if (sh < 0) return -1;
    PrepPush pc;
    memset(&pc, 0, sizeof pc);
    pc.B = (uint32_t)d->B, pc.S = (uint32_t)d->S, pc.H = (uint32_t)d->H;
    pc.C = d->cache ? (uint32_t)d->C : 0; /* 0: no cache (past = 0, seqlensK not read) */
    pc.rot = (uint32_t)d->rot, pc.max_pos = (uint32_t)d->max_pos;
    pc.eps = (float)node_float(n, "qkNormEpsilon", 1e-6);
    int roles = d->cache ? 3 : 1;
    bool rot = d->rotary, has_pos = rot && present(n, GQA_POSITION_IDS);
    bool qn = present(n, GQA_Q_NORM), kn = present(n, GQA_K_NORM);
    KBind b[12]; /* sources 0..2, seqlensK, positions, cos, sin, norms 7..8, destinations 9..11 */
    for (int role = 0; role < 3; role++) {
        int r = role < roles ? role : 0;
        const KTensor *src = d->packed ? &in[GQA_QUERY] : &in[r == 0 ? GQA_QUERY : r == 1 ? GQA_KEY : GQA_VALUE];
        const KTensor *dst = &out[r == 0 ? GQA_OUT : r == 1 ? GQA_PRESENT_KEY : GQA_PRESENT_VALUE];
        pc.heads[role] = role < roles ? (uint32_t)(role == 0 ? d->N : d->kvN) : 0;
        pc.src_row[role] = (uint32_t)src->shape[2];
        pc.src_head0[role] = (uint32_t)(!d->packed || r == 0 ? 0 : r == 1 ? d->N : d->N + d->kvN);
        if (ext_bind(kc, n, src, false, &b[role], &pc.base_src[role]) < 0 ||
            ext_bind(kc, n, dst, true, &b[9 + role], &pc.base_dst[role]) < 0)
            return -1;
    }
    if (bind_opt(kc, n, in, d->cache ? GQA_SEQLENS_K : GQA_SLOTS, &b[0], &b[3], &pc.base_seqlens) < 0) return -1;
    b[4] = b[3];
    if (has_pos && ext_bind_words(kc, n, &in[GQA_POSITION_IDS], &b[4], &pc.base_pos) < 0) return -1;
    if (bind_opt(kc, n, in, rot ? GQA_COS : GQA_SLOTS, &b[0], &b[5], &pc.base_cos) < 0 ||
        bind_opt(kc, n, in, rot ? GQA_SIN : GQA_SLOTS, &b[0], &b[6], &pc.base_sin) < 0 ||
        bind_opt(kc, n, in, qn ? GQA_Q_NORM : GQA_SLOTS, &b[0], &b[7], &pc.base_norm[0]) < 0 ||
        bind_opt(kc, n, in, kn ? GQA_K_NORM : GQA_SLOTS, &b[0], &b[8], &pc.base_norm[1]) < 0)
        return -1;
    uint32_t spec[8] = {GQA_WG, ext_sg_reduce(kc), qn, kn, rot, node_bool(n, "rotaryInterleaved", false),
                        has_pos, has_pos && in[GQA_POSITION_IDS].dtype == DT_I64};
    uint64_t heads = (uint64_t)pc.heads[0] + pc.heads[1] + pc.heads[2];
    return ext_dispatch_rows(kc, n, sh, spec, 8, &pc, sizeof pc, b, 12, (uint64_t)(d->B * d->S) * heads);
}

/* Channels per lane of the decode kernels (gqa_dec.glsl CPL). */
static uint32_t dec_cpl(const KernelCtx *kc, const GqaDims *d) {
    uint32_t sgs = kc_device(kc)->subgroup_size;
    return (uint32_t)(d->H + sgs - 1) / sgs;
}

/* Keys per run of the decode kernels (gqa_dec.glsl DEC_KB): GQA_DEC_T_KB where the device has subgroup
 * shuffles and subgroups of at least that many lanes and a lane holds at most GQA_DEC_T_CPL channels
 * (WEBNNC_GQA_DEC_TRANSPOSE=0: never), else GQA_DEC_KB. */
static uint32_t dec_kb(const KernelCtx *kc, const GqaDims *d) {
    const WnrtDeviceInfo *dev = kc_device(kc);
    bool t = dev->subgroup_shuffle && dev->subgroup_size >= GQA_DEC_T_KB && dec_cpl(kc, d) <= GQA_DEC_T_CPL &&
             wnrt_env_flag("WEBNNC_GQA_DEC_TRANSPOSE", true);
    return t ? GQA_DEC_T_KB : GQA_DEC_KB;
}

/* Workgroup size of the decode kernels (ext_gqa_attn_dec.comp, ext_gqa_dec_fused.comp):
 * GQA_DEC_SUBGROUPS subgroups (`wide`: the fused kernel's wide runs, GQA_DEC_WIDE_SUBGROUPS;
 * WEBNNC_GQA_DEC_SUBGROUPS=1..32), as many as fit in 1024 invocations
 * and the device's limit, and at most GQA_DEC_PARTIALS / head size (heads of 256: 16); 0 where it does not
 * apply (no subgroup arithmetic, head size over GQA_DEC_MAX_H or over GQA_DEC_MAX_CPL channels per lane;
 * WEBNNC_GQA_DEC=0). */
static uint32_t dec_wg_on(const WnrtDeviceInfo *dev, const GqaDims *d, bool wide) {
    uint32_t sgs = dev->subgroup_size, cap = dev->max_workgroup_invocations < 1024 ? dev->max_workgroup_invocations : 1024;
    uint32_t groups = (uint32_t)wnrt_env_long("WEBNNC_GQA_DEC_SUBGROUPS", 1, 32, wide ? GQA_DEC_WIDE_SUBGROUPS : GQA_DEC_SUBGROUPS);
    if (sgs && groups * sgs > cap) groups = cap / sgs;
    if (d->H > 0 && groups * (uint64_t)d->H > GQA_DEC_PARTIALS) groups = GQA_DEC_PARTIALS / (uint32_t)d->H;
    if (!dev->subgroup_arithmetic || sgs < 4 || groups == 0 || d->H > GQA_DEC_MAX_H ||
        (uint64_t)d->H > GQA_DEC_MAX_CPL * (uint64_t)sgs || !wnrt_env_flag("WEBNNC_GQA_DEC", true))
        return 0;
    return groups * sgs;
}

static uint32_t dec_wg(const KernelCtx *kc, const GqaDims *d) { return dec_wg_on(kc_device(kc), d, false); }

/* ... of the flash kernel: GQA_FLASH_TPR, or WEBNNC_FLASH_TPR (tuning sweeps; rounded down to a power of 2). */
static uint32_t flash_tpr(void) {
    uint32_t t = (uint32_t)wnrt_env_long("WEBNNC_FLASH_TPR", 2, 16, GQA_FLASH_TPR);
    while (t & (t - 1)) t &= t - 1;
    return t;
}

/* Shared memory of the cooperative-matrix attention for head size H (shaders/gqa_flash_coop.glsl's arrays:
 * key and value tiles of 32 rows of H + 8 float16; for each of 4 subgroups, 16 rows of 36 floats, of 40
 * float16 and of 16 floats; emulated, 128 floats more: flash_coop_ops.glsl). */
static uint64_t flash_coop_shared(int64_t H, bool emulate) {
    return (uint64_t)(2 * 32 * (H + 8) * 2 + 4 * 16 * (36 * 4 + 40 * 2 + 16 * 4)) + (emulate ? 128 * 4 : 0);
}

/* Workgroup size of ext_gqa_attn_flash_coop.comp where it replaces the flash kernel: ext_coop (NV
 * cooperative matrices, subgroups of 32; float16 activations), head sizes a multiple of 16 up to
 * GQA_FLASH_MAX_H, subgroup arithmetic, its shared memory; GQA_FLASH_COOP_SUBGROUPS subgroups
 * (WEBNNC_FLASH_COOP_SUBGROUPS = 1..4: query blocks of 16 to 64 tokens).  0: the scalar flash kernel
 * (also WEBNNC_FLASH_COOP=0).  WEBNNC_FLASH_COOP=emulate (tests): float16 on devices without cooperative
 * matrices, on ext_gqa_attn_flash_coop_emu.comp (the operations emulated in plain GLSL; *emulate set; the
 * H100 driver fails to create that pipeline, VkResult -13). */
static uint32_t flash_coop_wg(const KernelCtx *kc, const GqaDims *d, DType dt, bool *emulate) {
    const WnrtDeviceInfo *dev = kc_device(kc);
    const char *e = getenv("WEBNNC_FLASH_COOP");
    *emulate = e && strcmp(e, "emulate") == 0;
    bool native = ext_coop(kc, dt) && dev->subgroup_arithmetic && dev->subgroup_size == 32;
    if (!(*emulate ? dt == DT_F16 : native) || d->H % 16 || d->H > GQA_FLASH_MAX_H ||
        dev->max_shared_memory < flash_coop_shared(d->H, *emulate) || (e && strcmp(e, "0") == 0))
        return 0;
    return 32 * (uint32_t)wnrt_env_long("WEBNNC_FLASH_COOP_SUBGROUPS", 1, 4, GQA_FLASH_COOP_SUBGROUPS);
}

/* The attention scale: the node's, else 1/sqrt(head size). */
static float attn_scale(const Node *n, const GqaDims *d) {
    double scale = node_float(n, "scale", 0.0);
    return (float)(scale == 0 ? 1.0 / sqrt((double)d->H) : scale);
}

/* The local window of the node (0: none). */
static uint32_t attn_window(const Node *n) {
    int64_t window = node_int(n, "localWindowSize", -1);
    return window > 0 && window < INT32_MAX ? (uint32_t)window : 0;
}

static int record_attention(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out, const GqaDims *d) {
    const WnrtDeviceInfo *dev = kc_device(kc);
    uint32_t tpr = flash_tpr();
    bool flash = d->S >= GQA_FLASH_MIN_S && d->H <= GQA_FLASH_MAX_H && dev->subgroup_shuffle &&
                 dev->subgroup_size >= tpr && !wnrt_env_flag("WEBNNC_NO_FLASH_ATTN", false);
    bool emulate = false;
    uint32_t dwg = flash ? 0 : dec_wg(kc, d), cwg = flash ? flash_coop_wg(kc, d, in[GQA_QUERY].dtype, &emulate) : 0;
    const char *coop = emulate ? "ext_gqa_attn_flash_coop_emu" : "ext_gqa_attn_flash_coop";
    int sh = kc_find_shader(kc, n, cwg ? coop : flash ? "ext_gqa_attn_flash" : dwg ? "ext_gqa_attn_dec" : "ext_gqa_attn",
                            in[GQA_QUERY].dtype, in[GQA_QUERY].dtype);
    if (sh < 0) return -1;
    AttnPush pc;
    memset(&pc, 0, sizeof pc);
    pc.B = (uint32_t)d->B, pc.S = (uint32_t)d->S, pc.N = (uint32_t)d->N, pc.kvN = (uint32_t)d->kvN;
    pc.H = (uint32_t)d->H, pc.C = (uint32_t)d->C;
    pc.window = attn_window(n);
    pc.scale = attn_scale(n, d);
    pc.softcap = (float)node_float(n, "softcap", 0.0);
    bool bias = present(n, GQA_ATTENTION_BIAS), sink = present(n, GQA_HEAD_SINK);
    pc.bias_b = bias ? (uint32_t)in[GQA_ATTENTION_BIAS].shape[0] : 1;
    pc.bias_n = bias ? (uint32_t)in[GQA_ATTENTION_BIAS].shape[1] : 1;
    KBind b[6];
    if (ext_bind(kc, n, &out[GQA_OUT], true, &b[0], &pc.base_out) < 0 ||
        ext_bind(kc, n, &in[GQA_SEQLENS_K], false, &b[1], &pc.base_seqlens) < 0 ||
        ext_bind(kc, n, &out[GQA_PRESENT_KEY], false, &b[2], &pc.base_k) < 0 ||
        ext_bind(kc, n, &out[GQA_PRESENT_VALUE], false, &b[3], &pc.base_v) < 0 ||
        bind_opt(kc, n, in, GQA_ATTENTION_BIAS, &b[1], &b[4], &pc.base_bias) < 0 ||
        bind_opt(kc, n, in, GQA_HEAD_SINK, &b[1], &b[5], &pc.base_sink) < 0)
        return -1;
    /* spec 1: channels per lane (decode kernel), per invocation (flash), 16-channel blocks (coop flash), else
     * subgroup reductions */
    uint32_t spec[6] = {dwg ? dwg : cwg ? cwg : GQA_WG,
                        dwg     ? dec_cpl(kc, d)
                        : cwg   ? (uint32_t)d->H / 16
                        : flash ? (uint32_t)(d->H + tpr - 1) / tpr
                                : ext_sg_reduce(kc),
                        bias, sink, node_bool(n, "smoothSoftmax", false), dwg ? dec_kb(kc, d) : tpr};
    uint64_t bq = cwg ? cwg / 2 : GQA_WG / tpr, blocks = flash ? (uint64_t)(d->S + bq - 1) / bq : (uint64_t)d->S;
    return ext_dispatch_rows(kc, n, sh, spec, flash || dwg ? 6 : 5, &pc, sizeof pc, b, 6, (uint64_t)(d->B * d->N) * blocks);
}

/* Whether one decode step runs as the single dispatch of ext_gqa_dec_fused.comp: one new token per
 * batch, the decode kernel's geometry (dec_wg), no attentionBias / headSink (WEBNNC_GQA_FUSED=0:
 * the four dispatches). */
static bool dec_fused_on(const WnrtDeviceInfo *dev, const Node *n, const GqaDims *d) {
    return d->S == 1 && dec_wg_on(dev, d, false) && !present(n, GQA_ATTENTION_BIAS) && !present(n, GQA_HEAD_SINK) &&
           wnrt_env_flag("WEBNNC_GQA_FUSED", true);
}

static bool dec_fused(const KernelCtx *kc, const Node *n, const GqaDims *d) { return dec_fused_on(kc_device(kc), n, d); }

/* The output projection a decode dispatch takes over (kfam_gqa_oproj): the rewrite's extra inputs. */
typedef struct {
    NBitsGeom geo;
    const KTensor *w, *scales, *zp, *res, *res_bias, *y; /* zp, res_bias NULL when absent */
} OprojRun;

/* Workgroups per head of ext_gqa_dec_oproj.comp: each takes at most GQA_OPROJ_ROWS of o_proj's rows
 * (and at least one per invocation); WEBNNC_OPROJ_REPS=1..64 asks for another count (not fewer than
 * one row per invocation needs).  H200, generate tok/s after 128 / 512 tokens by workgroups per head,
 * the same call: Qwen2-0.5B (896 rows, 768 invocations) 2: 1314 / 1192, 4: 1332 / 1202, 6: 1326 /
 * 1200, 8: 1324 / 1198; SmolLM-135M (576 rows, 768 invocations) 1: 1292 / 1143, 2: 1316 / 1162, 3:
 * 1326 / 1170, 4: 1316 / 1164, 6: 1316 / 1163.  (The attention of every workgroup of a head is the
 * same work; what shrinks is each workgroup's share of the rows and of the atomics.) */
#define GQA_OPROJ_ROWS 224
/* o_proj's operands loaded at the start of the attention and parked in shared memory through the key
 * loop (gqa_dec_fused.glsl OPROJ_PARK_ROWS / OPROJ_PARK_UNITS), where the parked rows (OPROJ_PARK_BYTES
 * per row and unit of 32 channels, plus OPROJ_PARK_ROW_BYTES) fit the device's shared memory beside
 * the kernel's other arrays (GQA_DEC_SHARED_BYTES); WEBNNC_OPROJ_EARLY=0: loaded after the key loop.
 * H200, `generate` of 128 tokens, the same binary alternating, tok/s after 128 / 512 prompt tokens, late -> early: Qwen2-0.5B
 * 1416-1420 / 1294-1296 -> 1427-1428 / 1299-1301 (attention 11.01 -> 10.81 us timestamped, 67 -> 78
 * registers), SmolLM-135M 1389-1390 / 1235-1242 -> 1409 / 1249-1251; the same ids.  (Held in
 * registers through the key loop's last run instead, they had been slower: bench/HISTORY.md,
 * twenty-third session.) */
#define OPROJ_PARK_BYTES 20    /* a unit's 16 bytes of weights and its float scale */
#define OPROJ_PARK_ROW_BYTES 12 /* a row's packed zero points (a word) and its residual and bias (two floats) */
/* The kernel's other shared arrays: shaders/gqa_dec_sizes.h's, which the shaders declare from the same
 * sizes, and room for the scalars beside them (gqa_dec_fused.glsl's last_chunk). */
#define GQA_DEC_SHARED_SCALARS 256
#define GQA_DEC_SHARED_BYTES (4 * GQA_DEC_SHARED_FLOATS + GQA_DEC_SHARED_SCALARS)
#define OPROJ_PARK_SPEC 25 /* and 26: the units */
static uint32_t oproj_park_rows(const WnrtDeviceInfo *dev, uint64_t rows_per_wg, uint32_t units) {
    uint64_t bytes = GQA_DEC_SHARED_BYTES + rows_per_wg * (OPROJ_PARK_BYTES * (uint64_t)units + OPROJ_PARK_ROW_BYTES);
    return bytes <= dev->max_shared_memory && wnrt_env_flag("WEBNNC_OPROJ_EARLY", true) ? (uint32_t)rows_per_wg : 0;
}
static uint32_t oproj_reps(uint64_t rows, uint32_t wg) {
    uint64_t need = (rows + wg - 1) / wg, want = (rows + GQA_OPROJ_ROWS - 1) / GQA_OPROJ_ROWS;
    uint32_t reps = (uint32_t)wnrt_env_long("WEBNNC_OPROJ_REPS", 1, 64, (long)(want > need ? want : need));
    return reps < need ? (uint32_t)need : reps;
}

/* ext_gqa_dec_oproj.comp's operands, parameters and specialization constants (13..15). */
static int bind_oproj(KernelCtx *kc, const Node *n, const OprojRun *f, DecFusedPush *pc, KBind *b, uint32_t *spec, uint32_t wg) {
    uint64_t rows = (uint64_t)f->geo.n, words = OPROJ_ACC_WORDS * rows;
    uint32_t wbase, zbase = 0;
    pc->o_rows = (uint32_t)rows;
    pc->o_kshift = 0;
    while ((1ll << pc->o_kshift) < f->geo.block) pc->o_kshift++;
    b[13] = b[4];
    if (kc_counters_bind(kc, n, words, &b[12]) < 0 || kc_bind_window(kc, n, f->w, 0, (int64_t)f->w->numel - 1, false, &b[14], &wbase) < 0 ||
        ext_bind(kc, n, f->scales, false, &b[15], &pc->o_s) < 0 || ext_bind(kc, n, f->res, false, &b[16], &pc->base_res) < 0 ||
        ext_bind(kc, n, f->y, true, &b[18], &pc->base_y) < 0 ||
        (f->zp && kc_bind_window(kc, n, f->zp, 0, (int64_t)f->zp->numel - 1, false, &b[13], &zbase) < 0))
        return -1;
    b[17] = b[16];
    if (f->res_bias && ext_bind(kc, n, f->res_bias, false, &b[17], &pc->base_rb) < 0) return -1;
    if (wbase % 16) {
        diag_node_error(n, "internal: o_proj weights are not 16-byte aligned");
        return -1;
    }
    pc->o_w = wbase / 16;
    pc->o_z = zbase * 2;
    spec[13] = oproj_reps(rows, wg);
    spec[14] = f->zp != NULL;
    spec[15] = f->res_bias != NULL;
    uint32_t units = pc->H / 32; /* of 32 channels per o_proj row of a head */
    spec[OPROJ_PARK_SPEC] = oproj_park_rows(kc_device(kc), (rows + spec[13] - 1) / spec[13], units);
    spec[OPROJ_PARK_SPEC + 1] = units;
    return 0;
}

/* Spec constants of ext_gqa_dec_fused.comp / ext_gqa_dec_oproj.comp: 0..15, 25 and 26 (OPROJ_PARK_SPEC) and 27 (DEC_PAIRS_SPEC) as recorded, 16..24 the
 * node's geometry fixed at pipeline creation (gqa_dec_fused.glsl FIX_*: head size, heads, kv heads,
 * cache rows, rotary size, window, whether softcap is set, o_proj's rows and block shift), so that
 * the kernel's loops over channels have constant bounds and its head and cache indices constant
 * arithmetic.  H200, Qwen2-0.5B webgpu `generate` of 128 tokens, the same binary with
 * WEBNNC_GQA_DEC_FIXED=0 / 1 alternating three times (the mat-vecs' geometry fixed in both): 1361-1365
 * -> 1396-1403 tok/s after 128 prompt tokens, 1230-1233 -> 1273-1281 after 512, the same ids;
 * attention 11.95 -> 11.03 us a layer (timestamped), 78 -> 67 registers, 40 -> 30 KB of code.  (The
 * head size alone, another call: 1330-1335 -> 1352-1353 and 1204-1205 -> 1229-1233.)
 * WEBNNC_GQA_DEC_FIXED=0: never. */
#define DEC_FIX 16
#define DEC_PAIRS_SPEC (OPROJ_PARK_SPEC + 2)
#define DEC_WIDE_SPEC (DEC_PAIRS_SPEC + 1)
#define DEC_SPEC (DEC_WIDE_SPEC + 1)
static void dec_fix(uint32_t *spec, const DecFusedPush *pc, bool fold) {
    if (!wnrt_env_flag("WEBNNC_GQA_DEC_FIXED", true)) return;
    uint32_t *f = spec + DEC_FIX;
    f[0] = pc->H, f[1] = pc->N, f[2] = pc->kvN, f[3] = pc->C, f[4] = K_FIXED1(pc->rot), f[5] = K_FIXED1(pc->window);
    f[6] = pc->softcap > 0.0f ? 2 : 1;
    if (fold) f[7] = pc->o_rows, f[8] = K_FIXED1(pc->o_kshift);
}

/* Whether the fused decode's key loop reads the caches as packed float16 pairs with the next run's
 * loads issued before the current run is scored (gqa_dec.glsl DEC_PAIRS): float16 rows, an even
 * count of channels per lane (a lane's pairs cover its registers) and even cache offsets (a pair is
 * one aligned word).  H200, Qwen2-0.5B webgpu `generate` of 128 tokens, the same binary with
 * WEBNNC_GQA_DEC_PAIRS=0 / 1 alternating three times: 1443-1447 -> 1461-1462 tok/s after 128 prompt
 * tokens, 1311-1313 -> 1365-1368 after 512, the same ids; attention 10.82 -> 10.66 / 13.85 -> 12.67 us
 * a layer (timestamped), 78 -> 79 registers.  WEBNNC_GQA_DEC_PAIRS=0: never. */
static bool dec_pairs(const KTensor *query, uint32_t cpl, const DecFusedPush *pc) {
    return query->dtype == DT_F16 && cpl % 2 == 0 && pc->H % 2 == 0 && pc->base_k % 2 == 0 && pc->base_v % 2 == 0 &&
           wnrt_env_flag("WEBNNC_GQA_DEC_PAIRS", true);
}

/* Keys per lane of the fused decode's wide runs (gqa_dec.glsl DEC_WIDE_NK; 0: none): where the key loop
 * reads packed pairs (dec_pairs), the head size is 8 channels times a power of two lanes that divides
 * the subgroup, and the caches' rows start on 16-byte boundaries (uvec4 loads), GQA_DEC_WIDE_NK, at
 * most the lanes of a key (WEBNNC_GQA_DEC_WIDE=0: never; 1, 2, 4, 8 keys per lane). */
static uint32_t dec_wide(const WnrtDeviceInfo *dev, bool pairs, const DecFusedPush *pc) {
    uint32_t sgs = dev->subgroup_size, lanes = pc->H / 8;
    long nk = wnrt_env_long("WEBNNC_GQA_DEC_WIDE", 0, 8, GQA_DEC_WIDE_NK);
    if (!pairs || !dev->subgroup_shuffle || pc->H % 8 || lanes == 0 || (lanes & (lanes - 1)) || lanes > sgs ||
        pc->base_k % 8 || pc->base_v % 8 || dev->min_storage_offset_alignment % 16 || nk == 0)
        return 0;
    while (nk & (nk - 1)) nk &= nk - 1;
    return (uint32_t)nk < lanes ? (uint32_t)nk : lanes;
}

/* Decode in one dispatch: prep of query, key and value rows, cache write and attention (and, with
 * `fold`, the output projection after it: ext_gqa_dec_oproj.comp). */
static int record_dec_fused(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out, const GqaDims *d,
                            const OprojRun *fold) {
    int sh = kc_find_shader(kc, n, fold ? "ext_gqa_dec_oproj" : "ext_gqa_dec_fused", in[GQA_QUERY].dtype, in[GQA_QUERY].dtype);
    if (sh < 0) return -1;
    DecFusedPush pc;
    memset(&pc, 0, sizeof pc);
    pc.B = (uint32_t)d->B, pc.N = (uint32_t)d->N, pc.kvN = (uint32_t)d->kvN, pc.H = (uint32_t)d->H;
    pc.C = (uint32_t)d->C, pc.window = attn_window(n), pc.rot = (uint32_t)d->rot, pc.max_pos = (uint32_t)d->max_pos;
    pc.scale = attn_scale(n, d);
    pc.softcap = (float)node_float(n, "softcap", 0.0);
    pc.eps = (float)node_float(n, "qkNormEpsilon", 1e-6);
    const KTensor *k = d->packed ? &in[GQA_QUERY] : &in[GQA_KEY], *v = d->packed ? &in[GQA_QUERY] : &in[GQA_VALUE];
    pc.q_row = (uint32_t)in[GQA_QUERY].shape[2], pc.k_row = (uint32_t)k->shape[2], pc.v_row = (uint32_t)v->shape[2];
    pc.k_head0 = (uint32_t)(d->packed ? d->N : 0), pc.v_head0 = (uint32_t)(d->packed ? d->N + d->kvN : 0);
    bool rot = d->rotary, has_pos = rot && present(n, GQA_POSITION_IDS);
    bool qn = present(n, GQA_Q_NORM), kn = present(n, GQA_K_NORM);
    KBind b[19];
    uint64_t ws_bytes, words;
    uint32_t chunks = dec_chunks(kc, n, &ws_bytes, &words);
    if (fold && (chunks != 1 || d->B != 1)) {
        diag_node_error(n, "internal: the output projection is folded into a split decode attention");
        return -1;
    }
    if (ext_bind(kc, n, &out[GQA_OUT], true, &b[0], &pc.base_out) < 0 ||
        ext_bind(kc, n, &in[GQA_SEQLENS_K], false, &b[1], &pc.base_seqlens) < 0 ||
        ext_bind(kc, n, &out[GQA_PRESENT_KEY], true, &b[2], &pc.base_k) < 0 ||
        ext_bind(kc, n, &out[GQA_PRESENT_VALUE], true, &b[3], &pc.base_v) < 0 ||
        ext_bind(kc, n, &in[GQA_QUERY], false, &b[4], &pc.base_q_in) < 0 || ext_bind(kc, n, k, false, &b[5], &pc.base_k_in) < 0 ||
        ext_bind(kc, n, v, false, &b[6], &pc.base_v_in) < 0)
        return -1;
    b[7] = b[1];
    if (has_pos && ext_bind_words(kc, n, &in[GQA_POSITION_IDS], &b[7], &pc.base_pos) < 0) return -1;
    if (bind_opt(kc, n, in, rot ? GQA_COS : GQA_SLOTS, &b[4], &b[8], &pc.base_cos) < 0 ||
        bind_opt(kc, n, in, rot ? GQA_SIN : GQA_SLOTS, &b[4], &b[9], &pc.base_sin) < 0 ||
        bind_opt(kc, n, in, qn ? GQA_Q_NORM : GQA_SLOTS, &b[4], &b[10], &pc.base_q_norm) < 0 ||
        bind_opt(kc, n, in, kn ? GQA_K_NORM : GQA_SLOTS, &b[4], &b[11], &pc.base_k_norm) < 0)
        return -1;
    b[12] = b[13] = b[4]; /* one chunk: never used */
    if (chunks > 1 && (kc_scratch_bind(kc, n, ws_bytes, &b[12]) < 0 || kc_counters_bind(kc, n, words, &b[13]) < 0)) return -1;
    const WnrtDeviceInfo *dev = kc_device(kc);
    uint32_t cpl = dec_cpl(kc, d), kb = dec_kb(kc, d);
    bool regs = dev->subgroup_shuffle && cpl <= GQA_DEC_REG_CPL && wnrt_env_flag("WEBNNC_GQA_DEC_REGS", true);
    uint32_t spec[DEC_SPEC] = {dec_wg(kc, d), cpl, node_bool(n, "smoothSoftmax", false), qn, kn, rot,
                               node_bool(n, "rotaryInterleaved", false), has_pos, has_pos && in[GQA_POSITION_IDS].dtype == DT_I64,
                               chunks, kb, (uint32_t)wnrt_env_long("WEBNNC_GQA_DEC_CHUNK_ROWS", 16, 65536, dec_work_rows(d->H)),
                               regs};
    spec[DEC_PAIRS_SPEC] = dec_pairs(&in[GQA_QUERY], cpl, &pc);
    spec[DEC_WIDE_SPEC] = dec_wide(dev, spec[DEC_PAIRS_SPEC], &pc);
    if (spec[DEC_WIDE_SPEC]) spec[0] = dec_wg_on(dev, d, true);
    if (fold && bind_oproj(kc, n, fold, &pc, b, spec, spec[0]) < 0) return -1;
    dec_fix(spec, &pc, fold);
    return ext_dispatch_rows(kc, n, sh, spec, DEC_SPEC, &pc, sizeof pc, b, fold ? 19 : 14,
                             (uint64_t)(d->B * d->N) * chunks * (fold ? spec[13] : 1));
}

/* Without a cache: attention over the S new tokens, keys/values read from the inputs. */
static int record_attention_nc(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out, const GqaDims *d) {
    int sh = kc_find_shader(kc, n, "ext_gqa_attn_nc", in[GQA_QUERY].dtype, in[GQA_QUERY].dtype);
    if (sh < 0) return -1;
    AttnNcPush pc;
    memset(&pc, 0, sizeof pc);
    pc.B = (uint32_t)d->B, pc.S = (uint32_t)d->S, pc.N = (uint32_t)d->N, pc.kvN = (uint32_t)d->kvN, pc.H = (uint32_t)d->H;
    pc.window = attn_window(n);
    pc.scale = attn_scale(n, d);
    pc.softcap = (float)node_float(n, "softcap", 0.0);
    pc.eps = (float)node_float(n, "qkNormEpsilon", 1e-6);
    pc.rot = (uint32_t)d->rot, pc.max_pos = (uint32_t)d->max_pos;
    const KTensor *k = d->packed ? &in[GQA_QUERY] : &in[GQA_KEY], *v = d->packed ? &in[GQA_QUERY] : &in[GQA_VALUE];
    pc.k_row = (uint32_t)k->shape[2], pc.v_row = (uint32_t)v->shape[2];
    pc.k_head0 = (uint32_t)(d->packed ? d->N : 0), pc.v_head0 = (uint32_t)(d->packed ? d->N + d->kvN : 0);
    bool rot = d->rotary, has_pos = rot && present(n, GQA_POSITION_IDS), norm = present(n, GQA_K_NORM);
    KBind b[7];
    if (ext_bind(kc, n, &out[GQA_OUT], true, &b[0], &pc.base_out) < 0 || ext_bind(kc, n, k, false, &b[1], &pc.base_k) < 0 ||
        ext_bind(kc, n, v, false, &b[2], &pc.base_v) < 0 ||
        bind_opt(kc, n, in, rot ? GQA_COS : GQA_SLOTS, &b[1], &b[3], &pc.base_cos) < 0 ||
        bind_opt(kc, n, in, rot ? GQA_SIN : GQA_SLOTS, &b[1], &b[4], &pc.base_sin) < 0 ||
        bind_opt(kc, n, in, norm ? GQA_K_NORM : GQA_SLOTS, &b[1], &b[6], &pc.base_norm) < 0)
        return -1;
    b[5] = b[1];
    if (has_pos && ext_bind_words(kc, n, &in[GQA_POSITION_IDS], &b[5], &pc.base_pos) < 0) return -1;
    uint32_t spec[8] = {GQA_WG, ext_sg_reduce(kc), norm, rot, node_bool(n, "rotaryInterleaved", false), has_pos,
                        has_pos && in[GQA_POSITION_IDS].dtype == DT_I64, node_bool(n, "smoothSoftmax", false)};
    return ext_dispatch_rows(kc, n, sh, spec, 8, &pc, sizeof pc, b, 7, (uint64_t)(d->B * d->S * d->N));
}

/* The node's dispatches; `fold`: its decode step (one token, one batch row) also takes the output
 * projection after it (kfam_gqa_oproj). */
static int record_node(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out, const GqaDims *dims,
                       const OprojRun *fold) {
    GqaDims d = *dims;
    if (!d.cache) {
        if (out[GQA_OUT].numel == 0) return 0;
        if (record_prep(kc, n, in, out, &d) < 0) return -1;
        return record_attention_nc(kc, n, in, out, &d);
    }
    if (out[GQA_OUT].numel == 0 && in[GQA_PAST_KEY].numel == 0) return 0;
    for (int k = 0; k < 2; k++) { /* (1) present = past, unless they share storage */
        const KTensor *past = &in[GQA_PAST_KEY + k], *pres = &out[GQA_PRESENT_KEY + k];
        if (!same_storage(past, pres) && past->numel && kx_copy(kc, n, past, pres) < 0) return -1;
    }
    if (dec_fused(kc, n, &d)) return record_dec_fused(kc, n, in, out, &d, fold); /* (2) + (3) in one dispatch */
    if (fold) {
        diag_node_error(n, "internal: the output projection is folded into a decode attention of several dispatches");
        return -1;
    }
    if (record_prep(kc, n, in, out, &d) < 0) return -1; /* (2) query rows, new key and value rows */
    return record_attention(kc, n, in, out, &d); /* (3) */
}

static int gqa_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    GqaDims d;
    return gqa_dims(n, in, out, &d) < 0 ? -1 : record_node(kc, n, in, out, &d, NULL);
}

const KernelFamily kfam_gqa = {gqa_check, gqa_record, 0};

/* ---- the output projection taken over at decode (k_oproj_fold.h, plan_oproj.c) ----------------- */

bool ext_gqa_oproj_ok(const WnrtDeviceInfo *dev, const Node *gqa, const Node *oproj) {
    const Value *o = gqa->outputs[GQA_OUT], *q = gqa->inputs[GQA_QUERY];
    int64_t N = node_int(gqa, "numHeads", 0);
    NBitsGeom geo;
    KMatvecRows rows;
    const Value *zp = kx_opt(oproj, 3), *scales = kx_opt(oproj, 2);
    if (!dev->int64_atomics || !wnrt_env_flag("WEBNNC_OPROJ_FOLD", true) || !has_cache(gqa) || !q ||
        (q->dtype != DT_F16 && q->dtype != DT_F32) || o->rank != 3 || !dim_is_static(o->shape[2]) || N < 1 || N > 64 ||
        o->shape[2].v % N || present(gqa, GQA_K_SCALE) || present(gqa, GQA_V_SCALE) || dec_chunks_wanted(gqa) != 1)
        return false;
    GqaDims d = {.S = 1, .H = o->shape[2].v / N};
    uint32_t wg = dec_wg_on(dev, &d, false), wide_wg = dec_wg_on(dev, &d, true); /* (either may run) */
    if (wide_wg < wg) wg = wide_wg;
    return d.H % 32 == 0 && d.H <= 128 && dec_fused_on(dev, gqa, &d) && nbits_geometry(oproj, &geo) == 0 && geo.bits == 4 &&
           geo.k == o->shape[2].v && geo.block % 32 == 0 && !kx_opt(oproj, 4) && scales && scales->dtype == q->dtype &&
           ext_nbits_rows_layout(&geo, zp != NULL, zp ? zp->dtype : DT_U8, &rows) && (uint64_t)geo.n <= 64 * (uint64_t)wg;
}

static int oproj_check(KernelCtx *kc, const Node *n) {
    const OprojFold *f = kc_node_params(kc, n);
    NBitsGeom geo;
    if (!f || nbits_geometry(f->oproj, &geo) < 0) {
        diag_node_error(n, "internal: output projection fold without its matmulNBits");
        return -1;
    }
    DType dt = n->inputs[GQA_QUERY]->dtype;
    if (gqa_check(kc, n) < 0 || kcheck_shader(kc, n, "ext_gqa_dec_oproj", dt, dt) < 0) return -1;
    if (kc_counters_reserve(kc, OPROJ_ACC_WORDS * (uint64_t)geo.n) < 0) {
        diag_node_error(n, "internal: %lld o_proj accumulators exceed the scratch storage", (long long)geo.n);
        return -1;
    }
    return 0;
}

static int oproj_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    const OprojFold *f = kc_node_params(kc, n);
    GqaDims d;
    if (gqa_dims(n, in, out, &d) < 0) return -1;
    if (d.B * d.S != 1) return record_node(kc, n, in, out, &d, NULL);
    OprojRun run = {.w = &in[OPROJ_W], .scales = &in[OPROJ_SCALES], .res = &in[OPROJ_RES], .y = &in[OPROJ_Y],
                    .zp = in[OPROJ_ZP].value ? &in[OPROJ_ZP] : NULL, .res_bias = in[OPROJ_RES_BIAS].value ? &in[OPROJ_RES_BIAS] : NULL};
    if (nbits_geometry(f->oproj, &run.geo) < 0) return -1;
    uint64_t rows = (uint64_t)run.geo.n;
    if (run.y->numel != rows || run.res->numel != rows || (run.res_bias && run.res_bias->numel != rows) ||
        run.scales->numel != rows * (uint64_t)run.geo.k_blocks || run.w->numel != rows * (uint64_t)(run.geo.k / 2) ||
        (run.zp && run.zp->numel != rows * (uint64_t)run.geo.zp_row_bytes)) {
        diag_node_error(n, "internal: the output projection's operands do not match it");
        return -1;
    }
    return record_node(kc, n, in, out, &d, &run);
}

const KernelFamily kfam_gqa_oproj = {oproj_check, oproj_record, 0};
