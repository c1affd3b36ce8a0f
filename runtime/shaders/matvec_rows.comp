#version 450
// matvec_rows.comp - the row-major mat-vec kernel with exact f32 dequantization (matvec_rows.glsl).
#define HALF_DOT 0
#include "matvec_rows.glsl"
