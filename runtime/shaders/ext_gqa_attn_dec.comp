#version 450
// ext_gqa_attn_dec.comp - groupQueryAttention, step 2, for few query tokens (decode): the semantics
// of ext_gqa_attn.comp (one workgroup per (batch, token, query head), the prepared query row read
// from the output and replaced by the result, keys j in [lo, p], softcap, attentionBias, sinks,
// zeros for a batch whose seqlensK is out of range), with the keys split over the subgroups:
// subgroup g takes keys lo + g, lo + g + NS, ...; per key its lanes read the key row together
// (channel h = lane + SG * c, coalesced), subgroupAdd gives the score, and an online softmax keeps
// the subgroup's max, sum and CPL output channels per lane in registers.  The NS partial results
// are then combined through shared memory (the sink enters there once).  Needs subgroup arithmetic,
// head size <= SG * CPL and NS <= 32 subgroups.  f32 throughout.
#include "common.glsl"
#include "ext_common.glsl"
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable

layout(constant_id = 1) const uint CPL = 2u;         // channels per lane (<= 16)
layout(constant_id = 2) const bool HAS_BIAS = false;
layout(constant_id = 3) const bool HAS_SINK = false; // headSink operand
layout(constant_id = 4) const bool SMOOTH = false;   // smoothSoftmax: sink 0 when no headSink

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

#define NEG_INF uintBitsToFloat(0xff800000u)
shared float q[16 * 32];       // the query row (H <= SG * CPL <= 512)
shared float part_m[32], part_l[32];
shared float part_acc[32 * 128]; // [subgroup][channel]: H <= 128 when NS is 32 (the host checks)

void main() {
    uint g = flat_group();
    if (g >= pc.B * pc.S * pc.N) return;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    uint lane = gl_SubgroupInvocationID, sg = gl_SubgroupID, ns = gl_NumSubgroups, sgs = gl_SubgroupSize;
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
    uint kv = (b * pc.kvN + head / (pc.N / pc.kvN)) * pc.C;
    uint brow = ((min(b, pc.bias_b - 1u) * pc.bias_n + min(head, pc.bias_n - 1u)) * pc.S + s) * pc.C;
    float qv[16], acc[16];
    for (uint c = 0u; c < CPL; c++) {
        uint h = lane + sgs * c;
        qv[c] = h < pc.H ? q[h] : 0.0;
        acc[c] = 0.0;
    }
    float m = NEG_INF, l = 0.0;
    for (uint j = lo + sg; j <= p; j += ns) {
        uint kr = pc.base_k + (kv + j) * pc.H, vr = pc.base_v + (kv + j) * pc.H;
        float d = 0.0;
        for (uint c = 0u; c < CPL; c++) {
            uint h = lane + sgs * c;
            if (h < pc.H) d = fma(qv[c], float(k_in[kr + h]), d);
        }
        d = subgroupAdd(d) * pc.scale;
        if (pc.softcap > 0.0) d = pc.softcap * tanh(d / pc.softcap);
        if (HAS_BIAS) d += float(bias_in[pc.base_bias + brow + j]);
        float mn = max(m, d);
        float rescale = m == NEG_INF ? 0.0 : exp(m - mn), e = d == NEG_INF ? 0.0 : exp(d - mn);
        l = l * rescale + e;
        m = mn;
        for (uint c = 0u; c < CPL; c++) {
            uint h = lane + sgs * c;
            float v = h < pc.H ? float(v_in[vr + h]) : 0.0;
            acc[c] = fma(e, v, acc[c] * rescale);
        }
    }
    if (lane == 0u) {
        part_m[sg] = m;
        part_l[sg] = l;
    }
    for (uint c = 0u; c < CPL; c++) {
        uint h = lane + sgs * c;
        if (h < pc.H) part_acc[sg * pc.H + h] = acc[c];
    }
    barrier();
    float mt = NEG_INF;
    if (HAS_SINK || SMOOTH) mt = HAS_SINK ? float(sink_in[pc.base_sink + head]) : 0.0;
    float sink = mt;
    for (uint i = 0u; i < ns; i++) mt = max(mt, part_m[i]);
    float lt = HAS_SINK || SMOOTH ? exp(sink - mt) : 0.0;
    for (uint i = 0u; i < ns; i++) lt += part_m[i] == NEG_INF ? 0.0 : part_l[i] * exp(part_m[i] - mt);
    for (uint h = tid; h < pc.H; h += nt) {
        float o = 0.0;
        for (uint i = 0u; i < ns; i++)
            if (part_m[i] != NEG_INF) o = fma(part_acc[i * pc.H + h], exp(part_m[i] - mt), o);
        io[orow + h] = A_T(o / lt);
    }
}
