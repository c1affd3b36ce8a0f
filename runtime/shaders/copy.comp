#version 450
// copy.comp - strided copy out[o1] = in[o0] over an iteration shape (strided.glsl): transpose,
// expand, slice (with steps), reverse, tile, concat and split pieces.  Variants by element size
// only (A_BITS); bits are copied unchanged.
#include "common.glsl"
#include "strided.glsl"

#if A_BITS == 8
#define E_T uint8_t
#elif A_BITS == 16
#define E_T uint16_t
#elif A_BITS == 64
#define E_T uint64_t
#else
#define E_T uint
#endif
layout(std430, binding = 0) readonly buffer In { E_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Out { E_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    int o0, o1, o2;
    strided_offsets(i, o0, o1, o2);
    y_out[o1] = x_in[o0];
}
