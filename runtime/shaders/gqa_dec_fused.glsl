// gqa_dec_fused.glsl - the body of ext_gqa_dec_fused.comp and ext_gqa_dec_oproj.comp (OPROJ_FOLD 1):
// groupQueryAttention for one new token per batch (decode, S = 1) with a
// KV cache in one dispatch: what ext_gqa_prep.comp (query, key and value roles) and
// ext_gqa_attn_dec.comp do in four.  CHUNKS workgroups per (batch, query head), each:
//   1. loads its query row and the new key and value rows of its kv head (packed [N | kvN | kvN]
//      heads per token, or separate key/value inputs), applies the q/k RMSNorm and the rotary
//      embedding at position positionIds[b] (else past), rounds them to the storage type as the
//      four-dispatch path does when it stores them;
//   2. the first query head of each kv group (its last chunk) writes the new key/value rows into
//      the present caches at row past (no other workgroup reads that row: everyone takes row past
//      from shared memory or registers);
//   3. attends over its chunk of the cache rows lo..past-1: the last nch = min(CHUNKS, length /
//      DEC_CHUNK_ROWS) (at least 1) workgroups split the actual length into near-equal parts, so
//      that a head's keys spread over nch cores; the others return at once.  The last chunk also
//      attends over the new row, not read from memory (a select between the two inside the key
//      loop kept its loads from overlapping; gqa_dec.glsl);
// Steps 1 and 2 run in shared memory with barriers, or (REG_PREP, where the host finds few channels
// per lane and subgroup shuffles) in each subgroup's registers with no barrier.
//   4. when split: writes its partial result (max, sum, unnormalized output) to ws[], counts its
//      arrival in cnt[batch, head]; the last to arrive reads the nch partials into shared memory,
//      combines them, writes the output and sets the count back to 0 (the counters start at 0:
//      kc_counters_*).
// OPROJ_FOLD 1 (ext_gqa_dec_oproj.comp, runtime/plan_oproj.c; one chunk, one batch row): the output
// projection that reads this node's output (an int4 matmulNBits, o_proj) and the skip sum after it
// are taken here, so that o_proj needs no dispatch of its own.  OPROJ_REPS workgroups per head each
// attend over the whole cache (the same work, the same results) and multiply the head's output
// channels, rounded as the output tensor stores them, by the head's columns of their share of
// o_proj's rows (one row per invocation, its weights loaded at the start and parked in shared memory
// through the key loop, OPROJ_EARLY, or loaded after the key loop).  Each row's N
// partial sums (one per head) go into a 64-bit accumulator with atomicAdd, as fixed-point integers
// (x 2^32, offset by 2^49 to be non-negative: partial sums |s| < 2^17 - 1, twice float16's largest
// value) plus a count of one in bits 56..62: integer addition does not depend on the order in which
// the heads arrive, so the results do not either.  A partial sum outside that range (or NaN, or
// infinite) adds only its count there; it is added as a float to a second accumulator of the row
// (a compare-and-swap loop) and sets bit 63, so that such rows still get the sum, infinity or NaN
// that o_proj would give (in the order the heads arrive: only on those rows).  The invocation whose
// add brings the count to N has the whole sum: it writes o_proj's output as plan_residual.c's
// epilogue would, the product rounded to the activation type plus the residual (and its bias), and
// sets the accumulators back to zero (the runtime's counters, which every dispatch leaves zero).
// N <= 64.
// A batch whose seqlensK is outside 0..C-1 gets zeros and writes no cache row.  No attentionBias
// or headSink here (the host keeps the four-dispatch path for them); smoothSoftmax is supported.
#include "common.glsl"
#extension GL_EXT_control_flow_attributes : enable
#ifndef OPROJ_FOLD
#define OPROJ_FOLD 0
#endif
#if OPROJ_FOLD
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : enable
#extension GL_EXT_shader_atomic_int64 : enable
#endif
#include "gqa_dec_sizes.h"
#define EXT_REDUCTION GQA_DEC_RED_SLOTS
#include "ext_common.glsl"

layout(constant_id = 1) const uint CPL = 2u; // channels per lane (<= 32)
layout(constant_id = 2) const bool SMOOTH = false;
layout(constant_id = 3) const bool Q_NORM = false;
layout(constant_id = 4) const bool K_NORM = false;
layout(constant_id = 5) const bool ROTARY = false;
layout(constant_id = 6) const bool INTERLEAVED = false;
layout(constant_id = 7) const bool POS_IDS = false;
layout(constant_id = 8) const bool POS64 = false;
layout(constant_id = 9) const uint CHUNKS = 1u; // workgroups per (batch, head)
layout(constant_id = 10) const uint DEC_KB = 4u; // keys per run of a subgroup (gqa_dec.glsl)
layout(constant_id = 11) const uint DEC_CHUNK_ROWS = 1024u; // cache rows per working chunk at least (main)
layout(constant_id = 12) const bool REG_PREP = false;   // the query and new rows prepared in registers (main)
#if OPROJ_FOLD
layout(constant_id = 13) const uint OPROJ_REPS = 2u;  // workgroups per head, each over its share of o_proj's rows
layout(constant_id = 14) const bool OPROJ_ZP = false; // o_proj has (uint4) zero points
layout(constant_id = 15) const bool OPROJ_RB = false; // the skip sum has a bias
#else
const uint OPROJ_REPS = 1u;
#endif
const bool HAS_BIAS = false, HAS_SINK = false;
// The node's geometry fixed at pipeline creation (common.glsl FIXED_OR; k_gqa.c dec_fix): constant
// loop bounds and index arithmetic instead of loads, branches and integer divisions.
layout(constant_id = 16) const uint FIX_H = 0u;        // pc.H
layout(constant_id = 17) const uint FIX_N = 0u;        // pc.N
layout(constant_id = 18) const uint FIX_KVN = 0u;      // pc.kvN
layout(constant_id = 19) const uint FIX_C = 0u;        // pc.C
layout(constant_id = 20) const uint FIX_ROT = 0u;      // pc.rot + 1
layout(constant_id = 21) const uint FIX_WINDOW = 0u;   // pc.window + 1
layout(constant_id = 22) const uint FIX_SOFTCAP = 0u;  // 1: pc.softcap is 0, 2: it is not
layout(constant_id = 23) const uint FIX_O_ROWS = 0u;   // pc.o_rows (OPROJ_FOLD)
layout(constant_id = 24) const uint FIX_O_KSHIFT = 0u; // pc.o_kshift + 1 (OPROJ_FOLD)
#if OPROJ_FOLD
// o_proj's operands loaded at the start, with the query row, and parked in shared memory before the
// key loop (each invocation its own row's: no barrier), instead of loaded after the key loop: the
// rows of a workgroup (0: not parked) and the units of 32 channels per row (k_gqa.c oproj_park_rows,
// which keeps the parked arrays within the device's shared memory).
layout(constant_id = 25) const uint OPROJ_PARK_ROWS = 0u;
layout(constant_id = 26) const uint OPROJ_PARK_UNITS = 1u;
const bool OPROJ_EARLY = OPROJ_PARK_ROWS != 0u;
#else
const bool OPROJ_EARLY = false;
#endif
// The key loop on packed float16 pairs, the next run loaded while one is scored (gqa_dec.glsl
// DEC_PAIRS; k_gqa.c dec_pairs: float16 rows, an even count of channels per lane, even bases).
layout(constant_id = 27) const bool PAIRS = false;
#define DEC_H FIXED_OR(FIX_H, pc.H)
#define DEC_N FIXED_OR(FIX_N, pc.N)
#define DEC_KVN FIXED_OR(FIX_KVN, pc.kvN)
#define DEC_C FIXED_OR(FIX_C, pc.C)
#define DEC_ROT FIXED1_OR(FIX_ROT, pc.rot)
#define DEC_WINDOW FIXED1_OR(FIX_WINDOW, pc.window)
#define DEC_SOFTCAP (FIX_SOFTCAP != 1u)
#define O_ROWS FIXED_OR(FIX_O_ROWS, pc.o_rows)
#define O_KSHIFT FIXED1_OR(FIX_O_KSHIFT, pc.o_kshift)

PARAMS_BLOCK PC {
    uint B, N, kvN, H, C, window, rot, max_pos;
    float scale, softcap, eps;
    uint q_row, q_head0, k_row, k_head0, v_row, v_head0; // elements per token; first head of the role
    uint base_out, base_seqlens, base_k, base_v, base_q_in, base_k_in, base_v_in;
    uint base_pos, base_cos, base_sin, base_q_norm, base_k_norm;
    uint base_ws, base_cnt; // CHUNKS > 1: partial results, arrival counters
#if OPROJ_FOLD
    // o_proj's weights (uvec4 index of row 0), scales and zero points (element / nibble index of row
    // 0; rows of N H weights, N H >> o_kshift scales, as many zero points rounded up to even), log2 of
    // its block size, its rows; the residual, its bias and o_proj's output (element index).  (Declared
    // only here: without them the block spans 124 bytes, within every device's push constants.)
    uint o_w, o_s, o_z, o_kshift, o_rows, base_res, base_rb, base_y;
#endif
} pc;
layout(std430, binding = 0) writeonly buffer O { A_T io[]; };
layout(std430, binding = 1) readonly buffer Sl { int seqlens_in[]; };
// The caches through two views each: the key loop reads rows < past through readonly blocks (the
// driver's read-only load path), and row past, which no workgroup reads from memory here, is
// written through writeonly ones.
layout(std430, binding = 2) readonly buffer K { A_T k_cache[]; };
layout(std430, binding = 3) readonly buffer V { A_T v_cache[]; };
layout(std430, binding = 2) writeonly buffer Kw { A_T k_store[]; };
layout(std430, binding = 3) writeonly buffer Vw { A_T v_store[]; };
layout(std430, binding = 4) readonly buffer Q { A_T q_src[]; };
layout(std430, binding = 5) readonly buffer Ki { A_T k_src[]; };
layout(std430, binding = 6) readonly buffer Vi { A_T v_src[]; };
layout(std430, binding = 7) readonly buffer P { uint pos_in[]; };
layout(std430, binding = 8) readonly buffer Co { A_T cos_in[]; };
layout(std430, binding = 9) readonly buffer Si { A_T sin_in[]; };
layout(std430, binding = 10) readonly buffer Qn { A_T q_norm[]; };
layout(std430, binding = 11) readonly buffer Kn { A_T k_norm[]; };
layout(std430, binding = 12) coherent buffer Ws { float ws[]; };   // [B * N][CHUNKS][2 + H]
layout(std430, binding = 13) coherent buffer Cnt { uint cnt[]; }; // [B * N]
#if OPROJ_FOLD // (one chunk: bindings 12 and 13 are free)
layout(std430, binding = 12) buffer Acc { uint64_t acc64[]; };          // [2][o_rows] accumulators (fixed point, float)
layout(std430, binding = 13) readonly buffer OZ { uint o_zp[]; };       // o_proj's zero points (uint4)
layout(std430, binding = 14) readonly buffer OW { uvec4 o_w[]; };       // o_proj's weights
layout(std430, binding = 15) readonly buffer OS { A_T o_scale[]; };
layout(std430, binding = 16) readonly buffer OR { A_T o_res[]; };       // the residual
layout(std430, binding = 17) readonly buffer ORB { A_T o_rb[]; };       // its bias (OPROJ_RB)
layout(std430, binding = 18) writeonly buffer OY { A_T o_y[]; };        // o_proj's output (+ the residual)
#endif

shared float k_new[GQA_DEC_MAX_H], v_new[GQA_DEC_MAX_H]; // the new key / value rows
shared bool last_chunk;
uint dec_kv; // the (batch, kv head)'s first cache row
float dec_key(uint j, uint h) { return float(k_cache[pc.base_k + (dec_kv + j) * DEC_H + h]); }
float dec_value(uint j, uint h) { return float(v_cache[pc.base_v + (dec_kv + j) * DEC_H + h]); }
#if A_BITS == 16
#define DEC_PAIR_LOADS
#define DEC_PAIRS PAIRS
layout(std430, binding = 2) readonly buffer K2 { uint k_pairs[]; }; // the caches as packed float16 pairs
layout(std430, binding = 3) readonly buffer V2 { uint v_pairs[]; };
uint dec_key_pair(uint j, uint p) { return k_pairs[(pc.base_k + (dec_kv + j) * DEC_H) / 2u + p]; }
uint dec_value_pair(uint j, uint p) { return v_pairs[(pc.base_v + (dec_kv + j) * DEC_H) / 2u + p]; }
// Wide runs (gqa_dec.glsl DEC_WIDE_NK; k_gqa.c dec_wide: float16 rows of a multiple of 8 channels
// starting on 16-byte boundaries): the caches as uvec4 of 8 channels.
layout(constant_id = 28) const uint WIDE_NK = 0u;
#define DEC_WIDE_NK WIDE_NK
layout(std430, binding = 2) readonly buffer K4 { uvec4 k_vec4[]; };
layout(std430, binding = 3) readonly buffer V4 { uvec4 v_vec4[]; };
uvec4 dec_key_vec4(uint j, uint b) { return k_vec4[(pc.base_k + (dec_kv + j) * DEC_H) / 8u + b]; }
uvec4 dec_value_vec4(uint j, uint b) { return v_vec4[(pc.base_v + (dec_kv + j) * DEC_H) / 8u + b]; }
#endif
float knew[CPL], vnew[CPL]; // REG_PREP: the new key / value rows, this lane's channels (last subgroup)
float dec_new_key(uint c, uint h) { return REG_PREP ? knew[c] : k_new[h]; }
float dec_new_value(uint c, uint h) { return REG_PREP ? vnew[c] : v_new[h]; }
float dec_bias(uint j) { return 0.0; }
float dec_sink(uint head) { return 0.0; }
#if OPROJ_FOLD
void oproj_fetch();
#define DEC_AFTER_KEYS oproj_fetch
#endif
#include "gqa_dec.glsl"

// Rotary: the cosines and sines of this invocation's pairs j = tid + nt i (i < ROT_REGS) at cache
// position rot_pos are loaded before they are needed (rotary_fetch, so that their latency overlaps
// the q / k prep); pairs past ROT_REGS * nt (small workgroups only) load theirs in rotate().
#define ROT_REGS 4u
float rot_c[ROT_REGS], rot_s[ROT_REGS];
uint rot_pos;
void rotary_fetch(uint pos) {
    uint half_ = DEC_ROT / 2u;
    rot_pos = pos;
    [[unroll]] for (uint i = 0u; i < ROT_REGS; i++) {
        uint j = gl_LocalInvocationID.x + gl_WorkGroupSize.x * i;
        bool ok = j < half_;
        rot_c[i] = ok ? float(cos_in[pc.base_cos + pos * half_ + j]) : 0.0;
        rot_s[i] = ok ? float(sin_in[pc.base_sin + pos * half_ + j]) : 0.0;
    }
}

// Rotary embedding of pair j of row r (0: q[], 1: k_new[]) by (c, sn).
void rotate_pair(uint r, uint j, float c, float sn) {
    uint half_ = DEC_ROT / 2u;
    uint i1 = INTERLEAVED ? 2u * j : j, i2 = INTERLEAVED ? 2u * j + 1u : j + half_;
    float a = r == 0u ? q[i1] : k_new[i1], bb = r == 0u ? q[i2] : k_new[i2];
    float x1 = a * c - bb * sn, x2 = bb * c + a * sn;
    if (r == 0u) {
        q[i1] = x1;
        q[i2] = x2;
    } else {
        k_new[i1] = x1;
        k_new[i2] = x2;
    }
}

// Rotary embedding of the pairs of row r at rot_pos.
void rotate(uint r) {
    uint half_ = DEC_ROT / 2u, nt = gl_WorkGroupSize.x;
    [[unroll]] for (uint i = 0u; i < ROT_REGS; i++) {
        uint j = gl_LocalInvocationID.x + nt * i;
        if (j < half_) rotate_pair(r, j, rot_c[i], rot_s[i]);
    }
    for (uint j = gl_LocalInvocationID.x + nt * ROT_REGS; j < half_; j += nt)
        rotate_pair(r, j, float(cos_in[pc.base_cos + rot_pos * half_ + j]), float(sin_in[pc.base_sin + rot_pos * half_ + j]));
}

// ---- REG_PREP: every subgroup prepares the query row in registers (qv[c]: channel lane + SG * c),
// and the last one the new key and value rows (knew, vnew), with no shared memory and no barrier;
// with pairs (DEC_PAIRS) the three rows then move to gqa_dec.glsl's dec_channel order (REG_TO_PAIRS).
// A rotary partner
// in another lane comes by subgroupShuffle (CPL^2 shuffles a row: the host takes this path for few
// channels per lane).
float rc[CPL], rs[CPL]; // the cosine and sine of each channel's rotary pair (1, 0 past rot)

void reg_rotary_fetch(uint pos) {
    uint half_ = DEC_ROT / 2u;
    [[unroll]] for (uint c = 0u; c < CPL; c++) {
        uint h = gl_SubgroupInvocationID + gl_SubgroupSize * c;
        bool ok = h < DEC_ROT;
        uint j = INTERLEAVED ? h / 2u : h < half_ ? h : h - half_;
        rc[c] = ok ? float(cos_in[pc.base_cos + pos * half_ + j]) : 1.0;
        rs[c] = ok ? float(sin_in[pc.base_sin + pos * half_ + j]) : 0.0;
    }
}

// V = channel H of the row X[CPL] held across the subgroup (channel h in lane h % SG, register
// h / SG; 0 past the row), by CPL shuffles.
#define REG_CHANNEL(X, H, V) DEC_CHANNEL_IN(X, H, V, false)

// The row X[CPL] moved from channel lane + SG * c in register c to dec_channel(c) (DEC_PAIRS).
#define REG_TO_PAIRS(X)                                                                            \
    if (DEC_PAIRS) {                                                                               \
        float moved[CPL];                                                                          \
        [[unroll]] for (uint c = 0u; c < CPL; c++) REG_CHANNEL(X, dec_channel(c), moved[c])        \
        [[unroll]] for (uint c = 0u; c < CPL; c++) X[c] = moved[c];                                \
    }

// Rotary embedding of the row X[CPL] held across the subgroup: the pair of channel h is
// (h, h + half) or (h - half, h), interleaved (h & ~1, h | 1); its first member becomes
// x c - partner s, its second x c + partner s (rotate_pair).
#define REG_ROTATE(X)                                                                              \
    {                                                                                              \
        uint half_ = DEC_ROT / 2u, sgs = gl_SubgroupSize;                                           \
        float partner[CPL];                                                                        \
        [[unroll]] for (uint c = 0u; c < CPL; c++) {                                               \
            uint h = gl_SubgroupInvocationID + sgs * c;                                            \
            uint ph = h >= DEC_ROT ? h : INTERLEAVED ? h ^ 1u : h < half_ ? h + half_ : h - half_;  \
            REG_CHANNEL(X, ph, partner[c])                                                         \
        }                                                                                          \
        [[unroll]] for (uint c = 0u; c < CPL; c++) {                                               \
            uint h = gl_SubgroupInvocationID + sgs * c;                                            \
            bool first = INTERLEAVED ? (h & 1u) == 0u : h < half_;                                 \
            X[c] = X[c] * rc[c] + (first ? -partner[c] : partner[c]) * rs[c];                      \
        }                                                                                          \
    }

// X[c] *= inv_rms(X) * scale[base + h] over the subgroup's channels (q / k RMSNorm).
#define REG_NORM(X, scale, base)                                                                   \
    {                                                                                              \
        float ss = 0.0;                                                                            \
        [[unroll]] for (uint c = 0u; c < CPL; c++) ss = fma(X[c], X[c], ss);                       \
        float inv = 1.0 / sqrt(subgroupAdd(ss) / float(DEC_H) + pc.eps);                            \
        [[unroll]] for (uint c = 0u; c < CPL; c++) {                                               \
            uint h = gl_SubgroupInvocationID + gl_SubgroupSize * c;                                \
            X[c] = h < DEC_H ? X[c] * inv * float(scale[base + h]) : 0.0;                           \
        }                                                                                          \
    }

#if OPROJ_FOLD
// This invocation's o_proj row (o_row < O_ROWS: it has one), that row's weights, scales and zero
// points over the head's channels (H / 32 units of 32, at most 4), and its residual (and bias), loaded
// by oproj_load: after the key loop (oproj_fetch; so that they are not held through it, their latency
// overlapping the combine of the subgroups), or OPROJ_EARLY at the start, parked in shared memory
// through the key loop (oproj_park / oproj_unpark).
uint o_row, o_head, o_rep;
uvec4 ow[4];
float osc[4];
uint ozp[4];
float ores, orb;
// The parked operands, row by row (k_gqa.c OPROJ_PARK_BYTES per row and unit): weights and scales
// per unit, the zero points packed 4 bits per unit, the residual and its bias.
const uint PARK_N = OPROJ_EARLY ? OPROJ_PARK_ROWS : 1u, PARK_U = OPROJ_EARLY ? OPROJ_PARK_UNITS : 1u;
shared uvec4 o_wsh[PARK_N * PARK_U];
shared float o_ssh[PARK_N * PARK_U];
shared uint o_zsh[PARK_N];
shared vec2 o_rsh[PARK_N];

void oproj_load() {
    uint per = (O_ROWS + OPROJ_REPS - 1u) / OPROJ_REPS, units = DEC_H / 32u, tid = gl_LocalInvocationID.x;
    uint blocks = (DEC_N * DEC_H) >> O_KSHIFT, z_row = (blocks + 1u) & ~1u;
    o_row = tid < per ? o_rep * per + tid : O_ROWS;
    if (o_row >= O_ROWS) return;
    ores = float(o_res[pc.base_res + o_row]);
    orb = OPROJ_RB ? float(o_rb[pc.base_rb + o_row]) : 0.0;
    [[unroll]] for (uint u = 0u; u < 4u; u++) {
        if (u >= units) break;
        uint k = o_head * DEC_H + u * 32u, blk = k >> O_KSHIFT;
        ow[u] = o_w[pc.o_w + o_row * (DEC_N * DEC_H / 32u) + k / 32u];
        osc[u] = float(o_scale[pc.o_s + o_row * blocks + blk]);
        uint zi = pc.o_z + o_row * z_row + blk;
        ozp[u] = OPROJ_ZP ? (o_zp[zi / 8u] >> ((zi % 8u) * 4u)) & 15u : 8u;
    }
}

// DEC_AFTER_KEYS: the operands' loads after the key loop (unless loaded early).
void oproj_fetch() {
    if (!OPROJ_EARLY) oproj_load();
}

void oproj_park() {
    uint tid = gl_LocalInvocationID.x, z = 0u;
    if (!OPROJ_EARLY || o_row >= O_ROWS) return;
    [[unroll]] for (uint u = 0u; u < 4u; u++)
        if (u < PARK_U) {
            o_wsh[tid * PARK_U + u] = ow[u];
            o_ssh[tid * PARK_U + u] = osc[u];
            z |= ozp[u] << (4u * u);
        }
    o_zsh[tid] = z;
    o_rsh[tid] = vec2(ores, orb);
}

void oproj_unpark() {
    uint tid = gl_LocalInvocationID.x;
    if (!OPROJ_EARLY || o_row >= O_ROWS) return;
    uint z = o_zsh[tid];
    [[unroll]] for (uint u = 0u; u < 4u; u++)
        if (u < PARK_U) {
            ow[u] = o_wsh[tid * PARK_U + u];
            osc[u] = o_ssh[tid * PARK_U + u];
            ozp[u] = (z >> (4u * u)) & 15u;
        }
    vec2 r = o_rsh[tid];
    ores = r.x, orb = r.y;
}

// Adds this invocation's row of o_proj times the head's output channels (dec_o[], as stored; `live`:
// else zeros, which add nothing but their count) to the row's accumulator; the head that completes
// the row writes o_proj's output plus the residual and leaves the accumulator zero.  `parked`: the
// operands were parked (oproj_park) and are taken back first.
void oproj_finish(bool live, bool parked) {
    if (parked) oproj_unpark();
    if (o_row >= O_ROWS) return;
    float s = 0.0;
    if (live)
        [[unroll]] for (uint u = 0u; u < 4u; u++) {
            if (u >= DEC_H / 32u) break;
            float a = 0.0, z = float(ozp[u]);
            [[unroll]] for (uint j = 0u; j < 4u; j++)
                [[unroll]] for (uint i = 0u; i < 8u; i++)
                    a = fma(float((ow[u][j] >> (4u * i)) & 15u) - z, dec_o[u * 32u + j * 8u + i], a);
            s = fma(osc[u], a, s);
        }
    const uint64_t offset = 1ul << 49, one = 1ul << 56, spilled = 1ul << 63;
    bool fits = abs(s) < 131071.0; // false for NaN and the infinities too
    uint slot = O_ROWS + o_row;  // the row's float accumulator
    if (!fits) { // (rare) added as a float instead, flagged
        uint64_t cur = acc64[slot], prev;
        do {
            prev = cur;
            cur = atomicCompSwap(acc64[slot], prev, uint64_t(floatBitsToUint(uintBitsToFloat(uint(prev)) + s)));
        } while (cur != prev);
        memoryBarrierBuffer();
        atomicOr(acc64[o_row], spilled);
    }
    uint64_t add = uint64_t(int64_t(roundEven((fits ? s : 0.0) * 4294967296.0)) + int64_t(offset)) + one;
    uint64_t old = atomicAdd(acc64[o_row], add);
    if ((uint(old >> 56) & 127u) != DEC_N - 1u) return;
    int64_t sum = int64_t((old + add) & (one - 1ul)) - int64_t(DEC_N) * int64_t(offset);
    float p = float(sum) * (1.0 / 4294967296.0);
    if ((old & spilled) != 0ul) {
        memoryBarrierBuffer();
        p += uintBitsToFloat(uint(atomicExchange(acc64[slot], 0ul)));
    }
    float y = (A_BITS == 16 ? a_round(p) : p) + ores; // summed in that order, as the residual epilogue does
    o_y[pc.base_y + o_row] = A_T(OPROJ_RB ? y + orb : y);
    acc64[o_row] = 0ul;
}
#endif

void main() {
    uint rep = flat_group() % OPROJ_REPS, fg = flat_group() / OPROJ_REPS;
    uint g = fg / CHUNKS, chunk = fg % CHUNKS;
    if (g >= pc.B * DEC_N) return;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x, lane = gl_SubgroupInvocationID, sgs = gl_SubgroupSize;
    uint head = g % DEC_N, b = g / DEC_N, kvh = head / (DEC_N / DEC_KVN);
    uint orow = pc.base_out + g * DEC_H;
#if OPROJ_FOLD
    o_head = head;
    o_rep = rep;
    o_row = O_ROWS; // (set by oproj_fetch after the key loop)
#endif
    bool new_sg = gl_SubgroupID == gl_NumSubgroups - 1u && chunk == CHUNKS - 1u; // takes the new row (REG_PREP)
    // The loads that need nothing computed here go first, together: the length, the position id,
    // the query row and the new key and value rows (in shared memory, used after a barrier; or
    // REG_PREP in registers).
    int total = seqlens_in[pc.base_seqlens + b] + 1;
    uint pos_id = POS_IDS ? EXT_INDEX_CLAMPED(pos_in, pc.base_pos, b, POS64, pc.max_pos) : 0u;
    uint qs = pc.base_q_in + b * pc.q_row + (pc.q_head0 + head) * DEC_H;
    uint ks = pc.base_k_in + b * pc.k_row + (pc.k_head0 + kvh) * DEC_H;
    uint vs = pc.base_v_in + b * pc.v_row + (pc.v_head0 + kvh) * DEC_H;
    float sq = 0.0, sk = 0.0;
    if (REG_PREP) {
        [[unroll]] for (uint c = 0u; c < CPL; c++) {
            uint h = lane + sgs * c;
            qv[c] = h < DEC_H ? float(q_src[qs + h]) : 0.0;
            knew[c] = new_sg && h < DEC_H ? float(k_src[ks + h]) : 0.0;
            vnew[c] = new_sg && h < DEC_H ? float(v_src[vs + h]) : 0.0;
        }
    } else {
        for (uint h = tid; h < DEC_H; h += nt) {
            float x = float(q_src[qs + h]), y = float(k_src[ks + h]);
            q[h] = x;
            k_new[h] = y;
            v_new[h] = float(v_src[vs + h]);
            sq = fma(x, x, sq);
            sk = fma(y, y, sk);
        }
    }
#if OPROJ_FOLD
    if (OPROJ_EARLY) oproj_load(); // in flight with the loads above
#endif
    if (total < 1 || total > int(DEC_C)) {
        if (rep == 0u)
            for (uint h = tid; h < DEC_H; h += nt) io[orow + h] = A_T(0.0);
#if OPROJ_FOLD
        oproj_fetch();
        oproj_finish(false, false); // (the operands are still in registers: nothing parked)
#endif
        return;
    }
    uint past = uint(total) - 1u;
    uint lo = DEC_WINDOW > 0u && past >= DEC_WINDOW ? past - DEC_WINDOW + 1u : 0u;
    // nch of the CHUNKS workgroups work, the last ones, each on DEC_CHUNK_ROWS cache rows or more
    // (k_gqa.c GQA_DEC_WORK_ROWS: what the combine costs against the key runs it saves).  The last
    // chunk's workgroup also takes the new row; alone when nch = 1.
    uint nch = clamp((past - lo) / DEC_CHUNK_ROWS, 1u, CHUNKS), first = CHUNKS - nch;
    bool split = nch > 1u;
    if (chunk < first) return;
    uint len = (past - lo + nch - 1u) / nch; // cache rows per working chunk
    uint c0 = split ? min(lo + (chunk - first) * len, past) : lo, c1 = split ? min(c0 + len, past) : past;
    uint rot_at = POS_IDS ? pos_id : min(past, pc.max_pos - 1u);
    dec_kv = (b * DEC_KVN + kvh) * DEC_C;
    bool stores = head % (DEC_N / DEC_KVN) == 0u && chunk == CHUNKS - 1u && rep == 0u; // writes row past of the caches
    uint dest = split || OPROJ_FOLD != 0 ? DEC_KEEP : orow;
    float mt, lt;
    if (REG_PREP) {
        if (ROTARY) reg_rotary_fetch(rot_at);
        if (Q_NORM) REG_NORM(qv, q_norm, pc.base_q_norm)
        if (ROTARY) REG_ROTATE(qv)
        [[unroll]] for (uint c = 0u; c < CPL; c++) qv[c] = float(A_T(qv[c])); // the rounding of the stored rows
        if (new_sg) {
            if (K_NORM) REG_NORM(knew, k_norm, pc.base_k_norm)
            if (ROTARY) REG_ROTATE(knew)
            [[unroll]] for (uint c = 0u; c < CPL; c++) {
                uint h = lane + sgs * c;
                knew[c] = float(A_T(knew[c]));
                if (stores && h < DEC_H) {
                    k_store[pc.base_k + (dec_kv + past) * DEC_H + h] = A_T(knew[c]);
                    v_store[pc.base_v + (dec_kv + past) * DEC_H + h] = A_T(vnew[c]);
                }
            }
            REG_TO_PAIRS(knew)
            REG_TO_PAIRS(vnew)
        }
        REG_TO_PAIRS(qv)
#if OPROJ_FOLD
        oproj_park();
#endif
        gqa_dec_attend_qv(c0, c1, chunk == CHUNKS - 1u, past, mt, lt, head, dest);
    } else {
        if (ROTARY) rotary_fetch(rot_at);
        if (Q_NORM) {
            float inv = 1.0 / sqrt(ext_wg_sum(sq, true) / float(DEC_H) + pc.eps);
            for (uint h = tid; h < DEC_H; h += nt) q[h] = q[h] * inv * float(q_norm[pc.base_q_norm + h]);
        }
        if (K_NORM) {
            float inv = 1.0 / sqrt(ext_wg_sum(sk, true) / float(DEC_H) + pc.eps);
            for (uint h = tid; h < DEC_H; h += nt) k_new[h] = k_new[h] * inv * float(k_norm[pc.base_k_norm + h]);
        }
        barrier();
        if (ROTARY) {
            rotate(0u);
            rotate(1u);
            barrier();
        }
        for (uint h = tid; h < DEC_H; h += nt) { // the rounding of the stored rows
            q[h] = float(A_T(q[h]));
            k_new[h] = float(A_T(k_new[h]));
        }
        if (stores)
            for (uint h = tid; h < DEC_H; h += nt) {
                k_store[pc.base_k + (dec_kv + past) * DEC_H + h] = A_T(k_new[h]);
                v_store[pc.base_v + (dec_kv + past) * DEC_H + h] = A_T(v_new[h]);
            }
        barrier();
#if OPROJ_FOLD
        oproj_park();
#endif
        gqa_dec_attend(c0, c1, chunk == CHUNKS - 1u, past, mt, lt, head, dest);
    }
#if OPROJ_FOLD
    // the output as stored (the first workgroup of the head writes it), then its o_proj share
    float f = dec_out_factor(head, mt, lt);
    for (uint h = tid; h < DEC_H; h += nt) {
        float o = A_BITS == 16 ? a_round(dec_o[h] * f) : dec_o[h] * f;
        if (rep == 0u) io[orow + h] = A_T(o);
        dec_o[h] = o;
    }
    barrier();
    oproj_finish(true, true);
    return;
#endif
    if (!split) return; // (the output written)
    uint part = pc.base_ws + (g * CHUNKS + chunk) * (2u + DEC_H);
    for (uint h = tid; h < DEC_H; h += nt) ws[part + 2u + h] = dec_o[h];
    if (tid == 0u) {
        ws[part] = mt;
        ws[part + 1u] = lt;
    }
    memoryBarrierBuffer();
    barrier();
    if (tid == 0u) last_chunk = atomicAdd(cnt[pc.base_cnt + g], 1u) == nch - 1u;
    barrier();
    if (!last_chunk) return;
    memoryBarrierBuffer();
    // The working chunks' partials into shared memory in one round of loads (part_acc is free after
    // the subgroup combine; k_gqa.c keeps nch * (2 + H) <= GQA_DEC_PARTIALS).  Read from memory step by
    // step, they had cost three rounds: H200, Qwen2-0.5B shape, 4 working chunks after 512 tokens,
    // attention 14.8 -> 12.9 us per layer; the combine left out altogether (wrong results) 10.1.
    uint stride = 2u + DEC_H, parts = pc.base_ws + (g * CHUNKS + first) * stride; // the working chunks' partials
    for (uint i = tid; i < nch * stride; i += nt) part_acc[i] = ws[parts + i];
    if (tid == 0u) cnt[pc.base_cnt + g] = 0u;
    barrier();
    float m_all = NEG_INF, l_all = 0.0;
    for (uint c = 0u; c < nch; c++) m_all = max(m_all, part_acc[c * stride]);
    for (uint c = 0u; c < nch; c++) {
        float mc = part_acc[c * stride];
        if (mc != NEG_INF) l_all += part_acc[c * stride + 1u] * exp(mc - m_all);
    }
    for (uint h = tid; h < DEC_H; h += nt) {
        float o = 0.0;
        for (uint c = 0u; c < nch; c++) {
            float mc = part_acc[c * stride];
            if (mc != NEG_INF) o = fma(part_acc[c * stride + 2u + h], exp(mc - m_all), o);
        }
        dec_o[h] = o;
    }
    barrier();
    gqa_dec_finish(head, m_all, l_all, orow);
}
