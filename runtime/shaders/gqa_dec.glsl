// gqa_dec.glsl - the key loop and the combine of the decode attention kernels
// (ext_gqa_attn_dec.comp, ext_gqa_dec_fused.comp): a workgroup attends with its query row in
// shared q[] over a range of keys.  Subgroup g takes the runs of DEC_KB keys starting at
// lo + DEC_KB * g, lo + DEC_KB * (g + NS), ...; per key its lanes read the key row together
// (channel h = lane + SG * c, coalesced); the key and value rows of a run are all loaded before
// any is used (the loop is bound by memory latency: a load used at once stalls its subgroup) and
// enter an online softmax that keeps the subgroup's max, sum and CPL output channels per lane in
// registers.  The scores: with runs of 8 keys (DEC_KB 8), one transposing reduction of the
// lanes' 8 partial dot products (dec_run: 7 shuffles, then a butterfly over the lanes that share a
// key), the run's maximum by a subgroup reduction (each lane keeps its share of the sum) and the
// value sums by 8 shuffles; else
// a subgroupAdd per key (H100, Qwen2-0.5B decode: a run of 4 keys took about 1.1 us that way, the
// whole key loop 4.2 of the kernel's 14 us after 128 tokens).  The NS partial results are
// combined through shared memory (gqa_dec_attend_qv; with runs of 8, each channel by 8 lanes that
// take every 8th partial, then shuffles.  With one invocation per channel over all partials, 32
// subgroups had been slower than 16 (H100, Qwen2-0.5B, after 512 tokens: 16.0 against 14.9 us a
// layer); with this combine 13.5 against 14.8), then normalized with the sink into io[]
// (gqa_dec_finish) or, split over workgroups, combined once more by the caller.  f32 throughout.
// The including shader declares, before the include: the constants CPL, DEC_KB (keys per run: 8
// for the transposing reduction, another count for a subgroupAdd per key), HAS_BIAS, HAS_SINK,
// SMOOTH, the parameter block pc (fields H, scale, softcap), the output buffer io[], and
// the functions dec_key(j, h) / dec_value(j, h) (channel h of key / value row j in memory),
// dec_new_key(c, h) / dec_new_value(c, h) (channel h, the lane's c-th, of a row not in memory),
// dec_bias(j) and dec_sink(head); optionally DEC_AFTER_KEYS, a function called after the key loop,
// and DEC_H / DEC_SOFTCAP, the head size and whether pc.softcap may be set (default pc.H / true:
// an includer that fixes them at pipeline creation gets constant loop bounds).
// Pairs (DEC_PAIRS, float16 caches; the includer defines DEC_PAIR_LOADS and dec_key_pair(j, p) /
// dec_value_pair(j, p), channels 2p and 2p + 1 of a row as one packed word): a lane holds channel
// pairs p = lane + SG * (c / 2) (dec_channel), each key's pair in one 32-bit load and register, so
// that the next run's loads are issued before the current run is scored (two sets of registers,
// as many as one run of unpacked channels): the runs' memory latencies overlap instead of adding
// up.
// Wide runs (DEC_WIDE_NK > 0; float16 caches read as uvec4, the includer defines dec_key_vec4(j, b) /
// dec_value_vec4(j, b), channels 8b .. 8b + 7 of a row): the DEC_H / 8 lanes of a key group hold 8
// channels each of a key (one 16-byte load), a subgroup's SG / (DEC_H / 8) key groups take
// DEC_WIDE_NK keys each per run, and a transposing reduction within the group leaves every key's
// score in DEC_H / 8 / DEC_WIDE_NK of its lanes (DEC_WIDE_NK / 2 keys per lane where one round of
// those covers the keys).  Per key that is a quarter of a load and of its address arithmetic and a
// fraction of a shuffle, where a key spread over all the lanes (above) takes a load per lane, its
// address and about three shuffles: that loop was bound by the instructions it issued, not by
// memory (H200, Qwen2-0.5B decode after 512 tokens: the same rate with every key read from 64
// cached rows; wide runs 1397 -> 1475 tok/s there, bench/HISTORY.md, thirtieth session).  The
// value sums stay per key group (8 channels a lane) until the key loop ends.
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_KHR_shader_subgroup_shuffle : enable
#extension GL_EXT_control_flow_attributes : enable

#define NEG_INF uintBitsToFloat(0xff800000u)
#ifndef DEC_PAIRS
#define DEC_PAIRS false
#endif
#ifndef DEC_SOFTCAP
#define DEC_SOFTCAP true // whether pc.softcap may be set (an includer may fix it)
#endif
#ifndef DEC_H
#define DEC_H pc.H // the head size (an includer may make it a specialization constant)
#endif
#include "gqa_dec_sizes.h"
shared float q[GQA_DEC_MAX_H];       // the query row
shared float part_m[GQA_DEC_PART_SLOTS], part_l[GQA_DEC_PART_SLOTS];
shared float part_acc[GQA_DEC_PARTIALS]; // [subgroup][channel]

// The subgroup's state, per invocation: its run's key / value channels (the lane's c-th of key t at
// [t * CPL + c]), its query channels and its output channels.  Sized by CPL and indexed only by
// unrolled loop counters so that they stay in registers (sized 16 channels per key and passed by
// value, the H100 compiler kept them in local memory: 784 bytes per invocation, and 23 us per layer
// at 128 keys).
float kx[DEC_KB * CPL], vx[DEC_KB * CPL], qv[CPL], acc[CPL];
#ifdef DEC_PAIR_LOADS
const uint DEC_CPL2 = (CPL + 1u) / 2u; // pairs per lane (DEC_PAIRS: CPL is even)
uint kp1[DEC_KB * DEC_CPL2], vp1[DEC_KB * DEC_CPL2], kp2[DEC_KB * DEC_CPL2], vp2[DEC_KB * DEC_CPL2]; // two runs' packed pairs
#endif
#ifndef DEC_WIDE_NK
#define DEC_WIDE_NK 0u // keys per lane of a wide run (0: no wide runs; the includer may make it a constant)
#endif
const bool DEC_WIDE = DEC_WIDE_NK > 0u;
const uint DEC_WNK = DEC_WIDE ? DEC_WIDE_NK : 1u;
#ifdef DEC_PAIR_LOADS
uvec4 wk[DEC_WNK], wv[DEC_WNK]; // wide runs: this lane's 8 channels of its keys
float wq[8], wacc[8];           // ... of the query and of the unnormalized output (per key group)
#endif

// The channel that this lane's c-th register (qv, acc, a run's c-th channel) holds.
uint dec_channel(uint c) {
    uint lane = gl_SubgroupInvocationID, sgs = gl_SubgroupSize;
    return DEC_PAIRS ? 2u * (lane + sgs * (c / 2u)) + (c & 1u) : lane + sgs * c;
}

// Channel c of key / value t of the run in register set buf: 0 kx / vx, 1 and 2 the packed pairs
// (a constant at every call, so that the selection folds away and the arrays stay in registers).
#ifdef DEC_PAIR_LOADS
#define DEC_PAIR_READ(P1, P2)                                                       \
    if (buf == 1u) return unpackHalf2x16(P1[t * DEC_CPL2 + c / 2u])[c & 1u];        \
    if (buf == 2u) return unpackHalf2x16(P2[t * DEC_CPL2 + c / 2u])[c & 1u];
#else
#define DEC_PAIR_READ(P1, P2)
#endif
float dec_kx(uint buf, uint t, uint c) { DEC_PAIR_READ(kp1, kp2) return kx[t * CPL + c]; }
float dec_vx(uint buf, uint t, uint c) { DEC_PAIR_READ(vp1, vp2) return vx[t * CPL + c]; }

// The score of key j from its dot product x with the query: scaled, soft-capped, plus the bias.
float dec_score(float x, uint j) {
    x *= pc.scale;
    if (DEC_SOFTCAP && pc.softcap > 0.0) x = pc.softcap * tanh(x / pc.softcap);
    if (HAS_BIAS) x += dec_bias(j);
    return x;
}

// One step of the transposing reduction (dec_run): lanes with bit o set keep entry b and send entry
// a, the others the reverse; entry a then holds the pair's sum of what the lane kept.
#define DEC_TSTEP(o, a, b)                                                                        \
    {                                                                                             \
        bool up = (lane & (o)) != 0u;                                                             \
        float keep = up ? d[b] : d[a], send = up ? d[a] : d[b];                                   \
        d[a] = keep + subgroupShuffleXor(send, o);                                                \
    }

// Runs of 8 keys scored by the transposing reduction leave in l each lane's share of the softmax
// sum (the keys it scored), summed over the subgroup once after the key loop.
#define DEC_LANE_SUMS (DEC_KB == 8u && gl_SubgroupSize >= 8u)

// One run of n (1..DEC_KB) keys, held in register set buf (dec_kx) for t < n, into the online softmax (m, l, acc):
// entries past n are never used (their scores are replaced by -inf and the value loop stops at n:
// the new-row run of a subgroup that had no memory run leaves them as they were, and 0 * NaN is
// NaN); j0 is the first key's index (for the bias).
void dec_run(uint buf, uint n, uint j0, inout float m, inout float l) {
    float d[DEC_KB > 8u ? DEC_KB : 8u]; // the lanes' partial dot products, then the scores
    [[unroll]] for (uint t = 0u; t < DEC_KB; t++) {
        float x = 0.0;
        [[unroll]] for (uint c = 0u; c < CPL; c++) x = fma(qv[c], dec_kx(buf, t, c), x);
        d[t] = x;
    }
    if (DEC_LANE_SUMS) {
        // Transposing reduction of the 8 keys' partial sums: three steps at offsets 4, 2 and 1
        // times span (lanes per key) leave in d[0] of lane i the sum over its span-lane group's
        // partials of key i / span (7 shuffles where 8 subgroupAdds take 40); the rest of the sum
        // is a plain butterfly within the group.
        uint lane = gl_SubgroupInvocationID, span = gl_SubgroupSize / 8u, key = lane / span;
        DEC_TSTEP(4u * span, 0, 4) DEC_TSTEP(4u * span, 1, 5) DEC_TSTEP(4u * span, 2, 6) DEC_TSTEP(4u * span, 3, 7)
        DEC_TSTEP(2u * span, 0, 2) DEC_TSTEP(2u * span, 1, 3)
        DEC_TSTEP(span, 0, 1)
        for (uint o = span / 2u; o > 0u; o >>= 1u) d[0] += subgroupShuffleXor(d[0], o);
        float x = key < n ? dec_score(d[0], j0 + key) : NEG_INF;
        float mn = max(m, subgroupMax(x));
        float rescale = m == NEG_INF ? 0.0 : exp(m - mn);
        float e = x == NEG_INF ? 0.0 : exp(x - mn);
        l = l * rescale + (lane % span == 0u ? e : 0.0); // this lane's share (DEC_LANE_SUMS)
        [[unroll]] for (uint c = 0u; c < CPL; c++) acc[c] *= rescale;
        [[unroll]] for (uint t = 0u; t < DEC_KB; t++) {
            if (t >= n) break;
            float et = subgroupShuffle(e, t * span);
            [[unroll]] for (uint c = 0u; c < CPL; c++) acc[c] = fma(et, dec_vx(buf, t, c), acc[c]);
        }
        m = mn;
        return;
    }
    float mn = m;
    [[unroll]] for (uint t = 0u; t < DEC_KB; t++) {
        d[t] = t < n ? dec_score(subgroupAdd(d[t]), j0 + t) : NEG_INF;
        mn = max(mn, d[t]);
    }
    float rescale = m == NEG_INF ? 0.0 : exp(m - mn);
    l *= rescale;
    [[unroll]] for (uint c = 0u; c < CPL; c++) acc[c] *= rescale;
    // (A constant bound with a test inside keeps the indices constant, so kx / vx stay in registers.)
    [[unroll]] for (uint t = 0u; t < DEC_KB; t++) {
        if (t >= n) break;
        float e = d[t] == NEG_INF ? 0.0 : exp(d[t] - mn);
        l += e;
        [[unroll]] for (uint c = 0u; c < CPL; c++) acc[c] = fma(e, dec_vx(buf, t, c), acc[c]);
    }
    m = mn;
}

shared float dec_o[GQA_DEC_MAX_H]; // the workgroup's unnormalized output
const uint DEC_KEEP = 0xffffffffu; // gqa_dec_attend_qv: no output row, the result stays in dec_o[]
// Lanes that share a channel in the combine of the subgroups' partials (gqa_dec_attend_qv): 8 where
// runs are 8 keys (the host takes those only with subgroup shuffles and subgroups of 8 or more).
const uint DEC_G = DEC_KB == 8u ? 8u : 1u;

// The factor that normalizes the unnormalized output: 1 / the softmax sum, with the sink
// (headSink, or 0 for smoothSoftmax) as one more term of the sum.
float dec_out_factor(uint head, float mt, float lt) {
    float m2 = mt, sink = NEG_INF;
    if (HAS_SINK || SMOOTH) {
        sink = HAS_SINK ? dec_sink(head) : 0.0;
        m2 = max(mt, sink);
    }
    float f = mt == NEG_INF ? 0.0 : exp(mt - m2);
    float l2 = lt * f + (HAS_SINK || SMOOTH ? exp(sink - m2) : 0.0);
    return f / l2;
}

#ifdef DEC_PAIR_LOADS
// The packed pairs of the run of keys j0 .. j0 + DEC_KB - 1 into register set buf (keys past the end
// read the last one and are dropped).
void dec_load_pairs(uint buf, uint j0, uint end) {
    uint lane = gl_SubgroupInvocationID, sgs = gl_SubgroupSize;
    [[unroll]] for (uint t = 0u; t < DEC_KB; t++)
        [[unroll]] for (uint c = 0u; c < DEC_CPL2; c++) {
            uint p = lane + sgs * c, j = min(j0 + t, end - 1u);
            uint k = 2u * p < DEC_H ? dec_key_pair(j, p) : 0u, v = 2u * p < DEC_H ? dec_value_pair(j, p) : 0u;
            if (buf == 1u) {
                kp1[t * DEC_CPL2 + c] = k;
                vp1[t * DEC_CPL2 + c] = v;
            } else {
                kp2[t * DEC_CPL2 + c] = k;
                vp2[t * DEC_CPL2 + c] = v;
            }
        }
}
#endif

// V = channel H of the row X[CPL] held across the subgroup, by CPL shuffles (every lane of the
// subgroup takes part; H may differ between lanes): in dec_channel order when PAIRED, else channel h
// in lane h % SG, register h / SG.
#define DEC_CHANNEL_IN(X, H, V, PAIRED)                                                            \
    {                                                                                              \
        uint sgs_ = gl_SubgroupSize, h_ = (H);                                                     \
        uint src_ = (PAIRED) ? (h_ / 2u) % sgs_ : h_ % sgs_;                                       \
        uint reg_ = (PAIRED) ? 2u * ((h_ / 2u) / sgs_) + (h_ & 1u) : h_ / sgs_;                    \
        V = 0.0;                                                                                   \
        [[unroll]] for (uint c2_ = 0u; c2_ < CPL; c2_++) {                                         \
            float sh_ = subgroupShuffle(X[c2_], src_);                                             \
            if (c2_ == reg_) V = sh_;                                                              \
        }                                                                                          \
    }
#define DEC_CHANNEL_OF(X, H, V) DEC_CHANNEL_IN(X, H, V, DEC_PAIRS) // (dec_channel order)

#ifdef DEC_PAIR_LOADS
// The wide run of keys j0 .. j0 + SG / (H / 8) * DEC_WIDE_NK - 1 into wk / wv: key kg + KG * i of the
// run in register i of key group kg (keys past the end read the last one and are dropped).
void dec_wide_load(uint j0, uint end, uint nk) {
    uint lane = gl_SubgroupInvocationID, lk = DEC_H / 8u, kg = lane / lk, kgs = gl_SubgroupSize / lk;
    [[unroll]] for (uint i = 0u; i < DEC_WNK; i++) {
        if (i >= nk) break;
        uint j = min(j0 + kg + kgs * i, end - 1u);
        wk[i] = dec_key_vec4(j, lane % lk);
        wv[i] = dec_value_vec4(j, lane % lk);
    }
}

// One wide run of n keys (its first j0) into the online softmax (m, l: this lane's share of the
// sum, wacc: its key group's value sums of its 8 channels).
void dec_wide_run(uint n, uint j0, inout float m, inout float l, uint nk) {
    uint lane = gl_SubgroupInvocationID, lk = DEC_H / 8u, kg = lane / lk, kgs = gl_SubgroupSize / lk;
    float d[8];
    [[unroll]] for (uint i = 0u; i < DEC_WNK; i++) {
        if (i >= nk) break;
        float x = 0.0;
        [[unroll]] for (uint p = 0u; p < 4u; p++) {
            vec2 kk = unpackHalf2x16(wk[i][p]);
            x = fma(wq[2u * p], kk.x, x);
            x = fma(wq[2u * p + 1u], kk.y, x);
        }
        d[i] = x;
    }
    // The transposing reduction within the key group (offsets below lk): the first log2(NK) steps
    // halve the entries a lane keeps, the rest is a butterfly; lane keeps key i = (lane % lk) / per.
    if (nk == 8u) {
        DEC_TSTEP(lk / 2u, 0, 4) DEC_TSTEP(lk / 2u, 1, 5) DEC_TSTEP(lk / 2u, 2, 6) DEC_TSTEP(lk / 2u, 3, 7)
        DEC_TSTEP(lk / 4u, 0, 2) DEC_TSTEP(lk / 4u, 1, 3)
        DEC_TSTEP(lk / 8u, 0, 1)
    } else if (nk == 4u) {
        DEC_TSTEP(lk / 2u, 0, 2) DEC_TSTEP(lk / 2u, 1, 3)
        DEC_TSTEP(lk / 4u, 0, 1)
    } else if (nk == 2u) {
        DEC_TSTEP(lk / 2u, 0, 1)
    }
    uint per = lk / nk; // lanes that end with the same key
    for (uint o = per / 2u; o > 0u; o >>= 1u) d[0] += subgroupShuffleXor(d[0], o);
    uint t = kg + kgs * ((lane % lk) / per);
    float x = t < n ? dec_score(d[0], j0 + t) : NEG_INF;
    float mn = max(m, subgroupMax(x));
    float rescale = m == NEG_INF ? 0.0 : exp(m - mn);
    float e = x == NEG_INF ? 0.0 : exp(x - mn);
    l = l * rescale + (lane % per == 0u ? e : 0.0);
    [[unroll]] for (uint c = 0u; c < 8u; c++) wacc[c] *= rescale;
    [[unroll]] for (uint i = 0u; i < DEC_WNK; i++) {
        if (i >= nk) break;
        float p = subgroupShuffle(e, kg * lk + i * per); // 0 for a key past n (its row is a real one)
        [[unroll]] for (uint q2 = 0u; q2 < 4u; q2++) {
            vec2 vv = unpackHalf2x16(wv[i][q2]);
            wacc[2u * q2] = fma(p, vv.x, wacc[2u * q2]);
            wacc[2u * q2 + 1u] = fma(p, vv.y, wacc[2u * q2 + 1u]);
        }
    }
    m = mn;
}

// The wide key loop of gqa_dec_attend_qv over lo .. end - 1 and, when new_row, the row p_new.
void dec_wide_attend(uint lo, uint end, bool new_row, uint p_new, inout float m, inout float l) {
    uint lane = gl_SubgroupInvocationID, sg = gl_SubgroupID, ns = gl_NumSubgroups, sgs = gl_SubgroupSize;
    uint lk = DEC_H / 8u, kg = lane / lk, cb = lane % lk, run = sgs / lk * DEC_WNK, half_nk = DEC_WNK / 2u;
    [[unroll]] for (uint c = 0u; c < 8u; c++) {
        DEC_CHANNEL_OF(qv, cb * 8u + c, wq[c])
        wacc[c] = 0.0;
    }
    // Runs of half as many keys per lane where those cover the keys in one round too: more subgroups
    // at work (H200, Qwen2-0.5B decode, 20 subgroups: 4 keys per lane 1528 / 1474 tok/s after 128 /
    // 512 tokens, 8 keys 1509 / 1488).
    if (half_nk > 0u && end - lo <= ns * (run / 2u)) {
        run /= 2u;
        for (uint j0 = lo + sg * run; j0 < end; j0 += ns * run) {
            dec_wide_load(j0, end, half_nk);
            dec_wide_run(min(run, end - j0), j0, m, l, half_nk);
        }
    } else {
        for (uint j0 = lo + sg * run; j0 < end; j0 += ns * run) {
            dec_wide_load(j0, end, DEC_WNK);
            dec_wide_run(min(run, end - j0), j0, m, l, DEC_WNK);
        }
    }
    if (new_row && sg == ns - 1u) { // the new row, scored over the subgroup in dec_channel order
        float kn[CPL], vn[CPL], x = 0.0;
        [[unroll]] for (uint c = 0u; c < CPL; c++) {
            uint h = dec_channel(c);
            float k = dec_new_key(c, h), v = dec_new_value(c, h); // (outside the test: subgroup operations may read them)
            kn[c] = h < DEC_H ? k : 0.0;
            vn[c] = h < DEC_H ? v : 0.0;
            x = fma(qv[c], kn[c], x);
        }
        x = dec_score(subgroupAdd(x), p_new);
        float mn = max(m, x);
        float rescale = m == NEG_INF ? 0.0 : exp(m - mn), e = exp(x - mn);
        l = l * rescale + (lane == 0u ? e : 0.0);
        [[unroll]] for (uint c = 0u; c < 8u; c++) {
            float vc;
            DEC_CHANNEL_OF(vn, cb * 8u + c, vc)
            wacc[c] = fma(kg == 0u ? e : 0.0, vc, wacc[c] * rescale);
        }
        m = mn;
    }
    // the key groups' value sums into the first group's lanes
    for (uint o = lk; o < sgs; o <<= 1u)
        [[unroll]] for (uint c = 0u; c < 8u; c++) wacc[c] += subgroupShuffleXor(wacc[c], o);
}
#endif

// Attention of the query row in qv[] (this lane's channels dec_channel(c), 0 past H; the same in
// every subgroup) of `head` over the keys lo .. end - 1 read from memory and, when new_row, key
// p_new from dec_new_key / dec_new_value (taken by the last subgroup).  Leaves the workgroup's
// softmax max in mt, its sum in lt (relative to mt) and the unnormalized output channels in
// dec_o[] (no sink yet) when orow is DEC_KEEP, else writes the normalized output of `head` to
// io[orow ..] (dec_out_factor) and leaves dec_o[] undefined.
void gqa_dec_attend_qv(uint lo, uint end, bool new_row, uint p_new, out float mt, out float lt, uint head, uint orow) {
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    uint lane = gl_SubgroupInvocationID, sg = gl_SubgroupID, ns = gl_NumSubgroups, sgs = gl_SubgroupSize;
    [[unroll]] for (uint c = 0u; c < CPL; c++) acc[c] = 0.0;
    float m = NEG_INF, l = 0.0;
    [[unroll]] for (uint t = 0u; t < DEC_KB; t++) // defined, though dec_run never reads past a run's length
        [[unroll]] for (uint c = 0u; c < CPL; c++) kx[t * CPL + c] = vx[t * CPL + c] = 0.0;
    uint step = ns * DEC_KB, j0 = lo + sg * DEC_KB;
#ifdef DEC_PAIR_LOADS
    if (DEC_WIDE) {
        dec_wide_attend(lo, end, new_row, p_new, m, l);
        new_row = false; // (taken by the wide loop)
    } else if (DEC_PAIRS) { // runs alternate between the two sets of pairs, the next one loaded first
        if (j0 < end) dec_load_pairs(1u, j0, end);
        while (j0 < end) {
            uint j1 = j0 + step;
            if (j1 < end) dec_load_pairs(2u, j1, end);
            dec_run(1u, min(DEC_KB, end - j0), j0, m, l);
            if (j1 >= end) break;
            j0 = j1 + step;
            if (j0 < end) dec_load_pairs(1u, j0, end);
            dec_run(2u, min(DEC_KB, end - j1), j1, m, l);
        }
    } else
#endif
    for (; j0 < end; j0 += step) {
        // Every load of the run first (keys past the end read the last one and are dropped):
        // nothing uses a loaded value before all are issued, so they are in flight together.
        [[unroll]] for (uint t = 0u; t < DEC_KB; t++)
            [[unroll]] for (uint c = 0u; c < CPL; c++) {
                uint h = lane + sgs * c, j = min(j0 + t, end - 1u);
                kx[t * CPL + c] = h < DEC_H ? dec_key(j, h) : 0.0;
                vx[t * CPL + c] = h < DEC_H ? dec_value(j, h) : 0.0;
            }
        dec_run(0u, min(DEC_KB, end - j0), j0, m, l);
    }
    if (new_row && sg == ns - 1u) { // the last subgroup has the fewest memory runs
        [[unroll]] for (uint c = 0u; c < CPL; c++) {
            uint h = dec_channel(c);
            float k = dec_new_key(c, h), v = dec_new_value(c, h); // (outside the test: subgroup operations may read them)
            kx[c] = h < DEC_H ? k : 0.0;
            vx[c] = h < DEC_H ? v : 0.0;
        }
        dec_run(0u, 1u, p_new, m, l);
    }
#ifdef DEC_AFTER_KEYS
    DEC_AFTER_KEYS(); // the includer's loads for after the attention, issued before the combine
#endif
    if (DEC_LANE_SUMS || DEC_WIDE) l = subgroupAdd(l);
    if (lane == 0u) {
        part_m[sg] = m;
        part_l[sg] = l;
    }
#ifdef DEC_PAIR_LOADS
    if (DEC_WIDE) {
        if (lane < DEC_H / 8u)
            [[unroll]] for (uint c = 0u; c < 8u; c++) part_acc[sg * DEC_H + lane * 8u + c] = wacc[c];
    } else
#endif
    for (uint c = 0u; c < CPL; c++) {
        uint h = dec_channel(c);
        if (h < DEC_H) part_acc[sg * DEC_H + h] = acc[c];
    }
    barrier();
    // The combine: the maximum and the sum over the partials by each subgroup's lanes; channel h
    // summed by DEC_G adjacent lanes, each over every DEC_G-th partial, then by shuffles.
    float mi = NEG_INF, li = 0.0;
    for (uint i = lane; i < ns; i += sgs) mi = max(mi, part_m[i]);
    mt = subgroupMax(mi);
    for (uint i = lane; i < ns; i += sgs) li += part_m[i] == NEG_INF ? 0.0 : part_l[i] * exp(part_m[i] - mt);
    lt = subgroupAdd(li);
    bool keep = orow == DEC_KEEP;
    float f = keep ? 1.0 : dec_out_factor(head, mt, lt);
    for (uint e0 = 0u; e0 < DEC_H * DEC_G; e0 += nt) { // (a bound the same for the whole workgroup)
        uint e = e0 + tid, h = e / DEC_G, g = e % DEC_G;
        float o = 0.0;
        if (h < DEC_H)
            for (uint i = g; i < ns; i += DEC_G)
                if (part_m[i] != NEG_INF) o = fma(part_acc[i * DEC_H + h], exp(part_m[i] - mt), o);
        for (uint x = DEC_G / 2u; x > 0u; x >>= 1u) o += subgroupShuffleXor(o, x);
        if (h < DEC_H && g == 0u) {
            if (keep) dec_o[h] = o;
            else io[orow + h] = A_T(o * f);
        }
    }
    if (keep) barrier();
}

// gqa_dec_attend_qv with the query row from shared q[], which must be complete (a barrier after it
// was written).
void gqa_dec_attend(uint lo, uint end, bool new_row, uint p_new, out float mt, out float lt, uint head, uint orow) {
    for (uint c = 0u; c < CPL; c++) {
        uint h = dec_channel(c);
        qv[c] = h < DEC_H ? q[h] : 0.0;
    }
    gqa_dec_attend_qv(lo, end, new_row, p_new, mt, lt, head, orow);
}

// io[orow ..] = dec_o[] normalized (dec_out_factor).
void gqa_dec_finish(uint head, float mt, float lt, uint orow) {
    float f = dec_out_factor(head, mt, lt);
    for (uint h = gl_LocalInvocationID.x; h < DEC_H; h += gl_WorkGroupSize.x) io[orow + h] = A_T(dec_o[h] * f);
}
