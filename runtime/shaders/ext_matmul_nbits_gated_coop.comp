#version 450
// ext_matmul_nbits_gated_coop.comp - gatedMlp's prefill GEMM with its epilogue, act(gate) * up, on NV
// cooperative matrices (nbits_gemm.glsl's gated mode).
#define TILE_COOP 1
#define GEMM_GATED 1
#include "nbits_gemm.glsl"
