#version 450
// index_elements.comp - gatherElements (spec constant 1 = 0) and scatterElements (1): one thread
// per element of `indices` (shape pc.shape, rank pc.rank).  Gather: out[i] = in[coords with the
// axis coordinate replaced by the index]; scatter: out[that offset] = updates[i] (the output was
// first filled with a copy of the input).  xst = element strides of the data tensor.
#include "common.glsl"

layout(constant_id = 1) const uint SCATTER = 0;
PARAMS_BLOCK PC {
    uint n, rank, axis, axis_dim;
    uint shape[8]; // WN_MAX_RANK
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
    int k = clamp_index(idx[pc.base_idx + int(i)], pc.axis_dim);
    int off = 0;
    uint r = i;
    for (int d = int(pc.rank) - 1; d >= 0; d--) {
        uint q = r / pc.shape[d];
        int c = int(r - q * pc.shape[d]);
        r = q;
        off += (uint(d) == pc.axis ? k : c) * pc.xst[d];
    }
    if (SCATTER != 0u) dst[pc.base_dst + off] = src[pc.base_src + int(i)];
    else dst[pc.base_dst + int(i)] = src[pc.base_src + off];
}
