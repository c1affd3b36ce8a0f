/* gqa_dec_sizes.h - the shared arrays of the decode attention kernels (gqa_dec.glsl and the shaders
 * that include it: ext_gqa_attn_dec.comp, gqa_dec_fused.glsl), sized once here for the shaders'
 * declarations and for runtime/k_gqa.c (C and GLSL, like bindings.h), which keeps to the limits and
 * adds the arrays up (GQA_DEC_SHARED_FLOATS) to know how much of the device's shared memory is left
 * for o_proj's parked operands (OPROJ_PARK_*). */
#ifndef WEBNNC_GQA_DEC_SIZES_H
#define WEBNNC_GQA_DEC_SIZES_H

#define GQA_DEC_MAX_H 256u      /* the head size: q, dec_o (gqa_dec.glsl), k_new, v_new (gqa_dec_fused.glsl) */
#define GQA_DEC_PARTIALS 4096u  /* subgroups of a workgroup x head size: one partial output each (part_acc) */
#define GQA_DEC_PART_SLOTS 32u  /* the subgroups' partial maxima and sums (part_m, part_l) */
#define GQA_DEC_RED_SLOTS 32u   /* gqa_dec_fused.glsl's workgroup reductions (ext_common.glsl ext_red) */
/* All of them, as floats: the upper bound of both kernels' arrays but for the parked operands (and a
 * few scalars, which k_gqa.c allows for on top). */
#define GQA_DEC_SHARED_FLOATS \
    (4u * GQA_DEC_MAX_H + 2u * GQA_DEC_PART_SLOTS + GQA_DEC_PARTIALS + GQA_DEC_RED_SLOTS)

#endif
