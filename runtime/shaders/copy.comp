#version 450
// copy.comp - strided copy out[o1] = in[o0] over an iteration shape (strided.glsl): transpose,
// expand, slice (with steps), reverse, tile, concat and split pieces.  Variants by element size
// only (A_BITS); bits are copied unchanged.
// Contiguous fast path (spec constant VEC > 0, chosen by k_strided.c when both sides are dense
// and 16-byte aligned): pc.n 16-byte vectors from uvec4 index base0 to base1, VEC per invocation
// (all loads issued before the stores), consecutive invocations on consecutive vectors.
#include "common.glsl"
#include "strided.glsl"

layout(constant_id = 1) const uint VEC = 0u; // 0: strided element copy; > 0: uvec4 per invocation

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
layout(std430, binding = 0) readonly buffer In4 { uvec4 x4[]; };
layout(std430, binding = 1) writeonly buffer Out4 { uvec4 y4[]; };

void main() {
    if (VEC > 0u) {
        uint wgs = gl_WorkGroupSize.x;
        uint i0 = flat_group() * wgs * VEC + gl_LocalInvocationID.x;
        uvec4 v[16];
        for (uint j = 0u; j < VEC && j < 16u; j++)
            if (i0 + j * wgs < pc.n) v[j] = x4[uint(pc.base0) + i0 + j * wgs];
        for (uint j = 0u; j < VEC && j < 16u; j++)
            if (i0 + j * wgs < pc.n) y4[uint(pc.base1) + i0 + j * wgs] = v[j];
        return;
    }
    uint i = flat_id();
    if (i >= pc.n) return;
    int o0, o1, o2;
    strided_offsets(i, o0, o1, o2);
    y_out[o1] = x_in[o0];
}
