#version 450
// ext_gqa_prep.comp - groupQueryAttention, step 1: one workgroup per (role, token, head), the
// roles (0 query, 1 key, 2 value) in one grid: workgroups 0 .. B S heads[0] - 1 prepare the query
// rows, the next B S heads[1] the key rows, the last B S heads[2] the value rows (heads[r] = 0: role
// r does not run).  Loads the head vector from the query (packed [N | kvN | kvN] heads per token) or
// key/value input, applies the per-head RMSNorm (qNormWeight to query rows, kNormWeight to key rows
// where Q_NORM / K_NORM) and the rotary embedding (cos/sin cache row = positionIds[b, s], else past +
// s, clamped) to query and key, and writes it: query rows into the attention output [B, S, N, H]
// (ext_gqa_attn*.comp read them back from there and overwrite them with the result), key/value
// rows into the present caches [B, kvN, C, H] at row past + s.  past = seqlensK[b] + 1 - S is read
// on the device; a batch whose seqlensK is outside S-1..C-1 writes no cache rows (the CPU reference
// rejects it).  C = 0: no KV cache (groupQueryAttention without pastKey/pastValue; only the query
// role runs), past = 0.
#include "common.glsl"
#define EXT_REDUCTION 256
#include "ext_common.glsl"

layout(constant_id = 1) const bool SG_REDUCE = true;
layout(constant_id = 2) const bool Q_NORM = false;
layout(constant_id = 3) const bool K_NORM = false;
layout(constant_id = 4) const bool ROTARY = false;
layout(constant_id = 5) const bool INTERLEAVED = false;
layout(constant_id = 6) const bool POS_IDS = false;
layout(constant_id = 7) const bool POS64 = false;

PARAMS_BLOCK PC {
    uint B, S, H, C, rot, max_pos;
    float eps;
    uint base_seqlens, base_pos, base_cos, base_sin;
    uint heads[3];     // per role: heads per token (0: the role does not run)
    uint src_row[3];   // elements per token of the role's source
    uint src_head0[3]; // the role's first head in it
    uint base_src[3], base_dst[3];
    uint base_norm[2]; // query, key
} pc;
layout(std430, binding = 0) readonly buffer Sq { A_T q_in[]; };
layout(std430, binding = 1) readonly buffer Sk { A_T k_in[]; };
layout(std430, binding = 2) readonly buffer Sv { A_T v_in[]; };
layout(std430, binding = 3) readonly buffer Sl { int seqlens_in[]; };
layout(std430, binding = 4) readonly buffer P { uint pos_in[]; };
layout(std430, binding = 5) readonly buffer Co { A_T cos_in[]; };
layout(std430, binding = 6) readonly buffer Si { A_T sin_in[]; };
layout(std430, binding = 7) readonly buffer Qn { A_T q_norm_in[]; };
layout(std430, binding = 8) readonly buffer Kn { A_T k_norm_in[]; };
layout(std430, binding = 9) writeonly buffer Dq { A_T q_out[]; };
layout(std430, binding = 10) writeonly buffer Dk { A_T k_out[]; };
layout(std430, binding = 11) writeonly buffer Dv { A_T v_out[]; };

shared float v[1024];

float src_at(uint role, uint i) { return float(role == 0u ? q_in[i] : role == 1u ? k_in[i] : v_in[i]); }

void dst_set(uint role, uint i, float x) {
    if (role == 0u) q_out[i] = A_T(x);
    else if (role == 1u) k_out[i] = A_T(x);
    else v_out[i] = A_T(x);
}

void main() {
    uint g = flat_group(), tokens = pc.B * pc.S, role = 0u;
    for (; role < 2u && g >= tokens * pc.heads[role]; role++) g -= tokens * pc.heads[role];
    uint heads = pc.heads[role];
    if (g >= tokens * heads) return;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    uint head = g % heads, t = g / heads, s = t % pc.S, b = t / pc.S;
    bool no_cache = pc.C == 0u; // see the header
    int total = no_cache ? int(pc.S) : seqlens_in[pc.base_seqlens + b] + 1;
    bool valid = no_cache || (total >= int(pc.S) && total <= int(pc.C));
    if (role != 0u && !valid) return; // whole workgroup
    uint past = valid ? uint(total) - pc.S : 0u;
    uint src = pc.base_src[role] + t * pc.src_row[role] + (pc.src_head0[role] + head) * pc.H;
    float ss = 0.0;
    for (uint h = tid; h < pc.H; h += nt) {
        float x = src_at(role, src + h);
        v[h] = x;
        ss = fma(x, x, ss);
    }
    bool norm = role == 0u ? Q_NORM : role == 1u ? K_NORM : false;
    if (norm) {
        float inv = 1.0 / sqrt(ext_wg_sum(ss, SG_REDUCE) / float(pc.H) + pc.eps);
        uint w = pc.base_norm[role];
        for (uint h = tid; h < pc.H; h += nt) v[h] = v[h] * inv * float(role == 0u ? q_norm_in[w + h] : k_norm_in[w + h]);
    }
    barrier();
    if (role != 2u && ROTARY) {
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
    uint dst = role == 0u ? pc.base_dst[0] + (t * heads + head) * pc.H
                          : pc.base_dst[role] + ((b * heads + head) * pc.C + past + s) * pc.H;
    for (uint h = tid; h < pc.H; h += nt) dst_set(role, dst + h, v[h]);
}
