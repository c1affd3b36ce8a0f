#version 450
// ext_norm_proj_coop.comp - qkvProjection / gatedMlp prefill on NV cooperative matrices (norm_proj_tile.glsl).
#define TILE_COOP 1
#include "norm_proj_tile.glsl"
