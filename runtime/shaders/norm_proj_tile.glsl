// norm_proj_tile.glsl - qkvProjection / gatedMlp with matmulNBits weights for many activation rows
// (prefill), fully fused on the int4 tile core (nbits_tile.glsl): the workgroup first computes the
// reciprocal RMS of its 64 activation rows (x (+ skip (+ skipBias)), f32), then stages the
// normalized activations h = v * inv_rms * normScale as the tile core's A operand, so h never goes
// to device memory.  qkvProjection: weight rows row0 .. row0 + rows - 1 go to output columns 0.. of
// one split output (one dispatch per split); gatedMlp (GATED): output column c from gate row c and
// up row half_n + c, silu(gate) * up.  Operation, bindings and push constants as
// ext_norm_proj.comp (the decode kernel; it also runs the outputSum pre-pass).  Built as
// ext_norm_proj_tiled.comp (portable) and ext_norm_proj_coop.comp (NV cooperative matrices).
// Grid: x = 64-column tiles of the split, y = 64-row tiles of M.
#include "common.glsl"
#include "ext_common.glsl"

layout(constant_id = 7) const uint FLAGS = 0u; // 1 skip, 2 skipBias, 4 gated (ext_norm_proj.comp)
const bool HAS_SKIP = (FLAGS & 1u) != 0u, HAS_SKIP_BIAS = (FLAGS & 2u) != 0u, GATED = (FLAGS & 4u) != 0u;

PARAMS_BLOCK PC {
    uint M, K, kBlocks, block, row_words, zp_row, rows, row0, out_cols, half_n;
    float eps;
    uint base_x, base_skip, base_b2, base_scale, base_w, base_s, base_z, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer Sk { A_T skip_in[]; };
layout(std430, binding = 2) readonly buffer B2 { A_T b2_in[]; };
layout(std430, binding = 3) readonly buffer Ns { A_T scale_in[]; };
layout(std430, binding = 4) readonly buffer W { uint w_in[]; };
layout(std430, binding = 5) readonly buffer S { A_T s_in[]; };
layout(std430, binding = 6) readonly buffer Z { uint z_in[]; };
layout(std430, binding = 6) readonly buffer Zf { A_T zf_in[]; };
layout(std430, binding = 7) writeonly buffer Y { A_T y_out[]; };

#include "ext_nbits.glsl"

#define TILE_HAS_UP 1
const bool TILE_UP = GATED;

shared float inv_rms[64];
shared float part[256];
uint tile_m0, tile_c0;

float value_at(uint m, uint k) {
    uint i = m * pc.K + k;
    float v = float(x_in[pc.base_x + i]);
    if (HAS_SKIP) v += float(skip_in[pc.base_skip + i]);
    if (HAS_SKIP_BIAS) v += float(b2_in[pc.base_b2 + k]);
    return v;
}

float tile_a(uint m, uint k) { return value_at(m, k) * inv_rms[m - tile_m0] * float(scale_in[pc.base_scale + k]); }

void tile_store(uint m, uint c, float y, float up) {
    uint n = pc.row0 + tile_c0 + c;
    if (HAS_BIAS) y += float(b2_in[pc.base_b2 + n]);
    if (GATED) {
        if (HAS_BIAS) up += float(b2_in[pc.base_b2 + pc.half_n + n]);
        y = y / (1.0 + exp(-y)) * up;
    }
    y_out[pc.base_y + m * pc.out_cols + tile_c0 + c] = A_T(y);
}

#include "nbits_tile.glsl"

void main() {
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x, per = nt / 64u; // invocations per row
    tile_m0 = gl_WorkGroupID.y * 64u;
    tile_c0 = gl_WorkGroupID.x * 64u;
    uint r = tid / per, m = tile_m0 + r;
    float ss = 0.0;
    if (m < pc.M)
        for (uint k = tid % per; k < pc.K; k += per) {
            float v = value_at(m, k);
            ss = fma(v, v, ss);
        }
    part[tid] = ss;
    barrier();
    if (tid < 64u) {
        float t = 0.0;
        for (uint i = 0u; i < per; i++) t += part[tid * per + i];
        inv_rms[tid] = 1.0 / sqrt(t / float(pc.K) + pc.eps);
    }
    barrier();
    nbits_tile(tile_m0, pc.row0 + tile_c0, pc.row0 + tile_c0, min(64u, pc.rows - tile_c0), pc.half_n);
}
