#version 450
// io_copy.comp - 32-bit word copy of a graph input from its host staging to its device storage
// (or of an output back), used by replayed recordings (runtime/replay.c): the word count is a
// parameter, so one recording moves whatever size each run has.
#include "common.glsl"

layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };
PARAMS_BLOCK PC { uint n; } pc;

void main() {
    uint i = flat_id();
    if (i < pc.n) dst[i] = src[i];
}
