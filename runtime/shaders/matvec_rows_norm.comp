#version 450
// matvec_rows_norm.comp - the row-major mat-vec kernel with the normalized-projection prologue and
// the qkv-split / gated epilogue (matvec_rows.glsl, NORM_PROJ): qkvProjection and gatedMlp at decode.
#define HALF_DOT 0
#define NORM_PROJ 1
#include "matvec_rows.glsl"
