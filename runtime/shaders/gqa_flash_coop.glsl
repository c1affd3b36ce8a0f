// gqa_flash_coop.glsl - groupQueryAttention prefill (S > 1) on cooperative matrices: the kernel of
// ext_gqa_attn_flash_coop.comp (NV cooperative matrices, subgroups of 32, float16 activations:
// k_gqa.c flash_coop_wg picks it where ext_gqa_attn_flash.comp would run) and of
// ext_gqa_attn_flash_coop_emu.comp (the same with the matrix and subgroup operations emulated:
// flash_coop_ops.glsl, FLASH_COOP_EMULATE).  Same contract and semantics as ext_gqa_attn_flash.comp
// (gqa_flash.glsl): one workgroup per (batch, query head, block of BQ query tokens), the block's
// prepared query rows read from the output and replaced by the result.
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
//    (fc_scale); skipped when no row's maximum moved.
//    Then O += P V.
//  - At the end each O fragment goes through the subgroup's score rows to the output: o / l, with
//    the sink term in l as in ext_gqa_attn_flash.comp (flash_start / flash_result).
// Numerics against ext_gqa_attn_flash.comp: Q, K, V are float16 tensors already (exact in the
// float16 tiles); the products are exact and summed in float32; the one extra rounding is P to
// float16 (relative 2^-11 per weight), so results differ by about a float16 ulp of the output
// (the emulated build in tests/runtime/test_rt_ext_gqa.c: at most 0.000488 from the float64
// reference, one float16 ulp at 0.5 .. 1; a NumPy model of the kernel agreed).
// Synchronization: barrier() around the workgroup's shared tiles; the score / P / R rows are the
// subgroup's own (fc_sync).  Shared memory: 2 KT (H + 8) float16 + 4 x 16 rows of KT + 4 floats, of
// KT + 8 float16 and of 16 floats (H 64: 27648 bytes, H 128: 35840; k_gqa.c flash_coop_shared).
// Include after #define FLASH_COOP_EMULATE 0 or 1.
#extension GL_EXT_control_flow_attributes : enable
#include "common.glsl"
#include "gqa_flash.glsl"
#include "flash_coop_ops.glsl"

layout(constant_id = 1) const uint HF = 4u; // H / 16

#define MAX_HF 8u  // H <= 128
#define MAX_SG 4u  // subgroups per workgroup
#define KT 32u     // keys per tile
const uint LDH = HF * 16u + 8u; // halves per staged key / value / query row (16-byte padding)
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
    uint tid = gl_LocalInvocationID.x, sg = FC_SG, lane = FC_LANE;
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
        FC_LOAD(qf[f], KVs, r0 * LDH + 16u * f, LDH, false);
        o[f] = fc_zero();
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
            ACC acc = fc_zero();
            [[unroll]] for (uint f = 0u; f < HF; f++) {
                FRAG kb;
                FC_LOAD(kb, KVs, 16u * n * LDH + 16u * f, LDH, true); // K^T: column c = key row c
                acc = fc_mul_add(qf[f], kb, acc);
            }
            FC_STORE(acc, Ss, sbase + 16u * n, LDS);
        }
        fc_sync();
        // scores in place and their maximum: keys c = 2 t + khalf of row rl
        float mx = NEG_INF;
        [[unroll]] for (uint t = 0u; t < KT / 2u; t++) {
            uint c = 2u * t + khalf, si = sbase + rl * LDS + c;
            bool live = c >= 16u * n_lo && c < 16u * n_hi; // computed (the others are masked for all rows)
            float d = flash_score(live ? Ss[si] : 0.0, fr, j0 + c, live && c < nk);
            Ss[si] = d;
            mx = max(mx, d);
        }
        mx = max(mx, fc_xor1(mx));
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
        ls += fc_xor1(ls);
        l = l * rescale + ls;
        m = mn;
        [[unroll]] for (uint i = 0u; i < 8u; i++) Rs[rbase + rl * 16u + 8u * khalf + i] = rescale;
        fc_sync();
        if (fc_min(rescale) != 1.0) { // some row's maximum moved: O *= R
            ACC rm;
            FC_LOAD_ACC(rm, Rs, rbase, 16u);
            [[unroll]] for (uint f = 0u; f < HF; f++) fc_scale(o[f], rm);
        }
        for (uint n = n_lo; n < n_hi; n++) {
            FRAG pa;
            FC_LOAD(pa, Ps, pbase + 16u * n, LDP, false);
            [[unroll]] for (uint f = 0u; f < HF; f++) {
                FRAG vb;
                FC_LOAD(vb, KVs, (KT + 16u * n) * LDH + 16u * f, LDH, false);
                o[f] = fc_mul_add(pa, vb, o[f]);
            }
        }
    }

    // o / l per row: element e = lane + 32 i of a 16x16 fragment is row e / 16 = (lane >> 4) + 2 i,
    // whose l the invocation 2 * row holds
    float lr[8];
    [[unroll]] for (uint i = 0u; i < 8u; i++) lr[i] = fc_shuffle(l, 2u * ((lane >> 4) + 2u * i));
    [[unroll]] for (uint f = 0u; f < HF; f++) {
        fc_sync(); // the previous fragment (or the last tile's scores) is consumed
        FC_STORE(o[f], Ss, sbase, 16u);
        fc_sync();
        [[unroll]] for (uint i = 0u; i < 8u; i++) {
            uint e = lane + 32u * i, r = r0 + e / 16u;
            if (r < fb.nq) io[flash_row(fb, r).orow + 16u * f + e % 16u] = A_T(flash_result(fb, Ss[sbase + e], lr[i]));
        }
    }
}
