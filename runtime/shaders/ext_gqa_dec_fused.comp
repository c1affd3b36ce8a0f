#version 450
// ext_gqa_dec_fused.comp - groupQueryAttention decode in one dispatch (gqa_dec_fused.glsl).
#define OPROJ_FOLD 0
#include "gqa_dec_fused.glsl"
