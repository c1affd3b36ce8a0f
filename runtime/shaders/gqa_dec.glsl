// gqa_dec.glsl - the key loop and the combine of the decode attention kernels
// (ext_gqa_attn_dec.comp, ext_gqa_dec_fused.comp): one workgroup per (batch, token, query head)
// with its query row in shared q[].  Subgroup g takes keys lo + g, lo + g + NS, ...; per key its
// lanes read the key row together (channel h = lane + SG * c, coalesced), subgroupAdd gives the
// score, and an online softmax keeps the subgroup's max, sum and CPL output channels per lane in
// registers.  The NS partial results are then combined through shared memory (the sink enters
// there once) and written to io[orow ..].  f32 throughout.
// The including shader declares, before the include: the constants CPL, HAS_BIAS, HAS_SINK,
// SMOOTH, the parameter block pc (fields H, scale, softcap), the output buffer io[], and the
// functions dec_key(j, h) / dec_value(j, h) (channel h of key / value row j), dec_bias(j) and
// dec_sink(head).
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable

#define NEG_INF uintBitsToFloat(0xff800000u)
shared float q[16 * 32];       // the query row (H <= SG * CPL <= 512)
shared float part_m[32], part_l[32];
shared float part_acc[32 * 128]; // [subgroup][channel]: H <= 128 when NS is 32 (the host checks)

// Attention of the query row q[] of `head` over keys lo..p into io[orow ..]; q[] must be complete
// (a barrier after it was written).
void gqa_dec_attend(uint head, uint lo, uint p, uint orow) {
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    uint lane = gl_SubgroupInvocationID, sg = gl_SubgroupID, ns = gl_NumSubgroups, sgs = gl_SubgroupSize;
    float qv[16], acc[16];
    for (uint c = 0u; c < CPL; c++) {
        uint h = lane + sgs * c;
        qv[c] = h < pc.H ? q[h] : 0.0;
        acc[c] = 0.0;
    }
    float m = NEG_INF, l = 0.0;
    for (uint j = lo + sg; j <= p; j += ns) {
        float d = 0.0;
        for (uint c = 0u; c < CPL; c++) {
            uint h = lane + sgs * c;
            if (h < pc.H) d = fma(qv[c], dec_key(j, h), d);
        }
        d = subgroupAdd(d) * pc.scale;
        if (pc.softcap > 0.0) d = pc.softcap * tanh(d / pc.softcap);
        if (HAS_BIAS) d += dec_bias(j);
        float mn = max(m, d);
        float rescale = m == NEG_INF ? 0.0 : exp(m - mn), e = d == NEG_INF ? 0.0 : exp(d - mn);
        l = l * rescale + e;
        m = mn;
        for (uint c = 0u; c < CPL; c++) {
            uint h = lane + sgs * c;
            float v = h < pc.H ? dec_value(j, h) : 0.0;
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
    if (HAS_SINK || SMOOTH) mt = HAS_SINK ? dec_sink(head) : 0.0;
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
