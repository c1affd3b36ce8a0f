#version 450
// ext_fused_matvec.comp - qkvProjection / gatedMlp with float weights W [K, N] (bits 0) for few
// activation rows (decode), fully fused (ext_fused.glsl): each workgroup computes the RMS of its MT
// activation rows, stages the normalized rows h = v * inv_rms * normScale in shared memory
// (CHUNK k at a time), and runs the column mat-vec y[c] = sum_k h[k] W[k, col0 + c] over 64
// output columns: 16 column invocations x 4 adjacent columns each (one 4-wide load per k: W's
// rows are contiguous along n, so a half-subgroup reads 16 x 4 consecutive columns), the
// workgroup's other invocations take the other k (WG / 16 interleaved k slices).  gatedMlp also
// accumulates the up columns and writes act(gate) * up.  f32 accumulation; the k slices are summed
// through shared memory at the end.  Grid: x/y fold the 64-column groups, z groups of MT rows.
#include "common.glsl"
#include "ext_common.glsl"
#include "ext_fused.glsl"

layout(constant_id = 2) const uint MT = 1u;          // activation rows per workgroup (<= 4)
layout(constant_id = 3) const bool VEC = false;      // 4-column vector loads (all W offsets % 4 == 0)
layout(constant_id = 4) const bool SG_REDUCE = true; // subgroupAdd available

#if A_BITS == 16
layout(std430, binding = 4) readonly buffer Wv { uvec2 wv[]; };
#else
layout(std430, binding = 4) readonly buffer Wv { uvec4 wv[]; };
#endif

const uint CT = 16u, CV = 4u, CHUNK = 512u, SLOTS = 256u; // SLOTS >= the workgroup size
shared float hs[4u * CHUNK];
shared float red[8u * SLOTS];

// W[k, off + c .. off + c + 3], columns clamped to the split (cols - 1; vector loads: cols % 4 == 0).
vec4 wload(uint k, uint off, uint c) {
    uint row = pc.base_w + k * pc.N + off;
    if (VEC) {
        uint e = (row + min(c, pc.cols - 4u)) >> 2;
#if A_BITS == 16
        uvec2 q = wv[e];
        return vec4(unpackHalf2x16(q.x), unpackHalf2x16(q.y));
#else
        return uintBitsToFloat(wv[e]);
#endif
    }
    uint l = pc.cols - 1u;
    return vec4(float(w_in[row + min(c, l)]), float(w_in[row + min(c + 1u, l)]), float(w_in[row + min(c + 2u, l)]),
                float(w_in[row + min(c + 3u, l)]));
}

// Workgroup sums of v[0 .. MT) (every invocation gets them).
void wg_sums(inout float v[4]) {
    uint tid = gl_LocalInvocationID.x;
    for (uint m = 0u; m < MT; m++) {
        float s = SG_REDUCE ? subgroupAdd(v[m]) : v[m];
        if (!SG_REDUCE || subgroupElect()) red[m * SLOTS + (SG_REDUCE ? gl_SubgroupID : tid)] = s;
    }
    barrier();
    uint used = SG_REDUCE ? gl_NumSubgroups : gl_WorkGroupSize.x;
    for (uint m = 0u; m < MT; m++) {
        float s = 0.0;
        for (uint i = 0u; i < used; i++) s += red[m * SLOTS + i];
        v[m] = s;
    }
    barrier();
}

void main() {
    uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x, slices = wg / CT, slice = tid / CT;
    uint group = flat_group(), c0 = group * CT * CV, m0 = gl_WorkGroupID.z * MT;
    if (c0 >= pc.cols) return; // whole workgroup: the grid is rounded up
    uint nm = min(MT, pc.M - m0);
    float inv[4];
    for (uint m = 0u; m < MT; m++) {
        uint row = m0 + min(m, nm - 1u);
        float ss = 0.0;
        for (uint k = tid; k < pc.K; k += wg) {
            float v = fused_value(row, k, group == 0u && m < nm);
            ss = fma(v, v, ss);
        }
        inv[m] = ss;
    }
    wg_sums(inv);
    for (uint m = 0u; m < MT; m++) inv[m] = fused_inv_rms(inv[m]);

    uint c = c0 + (tid % CT) * CV;
    vec4 acc[4], accu[4];
    for (uint m = 0u; m < 4u; m++) acc[m] = accu[m] = vec4(0.0);
    for (uint kc = 0u; kc < pc.K; kc += CHUNK) {
        uint kn = min(CHUNK, pc.K - kc);
        for (uint e = tid; e < MT * CHUNK; e += wg) {
            uint m = e / CHUNK, kk = e % CHUNK;
            if (kk < kn)
                hs[e] = fused_value(m0 + min(m, nm - 1u), kc + kk, false) * inv[m] * float(scale_in[pc.base_scale + kc + kk]);
        }
        barrier();
        for (uint kk = slice; kk < kn; kk += slices) {
            vec4 w = wload(kc + kk, pc.col0, c);
            vec4 u = GATED ? wload(kc + kk, pc.half_n, c) : vec4(0.0);
            for (uint m = 0u; m < MT; m++) {
                float h = hs[m * CHUNK + kk];
                acc[m] = fma(vec4(h), w, acc[m]);
                if (GATED) accu[m] = fma(vec4(h), u, accu[m]);
            }
        }
        barrier();
    }
    // sum the k slices: invocation t < 64 finishes column c0 + t
    for (uint m = 0u; m < MT; m++) {
        for (uint j = 0u; j < CV; j++) {
            red[j * SLOTS + tid] = acc[m][j];
            if (GATED) red[(CV + j) * SLOTS + tid] = accu[m][j];
        }
        barrier();
        if (tid < CT * CV) {
            uint ct = tid / CV, j = tid % CV;
            float y = 0.0, up = 0.0;
            for (uint s = 0u; s < slices; s++) {
                y += red[j * SLOTS + s * CT + ct];
                if (GATED) up += red[(CV + j) * SLOTS + s * CT + ct];
            }
            if (m < nm && c0 + tid < pc.cols) fused_store(m0 + m, c0 + tid, y, up);
        }
        barrier();
    }
}
