#version 450
// ext_gqa_attn_flash_coop.comp - groupQueryAttention prefill on NV cooperative matrices (gqa_flash_coop.glsl).
#define FLASH_COOP_EMULATE 0
#include "gqa_flash_coop.glsl"
