#version 450
// ext_gqa_attn_flash.comp - groupQueryAttention, step 2 for prefill (S > 1): flash-style, one
// workgroup of 128 invocations per (batch, query head, block of BQ = 128 / TPR query tokens), so the
// keys and values are read once per block instead of once per token.  The block's prepared query rows
// (normed, rotated: ext_gqa_prep.comp) are read from the output and replaced by the attention result.
//  - Query row r of the block belongs to the TPR (specialization constant, a power of 2 up to the
//    subgroup size) consecutive invocations TPR r .. TPR r + TPR - 1; invocation `sub` of them keeps
//    the row's channels h = sub + TPR c (c < CPT = ceil(H / TPR), a specialization constant) of the
//    query and of the output in registers.
//  - Keys and values are staged in shared memory in tiles of KT rows (64 at H = 64, 32 at H = 128);
//    interleaved channels make the invocations of a row read consecutive words of a key row, the
//    same words for every row: broadcast, no bank conflicts.
//  - Per KC = 16 keys: each invocation's partial dot products, summed over the row's invocations
//    with log2(TPR) XOR shuffles, give the 16 scores; one rescale of the online softmax (running max m, sum l) per
//    16 keys, then the 16 values enter the output channels.
// Same semantics as ext_gqa_attn.comp (decode): keys j in [lo, p] with p = past + s, lo = p - W + 1
// with a local window W, rows < total only; scores scale * q.k, softcap, + attentionBias, sink term
// for smoothSoftmax / headSink; a batch whose seqlensK is outside S-1..C-1 gets zeros.  f32
// throughout; H <= 128 and subgroup shuffles (k_gqa.c picks this kernel).
// (It replaced a kernel of 8 invocations per query row that recomputed every exp 8 times and read
// both operands of every multiply-add from shared memory: 275 us per layer on an H100 at 512
// tokens of Qwen2-0.5B.)
#extension GL_KHR_shader_subgroup_shuffle : enable
#include "common.glsl"
#include "ext_common.glsl"

layout(constant_id = 1) const uint CPT = 16u; // channels per invocation: ceil(H / TPR)
layout(constant_id = 2) const bool HAS_BIAS = false;
layout(constant_id = 3) const bool HAS_SINK = false;
layout(constant_id = 4) const bool SMOOTH = false;
layout(constant_id = 5) const uint TPR = 4u; // invocations per query row

PARAMS_BLOCK PC {
    uint B, S, N, kvN, H, C, window;
    float scale, softcap;
    uint bias_b, bias_n;
    uint base_out, base_seqlens, base_k, base_v, base_bias, base_sink;
} pc;
layout(std430, binding = 0) buffer O { A_T io[]; };
layout(std430, binding = 1) readonly buffer Sl { int seqlens_in[]; };
layout(std430, binding = 2) readonly buffer K { A_T k_in[]; };
layout(std430, binding = 3) readonly buffer V { A_T v_in[]; };
layout(std430, binding = 4) readonly buffer Bi { A_T bias_in[]; };
layout(std430, binding = 5) readonly buffer Sk { A_T sink_in[]; };

#define NEG_INF uintBitsToFloat(0xff800000u)
#define KC 16u         // keys per softmax update
#define TILE 4096u     // floats of a staged key (value) tile: KT * H <= TILE
shared float Ks[TILE + 32u], Vs[TILE + 32u]; // + 32 >= TPR: the channels past H of the last row

void main() {
    const uint BQ = gl_WorkGroupSize.x / TPR; // query rows per workgroup
    uint g = flat_group(), qblocks = (pc.S + BQ - 1u) / BQ;
    if (g >= pc.B * pc.N * qblocks) return;
    uint tid = gl_LocalInvocationID.x, r = tid / TPR, sub = tid % TPR;
    uint qb = g % qblocks, head = (g / qblocks) % pc.N, b = g / (qblocks * pc.N);
    uint s0 = qb * BQ, nq = min(BQ, pc.S - s0), H = pc.H;
    uint KT = min(64u, TILE / H) / KC * KC;
    int total = seqlens_in[pc.base_seqlens + b] + 1;
    bool valid = total >= int(pc.S) && total <= int(pc.C);
    uint past = valid ? uint(total) - pc.S : 0u;
    bool mine = r < nq; // this invocation's query row exists
    uint s = s0 + min(r, nq - 1u), p = past + s;
    uint lo = pc.window > 0u && p >= pc.window ? p - pc.window + 1u : 0u;
    uint p_last = past + s0 + nq - 1u; // last key any row of the block sees
    uint lo_first = pc.window > 0u && past + s0 >= pc.window ? past + s0 - pc.window + 1u : 0u;
    uint kv = (b * pc.kvN + head / (pc.N / pc.kvN)) * pc.C;
    uint brow = ((min(b, pc.bias_b - 1u) * pc.bias_n + min(head, pc.bias_n - 1u)) * pc.S + s) * pc.C;
    uint orow = pc.base_out + ((b * pc.S + s) * pc.N + head) * H;
    float qr[CPT], o[CPT];
    for (uint c = 0u; c < CPT; c++) {
        uint h = sub + TPR * c;
        qr[c] = valid && h < H ? float(io[orow + h]) : 0.0;
        o[c] = 0.0;
    }
    float m = NEG_INF, l = 0.0;
    if (HAS_SINK || SMOOTH) {
        m = HAS_SINK ? float(sink_in[pc.base_sink + head]) : 0.0;
        l = 1.0;
    }
    uint j_start = valid ? lo_first / KC * KC : 1u, j_end = valid ? p_last + 1u : 0u;
    for (uint j0 = j_start; j0 < j_end; j0 += KT) {
        uint nk = min(KT, j_end - j0);
        barrier(); // the previous tile is consumed
        for (uint e = tid; e < nk * H; e += gl_WorkGroupSize.x) {
            uint row = (kv + j0) * H + e; // rows j0.. are contiguous in the cache
            Ks[e] = float(k_in[pc.base_k + row]);
            Vs[e] = float(v_in[pc.base_v + row]);
        }
        barrier();
        for (uint c0 = 0u; c0 < nk; c0 += KC) {
            float sc[KC];
            float mx = NEG_INF;
            for (uint t = 0u; t < KC; t++) {
                uint jl = min(c0 + t, nk - 1u), kj = j0 + c0 + t;
                float d = 0.0;
                for (uint c = 0u; c < CPT; c++) {
                    uint h = sub + TPR * c;
                    d = fma(qr[c], h < H ? Ks[jl * H + h] : 0.0, d);
                }
                for (uint x = 1u; x < TPR; x <<= 1) d += subgroupShuffleXor(d, x);
                d *= pc.scale;
                if (pc.softcap > 0.0) d = pc.softcap * tanh(d / pc.softcap);
                bool ok = mine && c0 + t < nk && kj >= lo && kj <= p;
                if (HAS_BIAS && ok) d += float(bias_in[pc.base_bias + brow + kj]);
                sc[t] = ok ? d : NEG_INF;
                mx = max(mx, sc[t]);
            }
            float mn = max(m, mx); // the same in all invocations of the row
            if (mn != NEG_INF) {
                float rescale = m == NEG_INF ? 0.0 : exp(m - mn);
                l *= rescale;
                for (uint c = 0u; c < CPT; c++) o[c] *= rescale;
                for (uint t = 0u; t < KC; t++) {
                    float e = sc[t] == NEG_INF ? 0.0 : exp(sc[t] - mn);
                    uint jl = min(c0 + t, nk - 1u);
                    l += e;
                    for (uint c = 0u; c < CPT; c++) o[c] = fma(e, Vs[jl * H + sub + TPR * c], o[c]);
                }
                m = mn;
            }
        }
    }
    if (!mine) return;
    for (uint c = 0u; c < CPT; c++) {
        uint h = sub + TPR * c;
        if (h < H) io[orow + h] = A_T(valid && l > 0.0 ? o[c] / l : 0.0);
    }
}
