#version 450
// ext_matmul_nbits_gated_tiled.comp - gatedMlp's prefill GEMM with its epilogue, act(gate) * up,
// portable path (nbits_gemm.glsl's gated mode).
#define TILE_COOP 0
#define GEMM_GATED 1
#include "nbits_gemm.glsl"
