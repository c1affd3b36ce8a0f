#version 450
// index_nd.comp - gatherND (spec constant 1 = 0) and scatterND (1): index tuples of length pc.k
// address slices of pc.inner elements of the data tensor (dims pc.dims, strides pc.xst).  One
// thread per element of the gathered output / of updates: tuple j = i / inner, element e = i % inner.
#include "common.glsl"

layout(constant_id = 1) const uint SCATTER = 0;
PARAMS_BLOCK PC {
    uint n, k, inner, pad0;
    uint dims[8];
    int xst[8];
    int base_src, base_idx, base_dst;
} pc;
#include "index_common.glsl"
layout(std430, binding = 0) readonly buffer Src { E_T src[]; };
layout(std430, binding = 1) readonly buffer Idx { B_T idx[]; };
layout(std430, binding = 2) writeonly buffer Dst { E_T dst[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    uint j = i / pc.inner, e = i - j * pc.inner;
    int off = int(e);
    for (uint q = 0u; q < pc.k; q++) off += clamp_index(idx[pc.base_idx + int(j * pc.k + q)], pc.dims[q]) * pc.xst[q];
    if (SCATTER != 0u) dst[pc.base_dst + off] = src[pc.base_src + int(i)];
    else dst[pc.base_dst + int(i)] = src[pc.base_src + off];
}
