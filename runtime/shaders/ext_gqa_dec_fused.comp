#version 450
// ext_gqa_dec_fused.comp - groupQueryAttention for one new token per batch (decode, S = 1) with a
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
// A batch whose seqlensK is outside 0..C-1 gets zeros and writes no cache row.  No attentionBias
// or headSink here (the host keeps the four-dispatch path for them); smoothSoftmax is supported.
#include "common.glsl"
#extension GL_EXT_control_flow_attributes : enable
#define EXT_REDUCTION 32
#include "ext_common.glsl"
#include "gqa_dec_sizes.glsl"

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
const bool HAS_BIAS = false, HAS_SINK = false;

PARAMS_BLOCK PC {
    uint B, N, kvN, H, C, window, rot, max_pos;
    float scale, softcap, eps;
    uint q_row, q_head0, k_row, k_head0, v_row, v_head0; // elements per token; first head of the role
    uint base_out, base_seqlens, base_k, base_v, base_q_in, base_k_in, base_v_in;
    uint base_pos, base_cos, base_sin, base_q_norm, base_k_norm;
    uint base_ws, base_cnt; // CHUNKS > 1: partial results, arrival counters
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

shared float k_new[DEC_MAX_H], v_new[DEC_MAX_H]; // the new key / value rows
shared bool last_chunk;
uint dec_kv; // the (batch, kv head)'s first cache row
float dec_key(uint j, uint h) { return float(k_cache[pc.base_k + (dec_kv + j) * pc.H + h]); }
float dec_value(uint j, uint h) { return float(v_cache[pc.base_v + (dec_kv + j) * pc.H + h]); }
float knew[CPL], vnew[CPL]; // REG_PREP: the new key / value rows, this lane's channels (last subgroup)
float dec_new_key(uint c, uint h) { return REG_PREP ? knew[c] : k_new[h]; }
float dec_new_value(uint c, uint h) { return REG_PREP ? vnew[c] : v_new[h]; }
float dec_bias(uint j) { return 0.0; }
float dec_sink(uint head) { return 0.0; }
#include "gqa_dec.glsl"

// Rotary: the cosines and sines of this invocation's pairs j = tid + nt i (i < ROT_REGS) at cache
// position rot_pos are loaded before they are needed (rotary_fetch, so that their latency overlaps
// the q / k prep); pairs past ROT_REGS * nt (small workgroups only) load theirs in rotate().
#define ROT_REGS 4u
float rot_c[ROT_REGS], rot_s[ROT_REGS];
uint rot_pos;
void rotary_fetch(uint pos) {
    uint half_ = pc.rot / 2u;
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
    uint half_ = pc.rot / 2u;
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
    uint half_ = pc.rot / 2u, nt = gl_WorkGroupSize.x;
    [[unroll]] for (uint i = 0u; i < ROT_REGS; i++) {
        uint j = gl_LocalInvocationID.x + nt * i;
        if (j < half_) rotate_pair(r, j, rot_c[i], rot_s[i]);
    }
    for (uint j = gl_LocalInvocationID.x + nt * ROT_REGS; j < half_; j += nt)
        rotate_pair(r, j, float(cos_in[pc.base_cos + rot_pos * half_ + j]), float(sin_in[pc.base_sin + rot_pos * half_ + j]));
}

// ---- REG_PREP: every subgroup prepares the query row in registers (qv[c]: channel lane + SG * c),
// and the last one the new key and value rows (knew, vnew), with no shared memory and no barrier.
// A rotary partner
// in another lane comes by subgroupShuffle (CPL^2 shuffles a row: the host takes this path for few
// channels per lane).
float rc[CPL], rs[CPL]; // the cosine and sine of each channel's rotary pair (1, 0 past rot)

void reg_rotary_fetch(uint pos) {
    uint half_ = pc.rot / 2u;
    [[unroll]] for (uint c = 0u; c < CPL; c++) {
        uint h = gl_SubgroupInvocationID + gl_SubgroupSize * c;
        bool ok = h < pc.rot;
        uint j = INTERLEAVED ? h / 2u : h < half_ ? h : h - half_;
        rc[c] = ok ? float(cos_in[pc.base_cos + pos * half_ + j]) : 1.0;
        rs[c] = ok ? float(sin_in[pc.base_sin + pos * half_ + j]) : 0.0;
    }
}

// Rotary embedding of the row X[CPL] held across the subgroup: the pair of channel h is
// (h, h + half) or (h - half, h), interleaved (h & ~1, h | 1); its first member becomes
// x c - partner s, its second x c + partner s (rotate_pair).
#define REG_ROTATE(X)                                                                              \
    {                                                                                              \
        uint half_ = pc.rot / 2u, sgs = gl_SubgroupSize;                                           \
        float partner[CPL];                                                                        \
        [[unroll]] for (uint c = 0u; c < CPL; c++) {                                               \
            uint h = gl_SubgroupInvocationID + sgs * c;                                            \
            uint ph = h >= pc.rot ? h : INTERLEAVED ? h ^ 1u : h < half_ ? h + half_ : h - half_;  \
            float v = 0.0;                                                                         \
            [[unroll]] for (uint c2 = 0u; c2 < CPL; c2++) {                                        \
                float sh = subgroupShuffle(X[c2], ph % sgs);                                       \
                if (c2 == ph / sgs) v = sh;                                                        \
            }                                                                                      \
            partner[c] = v;                                                                        \
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
        float inv = 1.0 / sqrt(subgroupAdd(ss) / float(pc.H) + pc.eps);                            \
        [[unroll]] for (uint c = 0u; c < CPL; c++) {                                               \
            uint h = gl_SubgroupInvocationID + gl_SubgroupSize * c;                                \
            X[c] = h < pc.H ? X[c] * inv * float(scale[base + h]) : 0.0;                           \
        }                                                                                          \
    }

void main() {
    uint g = flat_group() / CHUNKS, chunk = flat_group() % CHUNKS;
    if (g >= pc.B * pc.N) return;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x, lane = gl_SubgroupInvocationID, sgs = gl_SubgroupSize;
    uint head = g % pc.N, b = g / pc.N, kvh = head / (pc.N / pc.kvN);
    uint orow = pc.base_out + g * pc.H;
    bool new_sg = gl_SubgroupID == gl_NumSubgroups - 1u && chunk == CHUNKS - 1u; // takes the new row (REG_PREP)
    // The loads that need nothing computed here go first, together: the length, the position id,
    // the query row and the new key and value rows (in shared memory, used after a barrier; or
    // REG_PREP in registers).
    int total = seqlens_in[pc.base_seqlens + b] + 1;
    uint pos_id = POS_IDS ? EXT_INDEX_CLAMPED(pos_in, pc.base_pos, b, POS64, pc.max_pos) : 0u;
    uint qs = pc.base_q_in + b * pc.q_row + (pc.q_head0 + head) * pc.H;
    uint ks = pc.base_k_in + b * pc.k_row + (pc.k_head0 + kvh) * pc.H;
    uint vs = pc.base_v_in + b * pc.v_row + (pc.v_head0 + kvh) * pc.H;
    float sq = 0.0, sk = 0.0;
    if (REG_PREP) {
        [[unroll]] for (uint c = 0u; c < CPL; c++) {
            uint h = lane + sgs * c;
            qv[c] = h < pc.H ? float(q_src[qs + h]) : 0.0;
            knew[c] = new_sg && h < pc.H ? float(k_src[ks + h]) : 0.0;
            vnew[c] = new_sg && h < pc.H ? float(v_src[vs + h]) : 0.0;
        }
    } else {
        for (uint h = tid; h < pc.H; h += nt) {
            float x = float(q_src[qs + h]), y = float(k_src[ks + h]);
            q[h] = x;
            k_new[h] = y;
            v_new[h] = float(v_src[vs + h]);
            sq = fma(x, x, sq);
            sk = fma(y, y, sk);
        }
    }
    if (total < 1 || total > int(pc.C)) {
        for (uint h = tid; h < pc.H; h += nt) io[orow + h] = A_T(0.0);
        return;
    }
    uint past = uint(total) - 1u;
    uint lo = pc.window > 0u && past >= pc.window ? past - pc.window + 1u : 0u;
    // nch of the CHUNKS workgroups work, the last ones, each on DEC_CHUNK_ROWS cache rows or more
    // (k_gqa.c GQA_DEC_WORK_ROWS: what the combine costs against the key runs it saves).  The last
    // chunk's workgroup also takes the new row; alone when nch = 1.
    uint nch = clamp((past - lo) / DEC_CHUNK_ROWS, 1u, CHUNKS), first = CHUNKS - nch;
    bool split = nch > 1u;
    if (chunk < first) return;
    uint len = (past - lo + nch - 1u) / nch; // cache rows per working chunk
    uint c0 = split ? min(lo + (chunk - first) * len, past) : lo, c1 = split ? min(c0 + len, past) : past;
    uint rot_at = POS_IDS ? pos_id : min(past, pc.max_pos - 1u);
    dec_kv = (b * pc.kvN + kvh) * pc.C;
    bool stores = head % (pc.N / pc.kvN) == 0u && chunk == CHUNKS - 1u; // writes row past of the caches
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
                if (stores && h < pc.H) {
                    k_store[pc.base_k + (dec_kv + past) * pc.H + h] = A_T(knew[c]);
                    v_store[pc.base_v + (dec_kv + past) * pc.H + h] = A_T(vnew[c]);
                }
            }
        }
        gqa_dec_attend_qv(c0, c1, chunk == CHUNKS - 1u, past, mt, lt, head, split ? DEC_KEEP : orow);
    } else {
        if (ROTARY) rotary_fetch(rot_at);
        if (Q_NORM) {
            float inv = 1.0 / sqrt(ext_wg_sum(sq, true) / float(pc.H) + pc.eps);
            for (uint h = tid; h < pc.H; h += nt) q[h] = q[h] * inv * float(q_norm[pc.base_q_norm + h]);
        }
        if (K_NORM) {
            float inv = 1.0 / sqrt(ext_wg_sum(sk, true) / float(pc.H) + pc.eps);
            for (uint h = tid; h < pc.H; h += nt) k_new[h] = k_new[h] * inv * float(k_norm[pc.base_k_norm + h]);
        }
        barrier();
        if (ROTARY) {
            rotate(0u);
            rotate(1u);
            barrier();
        }
        for (uint h = tid; h < pc.H; h += nt) { // the rounding of the stored rows
            q[h] = float(A_T(q[h]));
            k_new[h] = float(A_T(k_new[h]));
        }
        if (stores)
            for (uint h = tid; h < pc.H; h += nt) {
                k_store[pc.base_k + (dec_kv + past) * pc.H + h] = A_T(k_new[h]);
                v_store[pc.base_v + (dec_kv + past) * pc.H + h] = A_T(v_new[h]);
            }
        barrier();
        gqa_dec_attend(c0, c1, chunk == CHUNKS - 1u, past, mt, lt, head, split ? DEC_KEEP : orow);
    }
    if (!split) return; // (the output written)
    uint part = pc.base_ws + (g * CHUNKS + chunk) * (2u + pc.H);
    for (uint h = tid; h < pc.H; h += nt) ws[part + 2u + h] = dec_o[h];
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
    // the subgroup combine; k_gqa.c keeps nch * (2 + H) <= DEC_PARTIALS).  Read from memory step by
    // step, they had cost three rounds: H200, Qwen2-0.5B shape, 4 working chunks after 512 tokens,
    // attention 14.8 -> 12.9 us per layer; the combine left out altogether (wrong results) 10.1.
    uint stride = 2u + pc.H, parts = pc.base_ws + (g * CHUNKS + first) * stride; // the working chunks' partials
    for (uint i = tid; i < nch * stride; i += nt) part_acc[i] = ws[parts + i];
    if (tid == 0u) cnt[pc.base_cnt + g] = 0u;
    barrier();
    float m_all = NEG_INF, l_all = 0.0;
    for (uint c = 0u; c < nch; c++) m_all = max(m_all, part_acc[c * stride]);
    for (uint c = 0u; c < nch; c++) {
        float mc = part_acc[c * stride];
        if (mc != NEG_INF) l_all += part_acc[c * stride + 1u] * exp(mc - m_all);
    }
    for (uint h = tid; h < pc.H; h += nt) {
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
