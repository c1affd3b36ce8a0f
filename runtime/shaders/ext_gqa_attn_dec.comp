#version 450
// ext_gqa_attn_dec.comp - groupQueryAttention, step 2, for few query tokens (decode): the semantics
// of ext_gqa_attn.comp (one workgroup per (batch, token, query head), the prepared query row read
// from the output and replaced by the result, keys j in [lo, p], softcap, attentionBias, sinks,
// zeros for a batch whose seqlensK is out of range), with the keys split over the subgroups
// (gqa_dec.glsl).  Needs subgroup arithmetic, head size <= SG * CPL and NS <= 32 subgroups
// (gqa_dec_sizes.h: head size <= 256, NS * head size <= 4096).
#include "common.glsl"
#include "ext_common.glsl"

layout(constant_id = 1) const uint CPL = 2u;         // channels per lane (<= 32)
layout(constant_id = 2) const bool HAS_BIAS = false;
layout(constant_id = 3) const bool HAS_SINK = false; // headSink operand
layout(constant_id = 4) const bool SMOOTH = false;   // smoothSoftmax: sink 0 when no headSink
layout(constant_id = 5) const uint DEC_KB = 4u;      // keys per run of a subgroup (gqa_dec.glsl)

PARAMS_BLOCK PC {
    uint B, S, N, kvN, H, C, window;
    float scale, softcap;
    uint bias_b, bias_n; // attentionBias dims 0 and 1 (1 = broadcast)
    uint base_out, base_seqlens, base_k, base_v, base_bias, base_sink;
} pc;
layout(std430, binding = 0) buffer O { A_T io[]; };
layout(std430, binding = 1) readonly buffer Sl { int seqlens_in[]; };
layout(std430, binding = 2) readonly buffer K { A_T k_in[]; };
layout(std430, binding = 3) readonly buffer V { A_T v_in[]; };
layout(std430, binding = 4) readonly buffer Bi { A_T bias_in[]; };
layout(std430, binding = 5) readonly buffer Sk { A_T sink_in[]; };

uint dec_kv, dec_brow; // the (batch, kv head)'s first cache row; the bias row of (batch, head, token)
float dec_key(uint j, uint h) { return float(k_in[pc.base_k + (dec_kv + j) * pc.H + h]); }
float dec_value(uint j, uint h) { return float(v_in[pc.base_v + (dec_kv + j) * pc.H + h]); }
float dec_bias(uint j) { return float(bias_in[pc.base_bias + dec_brow + j]); }
float dec_sink(uint head) { return float(sink_in[pc.base_sink + head]); }
float dec_new_key(uint c, uint h) { return 0.0; } // no new row here: the prep dispatches stored it
float dec_new_value(uint c, uint h) { return 0.0; }
#include "gqa_dec.glsl"

void main() {
    uint g = flat_group();
    if (g >= pc.B * pc.S * pc.N) return;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    uint head = g % pc.N, t = g / pc.N, s = t % pc.S, b = t / pc.S;
    uint orow = pc.base_out + (t * pc.N + head) * pc.H;
    int total = seqlens_in[pc.base_seqlens + b] + 1;
    if (total < int(pc.S) || total > int(pc.C)) {
        for (uint h = tid; h < pc.H; h += nt) io[orow + h] = A_T(0.0);
        return;
    }
    uint p = uint(total) - pc.S + s;
    uint lo = pc.window > 0u && p >= pc.window ? p - pc.window + 1u : 0u;
    for (uint h = tid; h < pc.H; h += nt) q[h] = float(io[orow + h]);
    barrier();
    dec_kv = (b * pc.kvN + head / (pc.N / pc.kvN)) * pc.C;
    dec_brow = ((min(b, pc.bias_b - 1u) * pc.bias_n + min(head, pc.bias_n - 1u)) * pc.S + s) * pc.C;
    float mt, lt;
    gqa_dec_attend(lo, p + 1u, false, 0u, mt, lt, head, orow);
}
