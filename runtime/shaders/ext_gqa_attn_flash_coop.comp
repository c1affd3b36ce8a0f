#version 450
// ext_gqa_attn_flash_coop.comp - groupQueryAttention prefill (S > 1) on NV cooperative matrices
// (GL_NV_cooperative_matrix, subgroups of 32, float16 activations: k_gqa.c flash_coop picks it where
// ext_gqa_attn_flash.comp would run).  Same contract and semantics as that kernel (gqa_flash.glsl):
// one workgroup per (batch, query head, block of BQ query tokens), the block's prepared query rows
// read from the output and replaced by the result.
//  - The workgroup is NSG = WG / 32 subgroups (specialization constant 0: 128, i.e. 4), each owning
//    16 query rows: BQ = 16 NSG.  H = 16 HF (specialization constant 1), HF <= 8.
//  - The query block is staged once as float16 in shared memory (the key/value tile's space) and
//    kept as HF 16x16 float16 A fragments per subgroup.
//  - Keys and values: tiles of KT = 32 rows staged as float16 (rows past the keys the block sees
//    zeroed).  Per tile and subgroup, only the 16-key sub-blocks that some row of the subgroup sees
//    (causal limit, local window) are computed: S = Q K^T (16x16x16 float16 products, float32
//    accumulators) is stored to the subgroup's float32 score rows; then 2 invocations per query row
//    apply scale / softcap / attentionBias / mask (flash_score) in place, find the row maximum, and
//    write P = exp(s - m_new) as float16 (the softmax sum l adds these float16 values, so the output
//    is a weighted mean whose weights are exactly the P that multiplies V).
//  - O (16 x H per subgroup) stays in HF float32 accumulators.  Its online-softmax rescale by
//    exp(m_old - m_new) per row: a 16x16 matrix R whose row r holds row r's factor, loaded from
//    shared memory into the accumulators' type, multiplies the O fragments component by component
//    (element i of R and of each O fragment, as composites, are the same matrix element: one type,
//    one layout); skipped when no row's maximum moved.  (Component-wise operators on two matrices,
//    e.g. O / D, crash spirv-opt 2022.4 (glslc -O; Debian 12); element access does not.)
//    Then O += P V.
//  - At the end each O fragment goes through the subgroup's score rows to the output: o / l, with
//    the sink term in l as in ext_gqa_attn_flash.comp (flash_start / flash_result).
// Numerics against ext_gqa_attn_flash.comp: Q, K, V are float16 tensors already (exact in the
// float16 tiles); the products are exact and summed in float32; the one extra rounding is P to
// float16 (relative 2^-11 per weight), so results differ by about a float16 ulp of the output.
// Synchronization: barrier() around the workgroup's shared tiles; the score / P / R rows are the
// subgroup's own (subgroupBarrier).  Shared memory: 35840 bytes (k_gqa.c GQA_FLASH_COOP_SHARED).
#extension GL_NV_cooperative_matrix : enable
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_shuffle : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_EXT_control_flow_attributes : enable
#include "common.glsl"
#include "gqa_flash.glsl"

layout(constant_id = 1) const uint HF = 4u; // H / 16

#define FRAG fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define MAX_HF 8u  // H <= 128
#define MAX_SG 4u  // subgroups per workgroup
#define KT 32u     // keys per tile
#define LDH (MAX_HF * 16u + 8u) // halves per staged key / value / query row (16-byte padding)
#define LDS (KT + 4u)           // floats per score row
#define LDP (KT + 8u)           // halves per probability row
// K tile rows 0..KT-1, V tile rows KT..2KT-1; before the first tile the query block (BQ <= 2 KT rows)
shared float16_t KVs[2u * KT * LDH];
shared float Ss[MAX_SG * 16u * LDS];     // per subgroup: 16 score rows; at the end, one O fragment (16 x 16)
shared float16_t Ps[MAX_SG * 16u * LDP]; // per subgroup: 16 probability rows
shared float Rs[MAX_SG * 256u];          // per subgroup: the 16x16 rescale matrix R

void main() {
    const uint NSG = gl_WorkGroupSize.x / 32u, BQ = 16u * NSG, H = 16u * HF;
    uint g = flat_group();
    if (g >= pc.B * pc.N * ((pc.S + BQ - 1u) / BQ)) return;
    uint tid = gl_LocalInvocationID.x, sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    FlashBlock fb = flash_block(g, BQ);
    uint r0 = 16u * sg;                       // the subgroup's first query row in the block
    uint rows = fb.nq > r0 ? min(16u, fb.nq - r0) : 0u; // ... and its rows that exist
    uint rl = lane >> 1, khalf = lane & 1u;   // this invocation's row (of the subgroup's 16), half of the keys
    FlashRow fr = flash_row(fb, r0 + rl);
    uint sbase = sg * 16u * LDS, pbase = sg * 16u * LDP, rbase = sg * 256u;

    // the query block as float16 (zeros past nq / for an invalid batch), then the A fragments
    for (uint e = tid; e < BQ * H; e += gl_WorkGroupSize.x) {
        uint r = e / H, h = e % H;
        float16_t q = float16_t(0.0);
        if (fb.valid && r < fb.nq) q = float16_t(io[flash_row(fb, r).orow + h]);
        KVs[r * LDH + h] = q;
    }
    barrier();
    FRAG qf[MAX_HF];
    ACC o[MAX_HF];
    [[unroll]] for (uint f = 0u; f < HF; f++) {
        coopMatLoadNV(qf[f], KVs, r0 * LDH + 16u * f, LDH, false);
        o[f] = ACC(0.0);
    }
    float m, l;
    flash_start(fb.head, m, l);
    uint p_max = fb.past + fb.s0 + r0 + max(rows, 1u) - 1u; // last key a row of the subgroup sees
    uint p_min = fb.past + fb.s0 + r0, lo_min = pc.window > 0u && p_min >= pc.window ? p_min - pc.window + 1u : 0u;

    for (uint j0 = fb.j_start; j0 < fb.j_end; j0 += KT) {
        uint nk = min(KT, fb.j_end - j0);
        barrier(); // the previous tile (or the query block) is consumed
        for (uint e = tid; e < KT * H; e += gl_WorkGroupSize.x) {
            uint row = e / H, h = e % H, src = (fb.kv + j0) * H + e; // rows j0.. are contiguous in the cache
            float16_t k = float16_t(0.0), v = float16_t(0.0); // zeros past the keys: 0 * V, never NaN
            if (row < nk) {
                k = float16_t(k_in[pc.base_k + src]);
                v = float16_t(v_in[pc.base_v + src]);
            }
            KVs[row * LDH + h] = k;
            KVs[(KT + row) * LDH + h] = v;
        }
        barrier();
        // the 16-key sub-blocks [n_lo, n_hi) of the tile that some row of the subgroup sees
        uint n_hi = rows == 0u || p_max < j0 ? 0u : min(KT / 16u, (p_max - j0) / 16u + 1u);
        uint n_lo = lo_min > j0 ? min((lo_min - j0) / 16u, n_hi) : 0u;
        for (uint n = n_lo; n < n_hi; n++) {
            ACC acc = ACC(0.0);
            [[unroll]] for (uint f = 0u; f < HF; f++) {
                FRAG kb;
                coopMatLoadNV(kb, KVs, 16u * n * LDH + 16u * f, LDH, true); // K^T: column c = key row c
                acc = coopMatMulAddNV(qf[f], kb, acc);
            }
            coopMatStoreNV(acc, Ss, sbase + 16u * n, LDS, false);
        }
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        // scores in place and their maximum: keys c = 2 t + khalf of row rl
        float mx = NEG_INF;
        [[unroll]] for (uint t = 0u; t < KT / 2u; t++) {
            uint c = 2u * t + khalf, si = sbase + rl * LDS + c;
            bool live = c >= 16u * n_lo && c < 16u * n_hi; // computed (the others are masked for all rows)
            float d = flash_score(live ? Ss[si] : 0.0, fr, j0 + c, live && c < nk);
            Ss[si] = d;
            mx = max(mx, d);
        }
        mx = max(mx, subgroupShuffleXor(mx, 1u));
        float mn = max(m, mx);
        float rescale = m == NEG_INF ? 1.0 : exp(m - mn); // O and l are 0 while m is NEG_INF
        float ls = 0.0;
        [[unroll]] for (uint t = 0u; t < KT / 2u; t++) {
            uint c = 2u * t + khalf;
            float sc = Ss[sbase + rl * LDS + c];
            float16_t e = float16_t(sc == NEG_INF ? 0.0 : exp(sc - mn));
            Ps[pbase + rl * LDP + c] = e;
            ls += float(e);
        }
        ls += subgroupShuffleXor(ls, 1u);
        l = l * rescale + ls;
        m = mn;
        [[unroll]] for (uint i = 0u; i < 8u; i++) Rs[rbase + rl * 16u + 8u * khalf + i] = rescale;
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        if (subgroupMin(rescale) != 1.0) { // some row's maximum moved: O *= R
            ACC rm;
            coopMatLoadNV(rm, Rs, rbase, 16u, false);
            [[unroll]] for (uint f = 0u; f < HF; f++)
                for (int i = 0; i < rm.length(); i++) o[f][i] *= rm[i];
        }
        for (uint n = n_lo; n < n_hi; n++) {
            FRAG pa;
            coopMatLoadNV(pa, Ps, pbase + 16u * n, LDP, false);
            [[unroll]] for (uint f = 0u; f < HF; f++) {
                FRAG vb;
                coopMatLoadNV(vb, KVs, (KT + 16u * n) * LDH + 16u * f, LDH, false);
                o[f] = coopMatMulAddNV(pa, vb, o[f]);
            }
        }
    }

    // o / l per row: element e = lane + 32 i of a 16x16 fragment is row e / 16 = (lane >> 4) + 2 i,
    // whose l the invocation 2 * row holds
    float lr[8];
    [[unroll]] for (uint i = 0u; i < 8u; i++) lr[i] = subgroupShuffle(l, 2u * ((lane >> 4) + 2u * i));
    [[unroll]] for (uint f = 0u; f < HF; f++) {
        subgroupMemoryBarrierShared();
        subgroupBarrier(); // the previous fragment (or the last tile's scores) is consumed
        coopMatStoreNV(o[f], Ss, sbase, 16u, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        [[unroll]] for (uint i = 0u; i < 8u; i++) {
            uint e = lane + 32u * i, r = r0 + e / 16u;
            if (r < fb.nq) io[flash_row(fb, r).orow + 16u * f + e % 16u] = A_T(flash_result(fb, Ss[sbase + e], lr[i]));
        }
    }
}
