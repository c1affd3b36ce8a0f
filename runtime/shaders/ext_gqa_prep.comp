#version 450
// ext_gqa_prep.comp - groupQueryAttention, step 1: one workgroup per (token, head) of one ROLE
// (0 query, 1 key, 2 value).  Loads the head vector from the query (packed [N | kvN | kvN] heads
// per token) or key/value input, applies the per-head RMSNorm (qNormWeight / kNormWeight, f32) and
// the rotary embedding (cos/sin cache row = positionIds[b, s], else past + s, clamped) to query and
// key, and writes it: query rows into the attention output [B, S, N, H] (ext_gqa_attn.comp reads
// them back from there and overwrites them with the result), key/value rows into the present
// caches [B, kvN, C, H] at row past + s.  past = seqlensK[b] + 1 - S is read on the device; a batch
// whose seqlensK is outside S-1..C-1 writes no cache rows (the CPU reference rejects it).  C = 0:
// no KV cache (groupQueryAttention without pastKey/pastValue; only the query role runs), past = 0.
#include "common.glsl"
#define EXT_REDUCTION 256
#include "ext_common.glsl"

layout(constant_id = 1) const uint ROLE = 0u;
layout(constant_id = 2) const bool SG_REDUCE = true;
layout(constant_id = 3) const bool HAS_NORM = false;
layout(constant_id = 4) const bool ROTARY = false;
layout(constant_id = 5) const bool INTERLEAVED = false;
layout(constant_id = 6) const bool POS_IDS = false;
layout(constant_id = 7) const bool POS64 = false;

PARAMS_BLOCK PC {
    uint B, S, heads, H, C, rot, max_pos;
    uint src_row, src_head0; // elements per token of the source; first head of this role in it
    float eps;
    uint base_src, base_seqlens, base_pos, base_cos, base_sin, base_norm, base_dst;
} pc;
layout(std430, binding = 0) readonly buffer Src { A_T src_in[]; };
layout(std430, binding = 1) readonly buffer Sl { int seqlens_in[]; };
layout(std430, binding = 2) readonly buffer P { uint pos_in[]; };
layout(std430, binding = 3) readonly buffer Co { A_T cos_in[]; };
layout(std430, binding = 4) readonly buffer Si { A_T sin_in[]; };
layout(std430, binding = 5) readonly buffer Nw { A_T norm_in[]; };
layout(std430, binding = 6) writeonly buffer Dst { A_T dst_out[]; };

shared float v[1024];

void main() {
    uint g = flat_group();
    if (g >= pc.B * pc.S * pc.heads) return;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    uint head = g % pc.heads, t = g / pc.heads, s = t % pc.S, b = t / pc.S;
    bool no_cache = pc.C == 0u; // see the header
    int total = no_cache ? int(pc.S) : seqlens_in[pc.base_seqlens + b] + 1;
    bool valid = no_cache || (total >= int(pc.S) && total <= int(pc.C));
    if (ROLE != 0u && !valid) return; // whole workgroup
    uint past = valid ? uint(total) - pc.S : 0u;
    uint src = pc.base_src + t * pc.src_row + (pc.src_head0 + head) * pc.H;
    float ss = 0.0;
    for (uint h = tid; h < pc.H; h += nt) {
        float x = float(src_in[src + h]);
        v[h] = x;
        ss = fma(x, x, ss);
    }
    if (ROLE != 2u && HAS_NORM) {
        float inv = 1.0 / sqrt(ext_wg_sum(ss, SG_REDUCE) / float(pc.H) + pc.eps);
        for (uint h = tid; h < pc.H; h += nt) v[h] = v[h] * inv * float(norm_in[pc.base_norm + h]);
    }
    barrier();
    if (ROLE != 2u && ROTARY) {
        uint pos = POS_IDS ? EXT_INDEX_CLAMPED(pos_in, pc.base_pos, b * pc.S + s, POS64, pc.max_pos)
                           : min(past + s, pc.max_pos - 1u);
        uint half_ = pc.rot / 2u;
        for (uint j = tid; j < half_; j += nt) { // pairs are disjoint: no other invocation reads them
            uint i1 = INTERLEAVED ? 2u * j : j, i2 = INTERLEAVED ? 2u * j + 1u : j + half_;
            float c = float(cos_in[pc.base_cos + pos * half_ + j]), sn = float(sin_in[pc.base_sin + pos * half_ + j]);
            float a = v[i1], bb = v[i2];
            v[i1] = a * c - bb * sn;
            v[i2] = bb * c + a * sn;
        }
        barrier();
    }
    uint dst = ROLE == 0u ? pc.base_dst + (t * pc.heads + head) * pc.H
                          : pc.base_dst + ((b * pc.heads + head) * pc.C + past + s) * pc.H;
    for (uint h = tid; h < pc.H; h += nt) dst_out[dst + h] = A_T(v[h]);
}
