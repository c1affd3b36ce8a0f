#version 450
// ext_gqa_attn_nc.comp - groupQueryAttention without a KV cache, step 2: one workgroup per (batch,
// token, query head); the prepared query row (ext_gqa_prep.comp with C = 0) is read from the
// output and replaced by the attention result.  The keys are the S new tokens: key j in [lo, s]
// (lo = s - W + 1 with a local window W, else 0) is read straight from the key input (packed or
// separate, row stride k_row, first head k_head0) and prepared on the fly, per invocation: its
// RMSNorm (kNormWeight) and rotary (cos/sin row = positionIds[b, j], else j, clamped) are folded into
// the dot product (rotary is linear and the norm a per-row factor:
// q . rot(k * inv * w) = inv * q . rot(k * w)).  Values come from the value input the same way.
// Online softmax (running max m, sum l, rescaled accumulators) as ext_gqa_attn.comp: scores
// scale * q.k, softcap c * tanh(s / c), smoothSoftmax adds exp(0 - m) to the denominator.  f32.
// Each invocation accumulates output channels h = tid + k * WG (k < 4).
#include "common.glsl"
#define EXT_REDUCTION 256
#include "ext_common.glsl"

layout(constant_id = 1) const bool SG_REDUCE = true;
layout(constant_id = 2) const bool HAS_NORM = false;
layout(constant_id = 3) const bool ROTARY = false;
layout(constant_id = 4) const bool INTERLEAVED = false;
layout(constant_id = 5) const bool POS_IDS = false;
layout(constant_id = 6) const bool POS64 = false;
layout(constant_id = 7) const bool SMOOTH = false;

PARAMS_BLOCK PC {
    uint B, S, N, kvN, H, window;
    float scale, softcap, eps;
    uint rot, max_pos;
    uint k_row, k_head0, v_row, v_head0; // elements per token of the key/value source; first head
    uint base_out, base_k, base_v, base_cos, base_sin, base_pos, base_norm;
} pc;
layout(std430, binding = 0) buffer O { A_T io[]; };
layout(std430, binding = 1) readonly buffer K { A_T k_in[]; };
layout(std430, binding = 2) readonly buffer V { A_T v_in[]; };
layout(std430, binding = 3) readonly buffer Co { A_T cos_in[]; };
layout(std430, binding = 4) readonly buffer Si { A_T sin_in[]; };
layout(std430, binding = 5) readonly buffer P { uint pos_in[]; };
layout(std430, binding = 6) readonly buffer Nw { A_T norm_in[]; };

#define NEG_INF uintBitsToFloat(0xff800000u)
shared float q[1024];
shared float p_chunk[256];

float weight(uint h) { return HAS_NORM ? float(norm_in[pc.base_norm + h]) : 1.0; }

// q . prepared key row kr (token j of batch b).
float key_dot(uint kr, uint b, uint j) {
    float d = 0.0, ss = 0.0;
    uint first = 0u;
    if (ROTARY) {
        uint pos = POS_IDS ? EXT_INDEX_CLAMPED(pos_in, pc.base_pos, b * pc.S + j, POS64, pc.max_pos)
                           : min(j, pc.max_pos - 1u);
        uint half_ = pc.rot / 2u;
        for (uint i = 0u; i < half_; i++) {
            uint i1 = INTERLEAVED ? 2u * i : i, i2 = INTERLEAVED ? 2u * i + 1u : i + half_;
            float a = float(k_in[kr + i1]), bb = float(k_in[kr + i2]);
            ss = fma(a, a, fma(bb, bb, ss));
            a *= weight(i1);
            bb *= weight(i2);
            float c = float(cos_in[pc.base_cos + pos * half_ + i]), sn = float(sin_in[pc.base_sin + pos * half_ + i]);
            d = fma(q[i1], a * c - bb * sn, fma(q[i2], bb * c + a * sn, d));
        }
        first = pc.rot;
    }
    for (uint h = first; h < pc.H; h++) {
        float x = float(k_in[kr + h]);
        ss = fma(x, x, ss);
        d = fma(q[h], x * weight(h), d);
    }
    if (HAS_NORM) d *= 1.0 / sqrt(ss / float(pc.H) + pc.eps);
    return d;
}

void main() {
    uint g = flat_group();
    if (g >= pc.B * pc.S * pc.N) return;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    uint head = g % pc.N, t = g / pc.N, s = t % pc.S, b = t / pc.S;
    uint orow = pc.base_out + (t * pc.N + head) * pc.H;
    uint lo = pc.window > 0u && s >= pc.window ? s - pc.window + 1u : 0u;
    for (uint h = tid; h < pc.H; h += nt) q[h] = float(io[orow + h]);
    barrier();
    uint kh = head / (pc.N / pc.kvN);
    uint row0 = b * pc.S;
    float m = SMOOTH ? 0.0 : NEG_INF, l = SMOOTH ? 1.0 : 0.0;
    float acc[4] = {0.0, 0.0, 0.0, 0.0};
    for (uint j0 = lo; j0 <= s; j0 += nt) {
        uint j = j0 + tid;
        float sc = NEG_INF;
        if (j <= s) {
            float d = key_dot(pc.base_k + (row0 + j) * pc.k_row + (pc.k_head0 + kh) * pc.H, b, j) * pc.scale;
            if (pc.softcap > 0.0) d = pc.softcap * tanh(d / pc.softcap);
            sc = d;
        }
        float mn = max(m, ext_wg_max(sc, SG_REDUCE));
        float e = j <= s ? exp(sc - mn) : 0.0;
        p_chunk[tid] = e;
        float rescale = m == NEG_INF ? 0.0 : exp(m - mn);
        l = l * rescale + ext_wg_sum(e, SG_REDUCE); // its barriers also publish p_chunk
        m = mn;
        uint cnt = min(nt, s + 1u - j0);
        for (uint k = 0u; k < 4u; k++) {
            uint h = tid + k * nt;
            if (h >= pc.H) break;
            float a = acc[k] * rescale;
            for (uint jj = 0u; jj < cnt; jj++)
                a = fma(p_chunk[jj], float(v_in[pc.base_v + (row0 + j0 + jj) * pc.v_row + (pc.v_head0 + kh) * pc.H + h]), a);
            acc[k] = a;
        }
        barrier();
    }
    for (uint k = 0u; k < 4u; k++) {
        uint h = tid + k * nt;
        if (h < pc.H) io[orow + h] = A_T(acc[k] / l);
    }
}
