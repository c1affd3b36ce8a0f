// gqa_flash.glsl - what the two groupQueryAttention prefill kernels share: ext_gqa_attn_flash.comp
// (f32 scalar, subgroup shuffles) and ext_gqa_attn_flash_coop.comp (NV cooperative matrices).
// Both run one workgroup per (batch, query head, block of BQ query tokens) and read the block's
// prepared query rows (ext_gqa_prep.comp) from the output, which they overwrite with the result.
// Here: the push constants and bindings (k_gqa.c AttnPush), the block's geometry (flash_block), a
// query row's (flash_row), the score of one key (scale, softcap, attentionBias, the causal / local
// window / block mask: flash_score) and the start of the online softmax (sink term: flash_start).
// Semantics (as ext_gqa_attn.comp): keys j in [lo, p] with p = past + s, lo = p - W + 1 with a
// local window W, rows < total only; a batch whose seqlensK is outside S-1..C-1 gets zeros.
// Include after common.glsl; specialization constants 2..4 are taken here (0: workgroup size).

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
#define FLASH_ALIGN 16u // key ranges start at multiples of this

struct FlashBlock {
    uint b, head, s0, nq; // batch, query head, first query token, query rows (<= BQ)
    bool valid;           // seqlensK in range (else: zeros)
    uint past, kv;        // tokens before the new ones; cache row 0 of the kv head
    uint j_start, j_end;  // keys any row of the block sees: [j_start, j_end), j_start FLASH_ALIGN-aligned
};

struct FlashRow {
    bool mine;            // the row exists (row index < nq)
    uint p, lo;           // its keys: [lo, p]
    uint brow, orow;      // its attentionBias row, its output row (element index)
};

// The block of workgroup `g` (< B * N * ceil(S / BQ)) for BQ query rows per workgroup.
FlashBlock flash_block(uint g, uint BQ) {
    FlashBlock fb;
    uint qblocks = (pc.S + BQ - 1u) / BQ;
    fb.b = g / (qblocks * pc.N);
    fb.head = (g / qblocks) % pc.N;
    fb.s0 = (g % qblocks) * BQ;
    fb.nq = min(BQ, pc.S - fb.s0);
    int total = seqlens_in[pc.base_seqlens + fb.b] + 1;
    fb.valid = total >= int(pc.S) && total <= int(pc.C);
    fb.past = fb.valid ? uint(total) - pc.S : 0u;
    uint p_first = fb.past + fb.s0, p_last = p_first + fb.nq - 1u; // last key any row of the block sees
    uint lo_first = pc.window > 0u && p_first >= pc.window ? p_first - pc.window + 1u : 0u;
    fb.kv = (fb.b * pc.kvN + fb.head / (pc.N / pc.kvN)) * pc.C;
    fb.j_start = fb.valid ? lo_first / FLASH_ALIGN * FLASH_ALIGN : 1u;
    fb.j_end = fb.valid ? p_last + 1u : 0u;
    return fb;
}

// Query row r (< BQ) of the block; rows past nq get the last row's geometry (mine false).
FlashRow flash_row(FlashBlock fb, uint r) {
    FlashRow fr;
    fr.mine = r < fb.nq;
    uint s = fb.s0 + min(r, fb.nq - 1u);
    fr.p = fb.past + s;
    fr.lo = pc.window > 0u && fr.p >= pc.window ? fr.p - pc.window + 1u : 0u;
    fr.brow = ((min(fb.b, pc.bias_b - 1u) * pc.bias_n + min(fb.head, pc.bias_n - 1u)) * pc.S + s) * pc.C;
    fr.orow = pc.base_out + ((fb.b * pc.S + s) * pc.N + fb.head) * pc.H;
    return fr;
}

// Score of key kj for the row from the dot product q.k: scale, softcap, + attentionBias; NEG_INF
// where the key is masked (causal limit, local window, a row past the block, or !in_tile: a key
// column past the staged tile).
float flash_score(float dot_qk, FlashRow fr, uint kj, bool in_tile) {
    if (!(fr.mine && in_tile && kj >= fr.lo && kj <= fr.p)) return NEG_INF;
    float d = dot_qk * pc.scale;
    if (pc.softcap > 0.0) d = pc.softcap * tanh(d / pc.softcap);
    if (HAS_BIAS) d += float(bias_in[pc.base_bias + fr.brow + kj]);
    return d;
}

// Start of the online softmax (running max m, sum l): the sink term exp(sink - m) of headSink /
// smoothSoftmax (sink 0), else nothing.
void flash_start(uint head, out float m, out float l) {
    m = NEG_INF;
    l = 0.0;
    if (HAS_SINK || SMOOTH) {
        m = HAS_SINK ? float(sink_in[pc.base_sink + head]) : 0.0;
        l = 1.0;
    }
}

// The attention result of a row from its output accumulator o and softmax sum l.
float flash_result(FlashBlock fb, float o, float l) { return fb.valid && l > 0.0 ? o / l : 0.0; }
