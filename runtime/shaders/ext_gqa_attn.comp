#version 450
// ext_gqa_attn.comp - groupQueryAttention, step 2: one workgroup per (batch, token, query head);
// the prepared query row (normed, rotated: ext_gqa_prep.comp) is read from the output and replaced
// by the attention result.  Keys j in [lo, p] of the present caches (p = past + s, lo = p - W + 1
// with a local window W, else 0; only rows < total are read; past from seqlensK on the device) are
// processed in chunks of one key per invocation with an online softmax (running max m, sum l,
// rescaled accumulators), so the score matrix is never materialized: scores scale * q.k, softcap
// c * tanh(s / c), + attentionBias, and an extra exp(sink - m) term in the denominator for
// smoothSoftmax (sink 0) or headSink.  f32 throughout.  A batch whose seqlensK is outside
// S-1..C-1 gets zeros.  Each invocation accumulates output channels h = tid + k * WG (k < 4).
#include "common.glsl"
#define EXT_REDUCTION 256
#include "ext_common.glsl"

layout(constant_id = 1) const bool SG_REDUCE = true;
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
shared float q[1024];
shared float p_chunk[256];

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
    uint kv = (b * pc.kvN + head / (pc.N / pc.kvN)) * pc.C;
    uint brow = ((min(b, pc.bias_b - 1u) * pc.bias_n + min(head, pc.bias_n - 1u)) * pc.S + s) * pc.C;
    float m = NEG_INF, l = 0.0;
    if (HAS_SINK || SMOOTH) {
        m = HAS_SINK ? float(sink_in[pc.base_sink + head]) : 0.0;
        l = 1.0;
    }
    float acc[4] = {0.0, 0.0, 0.0, 0.0};
    for (uint j0 = lo; j0 <= p; j0 += nt) {
        uint j = j0 + tid;
        float sc = NEG_INF;
        if (j <= p) {
            uint kr = pc.base_k + (kv + j) * pc.H;
            float d = 0.0;
            for (uint h = 0u; h < pc.H; h++) d = fma(q[h], float(k_in[kr + h]), d);
            d *= pc.scale;
            if (pc.softcap > 0.0) d = pc.softcap * tanh(d / pc.softcap);
            if (HAS_BIAS) d += float(bias_in[pc.base_bias + brow + j]);
            sc = d;
        }
        float mn = max(m, ext_wg_max(sc, SG_REDUCE));
        float e = j <= p ? exp(sc - mn) : 0.0;
        p_chunk[tid] = e;
        float rescale = m == NEG_INF ? 0.0 : exp(m - mn);
        l = l * rescale + ext_wg_sum(e, SG_REDUCE); // its barriers also publish p_chunk
        m = mn;
        uint cnt = min(nt, p + 1u - j0);
        for (uint k = 0u; k < 4u; k++) {
            uint h = tid + k * nt;
            if (h >= pc.H) break;
            float a = acc[k] * rescale;
            for (uint jj = 0u; jj < cnt; jj++) a = fma(p_chunk[jj], float(v_in[pc.base_v + (kv + j0 + jj) * pc.H + h]), a);
            acc[k] = a;
        }
        barrier();
    }
    for (uint k = 0u; k < 4u; k++) {
        uint h = tid + k * nt;
        if (h < pc.H) io[orow + h] = A_T(acc[k] / l);
    }
}
