#version 450
// ext_matmul_nbits_coop.comp - matmulNBits prefill GEMM on NV cooperative matrices (nbits_gemm.glsl).
#define TILE_COOP 1
#define GEMM_GATED 0
#include "nbits_gemm.glsl"
