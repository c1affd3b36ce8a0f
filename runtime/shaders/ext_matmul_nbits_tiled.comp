#version 450
// ext_matmul_nbits_tiled.comp - matmulNBits prefill GEMM, portable path (nbits_gemm.glsl).
#define TILE_COOP 0
#define GEMM_GATED 0
#include "nbits_gemm.glsl"
