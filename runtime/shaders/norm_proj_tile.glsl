// norm_proj_tile.glsl - qkvProjection / gatedMlp with matmulNBits weights for many activation rows
// (prefill), fully fused on the int4 tile core (nbits_tile.glsl): the workgroup first computes the
// reciprocal RMS of its 64 activation rows (x (+ skip (+ skipBias)), f32), then stages the
// normalized activations h = v * inv_rms * normScale as the tile core's A operand, so h never goes
// to device memory.  qkvProjection: one dispatch over all weight rows, row n goes to the split
// output it falls in (split1 / split2); gatedMlp (GATED): output column c from gate row c and up row
// half_n + c, act(gate) * up.  Bindings and push constants: norm_proj_io.glsl, shared with
// ext_norm_proj.comp (which also runs the outputSum pre-pass, so that x is then read once per
// element: measured faster on an H100 than adding x + skip here, 507 against 552 us for a
// Qwen2-0.5B gatedMlp of 512 tokens).  Built as
// ext_norm_proj_tiled.comp (portable) and ext_norm_proj_coop.comp (NV cooperative matrices).
// Grid: x = 64-column tiles of the split, y = 64-row tiles of M.
#include "common.glsl"
#include "ext_common.glsl"

#include "norm_proj_io.glsl"
#include "ext_nbits.glsl"

#define TILE_HAS_UP 1
const bool TILE_UP = GATED;

shared float inv_rms[64];
shared float part[256];
uint tile_m0, tile_c0;

float tile_a(uint m, uint k) { return value_at(m, k) * inv_rms[m - tile_m0] * float(scale_in[pc.base_scale + k]); }

void tile_store(uint m, uint c, float y, float up) {
    uint n = pc.row0 + tile_c0 + c;
    if (HAS_BIAS) y += float(bias_in[pc.base_bias + n]);
    if (GATED) {
        if (HAS_BIAS) up += float(bias_in[pc.base_bias + pc.half_n + n]);
        y = gate_activation(GATE_ACT, y) * up;
    }
    uint col = tile_c0 + c;
    if (col >= pc.split2) y2_out[pc.base_y2 + m * (pc.out_cols - pc.split2) + col - pc.split2] = A_T(y);
    else if (col >= pc.split1) y1_out[pc.base_y1 + m * (pc.split2 - pc.split1) + col - pc.split1] = A_T(y);
    else y_out[pc.base_y + m * pc.split1 + col] = A_T(y);
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
    tile_k_end = pc.K;
    nbits_tile(tile_m0, pc.row0 + tile_c0, pc.row0 + tile_c0, min(64u, pc.rows - tile_c0), pc.half_n);
}
