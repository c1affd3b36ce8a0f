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
// for smoothSoftmax / headSink; a batch whose seqlensK is outside S-1..C-1 gets zeros (bindings,
// geometry, scores and the sink term: gqa_flash.glsl, shared with ext_gqa_attn_flash_coop.comp).
// f32 throughout; H <= 128 and subgroup shuffles (k_gqa.c picks this kernel).
// (It replaced a kernel of 8 invocations per query row that recomputed every exp 8 times and read
// both operands of every multiply-add from shared memory: 275 us per layer on an H100 at 512
// tokens of Qwen2-0.5B.)
#extension GL_KHR_shader_subgroup_shuffle : enable
#include "common.glsl"
#include "ext_common.glsl"
#include "gqa_flash.glsl"

layout(constant_id = 1) const uint CPT = 16u; // channels per invocation: ceil(H / TPR)
layout(constant_id = 5) const uint TPR = 4u; // invocations per query row

#define KC 16u         // keys per softmax update
#define TILE 4096u     // floats of a staged key (value) tile: KT * H <= TILE
shared float Ks[TILE + 32u], Vs[TILE + 32u]; // + 32 >= TPR: the channels past H of the last row

void main() {
    const uint BQ = gl_WorkGroupSize.x / TPR; // query rows per workgroup
    uint g = flat_group();
    if (g >= pc.B * pc.N * ((pc.S + BQ - 1u) / BQ)) return;
    uint tid = gl_LocalInvocationID.x, r = tid / TPR, sub = tid % TPR, H = pc.H;
    FlashBlock fb = flash_block(g, BQ);
    FlashRow fr = flash_row(fb, r);
    uint KT = min(64u, TILE / H) / KC * KC;
    float qr[CPT], o[CPT];
    for (uint c = 0u; c < CPT; c++) {
        uint h = sub + TPR * c;
        qr[c] = fb.valid && h < H ? float(io[fr.orow + h]) : 0.0;
        o[c] = 0.0;
    }
    float m, l;
    flash_start(fb.head, m, l);
    for (uint j0 = fb.j_start; j0 < fb.j_end; j0 += KT) {
        uint nk = min(KT, fb.j_end - j0);
        barrier(); // the previous tile is consumed
        for (uint e = tid; e < nk * H; e += gl_WorkGroupSize.x) {
            uint row = (fb.kv + j0) * H + e; // rows j0.. are contiguous in the cache
            Ks[e] = float(k_in[pc.base_k + row]);
            Vs[e] = float(v_in[pc.base_v + row]);
        }
        barrier();
        for (uint c0 = 0u; c0 < nk; c0 += KC) {
            float sc[KC];
            float mx = NEG_INF;
            for (uint t = 0u; t < KC; t++) {
                uint jl = min(c0 + t, nk - 1u);
                float d = 0.0;
                for (uint c = 0u; c < CPT; c++) {
                    uint h = sub + TPR * c;
                    d = fma(qr[c], h < H ? Ks[jl * H + h] : 0.0, d);
                }
                for (uint x = 1u; x < TPR; x <<= 1) d += subgroupShuffleXor(d, x);
                sc[t] = flash_score(d, fr, j0 + c0 + t, c0 + t < nk);
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
    if (!fr.mine) return;
    for (uint c = 0u; c < CPT; c++) {
        uint h = sub + TPR * c;
        if (h < H) io[fr.orow + h] = A_T(flash_result(fb, o[c], l));
    }
}
