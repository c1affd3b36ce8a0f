#version 450
// ext_gqa_dec_oproj.comp - groupQueryAttention decode in one dispatch with the output projection after
// it folded in (gqa_dec_fused.glsl OPROJ_FOLD, runtime/plan_oproj.c).
#define OPROJ_FOLD 1
#include "gqa_dec_fused.glsl"
