#version 450
// ext_norm_proj_tiled.comp - qkvProjection / gatedMlp prefill, portable path (norm_proj_tile.glsl).
#define TILE_COOP 0
#include "norm_proj_tile.glsl"
