// gqa_dec_sizes.glsl - the shared-array limits of the decode attention kernels (gqa_dec.glsl and
// the shaders that include it), which runtime/k_gqa.c keeps to: the head size (GQA_DEC_MAX_H) and
// the subgroups of a workgroup times the head size (GQA_DEC_PARTIALS: one partial output each).
#ifndef GQA_DEC_SIZES_GLSL
#define GQA_DEC_SIZES_GLSL
const uint DEC_MAX_H = 256u, DEC_PARTIALS = 4096u;
#endif
