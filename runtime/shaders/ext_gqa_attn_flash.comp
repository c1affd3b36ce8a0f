#version 450
// ext_gqa_attn_flash.comp - groupQueryAttention, step 2 for prefill (S > 1): flash-style, one
// workgroup of 128 invocations per (batch, query head, block of 16 query tokens), so the keys and
// values are read once per block instead of once per token.  The block's prepared query rows
// (normed, rotated: ext_gqa_prep.comp) are read from the output into shared memory and replaced by
// the attention result.  Keys are processed in tiles of KT = min(2048 / H, 32) rows (32 at H = 64)
// staged in shared memory (key rows padded to H + 1 against bank conflicts): 8 invocations per
// query row; invocation (q, sub) computes the full scores of keys j = sub, sub + 8, ..., then
// updates query q's online softmax (running max m, sum l) and its output channels h = sub + 8 i.  Same semantics as ext_gqa_attn.comp (decode): keys j in [lo, p]
// with p = past + s, lo = p - W + 1 with a local window W, rows < total only; scores scale * q.k,
// softcap, + attentionBias, sink term for smoothSoftmax / headSink; a batch whose seqlensK is
// outside S-1..C-1 gets zeros.  f32 throughout; H <= 128 (k_ext_gqa.c picks this kernel).
#include "common.glsl"
#include "ext_common.glsl"

layout(constant_id = 1) const bool SG_REDUCE = true; // unused (the reductions are per query row)
layout(constant_id = 2) const bool HAS_BIAS = false;
layout(constant_id = 3) const bool HAS_SINK = false;
layout(constant_id = 4) const bool SMOOTH = false;

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
#define BQ 16u
#define TPQ 8u // invocations per query row
#define MAXH 128u
#define KTMAX 32u
shared float Qs[BQ * (MAXH + 1u)];
shared float Ks[2080]; // KT * (H + 1) <= 2080 for every H <= 128
shared float Vs[2048];
shared float Ss[BQ * (KTMAX + 1u)]; // scores of the tile: [q][j]

void main() {
    uint g = flat_group(), qblocks = (pc.S + BQ - 1u) / BQ;
    if (g >= pc.B * pc.N * qblocks) return;
    uint tid = gl_LocalInvocationID.x, q = tid / TPQ, sub = tid % TPQ;
    uint qb = g % qblocks, head = (g / qblocks) % pc.N, b = g / (qblocks * pc.N);
    uint s0 = qb * BQ, nq = min(BQ, pc.S - s0), H = pc.H;
    uint KT = min(2048u / H, KTMAX), LD = H + 1u, SLD = KTMAX + 1u;
    int total = seqlens_in[pc.base_seqlens + b] + 1;
    bool valid = total >= int(pc.S) && total <= int(pc.C);
    uint past = valid ? uint(total) - pc.S : 0u;
    // query rows of this block into shared memory
    for (uint e = tid; e < nq * H; e += 128u) {
        uint r = e / H, h = e % H;
        Qs[r * LD + h] = valid ? float(io[pc.base_out + ((b * pc.S + s0 + r) * pc.N + head) * H + h]) : 0.0;
    }
    barrier();
    bool mine = q < nq; // this invocation's query row exists
    uint s = s0 + min(q, nq - 1u), p = past + s;
    uint lo = pc.window > 0u && p >= pc.window ? p - pc.window + 1u : 0u;
    uint p_last = past + s0 + nq - 1u; // last key any row of the block sees
    uint lo_first = pc.window > 0u && past + s0 >= pc.window ? past + s0 - pc.window + 1u : 0u;
    uint kv = (b * pc.kvN + head / (pc.N / pc.kvN)) * pc.C;
    uint brow = ((min(b, pc.bias_b - 1u) * pc.bias_n + min(head, pc.bias_n - 1u)) * pc.S + s) * pc.C;
    float m = NEG_INF, l = 0.0;
    if (HAS_SINK || SMOOTH) {
        m = HAS_SINK ? float(sink_in[pc.base_sink + head]) : 0.0;
        l = 1.0;
    }
    float acc[MAXH / TPQ];
    for (uint i = 0u; i < MAXH / TPQ; i++) acc[i] = 0.0;
    uint j_start = valid ? (lo_first / KT) * KT : 1u, j_end = valid ? p_last + 1u : 0u;
    for (uint j0 = j_start; j0 < j_end; j0 += KT) {
        uint nk = min(KT, j_end - j0);
        for (uint e = tid; e < nk * H; e += 128u) {
            uint r = e / H, h = e % H, row = (kv + j0 + r) * H + h;
            Ks[r * LD + h] = float(k_in[pc.base_k + row]);
            Vs[r * H + h] = float(v_in[pc.base_v + row]);
        }
        barrier();
        // scores: BQ * KT dots, this invocation's are (q, j = sub + TPQ t)
        for (uint j = sub; j < KT; j += TPQ) {
            uint kj = j0 + j;
            float d = NEG_INF;
            if (mine && j < nk && kj >= lo && kj <= p) {
                d = 0.0;
                for (uint h = 0u; h < H; h++) d = fma(Qs[q * LD + h], Ks[j * LD + h], d);
                d *= pc.scale;
                if (pc.softcap > 0.0) d = pc.softcap * tanh(d / pc.softcap);
                if (HAS_BIAS) d += float(bias_in[pc.base_bias + brow + kj]);
            }
            Ss[q * SLD + j] = d;
        }
        barrier();
        float tmax = NEG_INF;
        for (uint j = 0u; j < nk; j++) tmax = max(tmax, Ss[q * SLD + j]);
        float mn = max(m, tmax);
        if (mn != NEG_INF) {
            float rescale = m == NEG_INF ? 0.0 : exp(m - mn);
            l *= rescale;
            for (uint i = 0u; i < MAXH / TPQ; i++) acc[i] *= rescale;
            for (uint j = 0u; j < nk; j++) {
                float sc = Ss[q * SLD + j];
                float e = sc == NEG_INF ? 0.0 : exp(sc - mn);
                l += e;
                for (uint i = 0u; i < MAXH / TPQ; i++) {
                    uint h = sub + TPQ * i;
                    if (h < H) acc[i] = fma(e, Vs[j * H + h], acc[i]);
                }
            }
            m = mn;
        }
        barrier();
    }
    if (!mine) return;
    uint orow = pc.base_out + ((b * pc.S + s) * pc.N + head) * H;
    for (uint i = 0u; i < MAXH / TPQ; i++) {
        uint h = sub + TPQ * i;
        if (h < H) io[orow + h] = A_T(valid && l > 0.0 ? acc[i] / l : 0.0);
    }
}
