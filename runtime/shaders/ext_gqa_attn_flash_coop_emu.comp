#version 450
// ext_gqa_attn_flash_coop_emu.comp - the same kernel with the cooperative-matrix and subgroup
// operations emulated in plain GLSL (flash_coop_ops.glsl): tests on any device (WEBNNC_FLASH_COOP=emulate).
#define FLASH_COOP_EMULATE 1
#include "gqa_flash_coop.glsl"
