// gqa_dec.glsl - the key loop and the combine of the decode attention kernels
// (ext_gqa_attn_dec.comp, ext_gqa_dec_fused.comp): a workgroup attends with its query row in
// shared q[] over a range of keys.  Subgroup g takes the runs of DEC_KB keys starting at
// lo + DEC_KB * g, lo + DEC_KB * (g + NS), ...; per key its lanes read the key row together
// (channel h = lane + SG * c, coalesced) and subgroupAdd gives the score; the key and value rows
// of a run are all loaded before any is used (the loop is bound by memory latency: a load used at
// once stalls its subgroup) and enter an online softmax that keeps the subgroup's max, sum and CPL
// output channels per lane in registers.  The NS partial results are combined through shared
// memory (gqa_dec_attend), then normalized with the sink into io[] (gqa_dec_finish) or, split over
// workgroups, combined once more by the caller.  f32 throughout.
// The including shader declares, before the include: the constants CPL, HAS_BIAS, HAS_SINK,
// SMOOTH, the parameter block pc (fields H, scale, softcap), the output buffer io[], and the
// functions dec_key(j, h) / dec_value(j, h) (channel h of key / value row j in memory),
// dec_new_key(h) / dec_new_value(h) (a row not in memory), dec_bias(j) and dec_sink(head).
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable

#define NEG_INF uintBitsToFloat(0xff800000u)
#define DEC_KB 4u // keys per run of a subgroup
shared float q[16 * 32];       // the query row (H <= SG * CPL <= 512)
shared float part_m[32], part_l[32];
shared float part_acc[32 * 128]; // [subgroup][channel]: H <= 128 when NS is 32 (the host checks)

// The subgroup's state, per invocation: its run's key / value channels (the lane's c-th of key t at
// [t * CPL + c]), its query channels and its output channels.  Sized by CPL and indexed only by
// unrolled loop counters so that they stay in registers (sized 16 channels per key and passed by
// value, the H100 compiler kept them in local memory: 784 bytes per invocation, and 23 us per layer
// at 128 keys).
float kx[DEC_KB * CPL], vx[DEC_KB * CPL], qv[CPL], acc[CPL];

// One run of n (1..DEC_KB) keys, held in kx / vx for t < n, into the online softmax (m, l, acc):
// entries past n are never used (their scores are replaced by -inf and the value loop stops at n:
// the new-row run of a subgroup that had no memory run leaves them as they were, and 0 * NaN is
// NaN); j0 is the first key's index (for the bias).
void dec_run(uint n, uint j0, inout float m, inout float l) {
    float d[DEC_KB]; // the scores (NEG_INF past n)
    float mn = m;
    for (uint t = 0u; t < DEC_KB; t++) {
        float x = 0.0;
        for (uint c = 0u; c < CPL; c++) x = fma(qv[c], kx[t * CPL + c], x);
        x = subgroupAdd(x) * pc.scale;
        if (pc.softcap > 0.0) x = pc.softcap * tanh(x / pc.softcap);
        if (HAS_BIAS && t < n) x += dec_bias(j0 + t);
        d[t] = t < n ? x : NEG_INF;
        mn = max(mn, d[t]);
    }
    float rescale = m == NEG_INF ? 0.0 : exp(m - mn);
    l *= rescale;
    for (uint c = 0u; c < CPL; c++) acc[c] *= rescale;
    // (A constant bound with a test inside keeps the indices constant, so kx / vx stay in registers.)
    for (uint t = 0u; t < DEC_KB; t++) {
        if (t >= n) break;
        float e = d[t] == NEG_INF ? 0.0 : exp(d[t] - mn);
        l += e;
        for (uint c = 0u; c < CPL; c++) acc[c] = fma(e, vx[t * CPL + c], acc[c]);
    }
    m = mn;
}

shared float dec_o[128]; // the workgroup's unnormalized output (H <= 128)

// Attention of the query row q[] of `head` over the keys lo .. end - 1 read from memory and, when
// new_row, key p_new from dec_new_key(h) / dec_new_value(h) (taken by the last subgroup); q[] must
// be complete (a barrier after it was written).  Leaves the workgroup's softmax max in mt, its sum
// in lt (relative to mt) and the unnormalized output channels in dec_o[] (no sink yet).
void gqa_dec_attend(uint lo, uint end, bool new_row, uint p_new, out float mt, out float lt) {
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    uint lane = gl_SubgroupInvocationID, sg = gl_SubgroupID, ns = gl_NumSubgroups, sgs = gl_SubgroupSize;
    for (uint c = 0u; c < CPL; c++) {
        uint h = lane + sgs * c;
        qv[c] = h < pc.H ? q[h] : 0.0;
        acc[c] = 0.0;
    }
    float m = NEG_INF, l = 0.0;
    for (uint t = 0u; t < DEC_KB; t++) // defined, though dec_run never reads past a run's length
        for (uint c = 0u; c < CPL; c++) kx[t * CPL + c] = vx[t * CPL + c] = 0.0;
    for (uint j0 = lo + sg * DEC_KB; j0 < end; j0 += ns * DEC_KB) {
        // Every load of the run first (keys past the end read the last one and are dropped):
        // nothing uses a loaded value before all are issued, so they are in flight together.
        for (uint t = 0u; t < DEC_KB; t++)
            for (uint c = 0u; c < CPL; c++) {
                uint h = lane + sgs * c, j = min(j0 + t, end - 1u);
                kx[t * CPL + c] = h < pc.H ? dec_key(j, h) : 0.0;
                vx[t * CPL + c] = h < pc.H ? dec_value(j, h) : 0.0;
            }
        dec_run(min(DEC_KB, end - j0), j0, m, l);
    }
    if (new_row && sg == ns - 1u) { // the last subgroup has the fewest memory runs
        for (uint c = 0u; c < CPL; c++) {
            uint h = lane + sgs * c;
            kx[c] = h < pc.H ? dec_new_key(h) : 0.0;
            vx[c] = h < pc.H ? dec_new_value(h) : 0.0;
        }
        dec_run(1u, p_new, m, l);
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
    mt = NEG_INF;
    for (uint i = 0u; i < ns; i++) mt = max(mt, part_m[i]);
    lt = 0.0;
    for (uint i = 0u; i < ns; i++) lt += part_m[i] == NEG_INF ? 0.0 : part_l[i] * exp(part_m[i] - mt);
    for (uint h = tid; h < pc.H; h += nt) {
        float o = 0.0;
        for (uint i = 0u; i < ns; i++)
            if (part_m[i] != NEG_INF) o = fma(part_acc[i * pc.H + h], exp(part_m[i] - mt), o);
        dec_o[h] = o;
    }
    barrier();
}

// io[orow ..] = dec_o[] / the softmax sum, with the sink (headSink, or 0 for smoothSoftmax) as one
// more term of the sum.
void gqa_dec_finish(uint head, float mt, float lt, uint orow) {
    float m2 = mt, sink = NEG_INF;
    if (HAS_SINK || SMOOTH) {
        sink = HAS_SINK ? dec_sink(head) : 0.0;
        m2 = max(mt, sink);
    }
    float f = mt == NEG_INF ? 0.0 : exp(mt - m2);
    float l2 = lt * f + (HAS_SINK || SMOOTH ? exp(sink - m2) : 0.0);
    for (uint h = gl_LocalInvocationID.x; h < pc.H; h += gl_WorkGroupSize.x) io[orow + h] = A_T(dec_o[h] * f / l2);
}
