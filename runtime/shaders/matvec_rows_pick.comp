#version 450
// matvec_rows_pick.comp - the row-major mat-vec kernel with exact f32 dequantization and the device
// token loop's greedy pick in its epilogue (matvec_rows.glsl, PICK): the vocabulary head of a decode
// step also picks the next token, so that the loop needs no pick dispatch of its own (runtime/loop.c).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : enable
#extension GL_EXT_shader_atomic_int64 : enable
#define HALF_DOT 0
#define PICK 1
#include "matvec_rows.glsl"
