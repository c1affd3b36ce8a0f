#version 450
// matvec_rows_half.comp - the row-major mat-vec kernel with float16-pair dequantization of 4-bit
// weights for float16 activations (matvec_rows.glsl, HALF_DOT); needs float16 arithmetic.
#define HALF_DOT 1
#include "matvec_rows.glsl"
