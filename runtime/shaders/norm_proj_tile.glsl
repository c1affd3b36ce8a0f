// norm_proj_tile.glsl - qkvProjection / gatedMlp with matmulNBits weights for many activation rows
// (prefill), fully fused on the int4 tile core (nbits_tile.glsl) in one pass: the tile core's A
// operand is v * normScale with v = x (+ skip (+ skipBias)), and while it stages v every invocation
// adds v^2 to its row slots (tile_a), so the workgroup has the RMS of its 64 rows once the last k
// step is staged (tile_finish: a shared-memory reduction per slot) and scales the products in the
// epilogue: y = inv_rms * (v * normScale) . W (+ bias); h never goes to device memory and x is read
// once per tile.  qkvProjection: one dispatch over all weight rows, row n goes to the split output
// it falls in (split1 / split2); gatedMlp (GATED): output column c from gate row c and up row
// half_n + c, silu(gate) * up.  WRITE_SUM: the workgroups of column tile 0 write v (the sum output)
// as they stage it.  Bindings and push constants: norm_proj_io.glsl, shared with ext_norm_proj.comp.
// Built as ext_norm_proj_tiled.comp (portable) and ext_norm_proj_coop.comp (NV cooperative
// matrices).  Grid: x = 64-column tiles of all outputs, y = 64-row tiles of M.
#include "common.glsl"
#include "ext_common.glsl"

#include "norm_proj_io.glsl"
#include "ext_nbits.glsl"

#define TILE_HAS_UP 1
const bool TILE_UP = GATED;

shared float inv_rms[64];
shared float part[256];
uint tile_m0, tile_c0;
float ss_slot[16]; // sum of v^2 per staging slot (TILE_SLOTS): this invocation's share of its rows
uint g_k = 0xffffffffu; // k of g_v: an invocation stages one k per step, so normScale is read once
float g_v;

float tile_a(uint m, uint k, uint slot) {
    float v = value_at(m, k);
    ss_slot[slot] = fma(v, v, ss_slot[slot]);
    if (WRITE_SUM && gl_WorkGroupID.x == 0u) sum_out[pc.base_sum + m * pc.K + k] = A_T(v);
    if (k != g_k) {
        g_k = k;
        g_v = float(scale_in[pc.base_scale + k]);
    }
    return v * g_v;
}

// inv_rms of the tile's rows from the slots: slot s of invocation t holds row t / 32 + s * nt / 32.
void tile_finish() {
    uint tid = gl_LocalInvocationID.x, per = gl_WorkGroupSize.x / 32u; // rows per slot (TILE_BK = 32)
    for (uint s = 0u; s * per < 64u; s++) {
        part[tid] = ss_slot[s];
        barrier();
        if (tid < per) {
            float t = 0.0;
            for (uint j = 0u; j < 32u; j++) t += part[tid * 32u + j];
            inv_rms[s * per + tid] = 1.0 / sqrt(t / float(pc.K) + pc.eps);
        }
        barrier();
    }
}

void tile_store(uint m, uint c, float y, float up) {
    uint n = pc.row0 + tile_c0 + c;
    float inv = inv_rms[m - tile_m0];
    y *= inv;
    if (HAS_BIAS) y += float(bias_in[pc.base_bias + n]);
    if (GATED) {
        up *= inv;
        if (HAS_BIAS) up += float(bias_in[pc.base_bias + pc.half_n + n]);
        y = y / (1.0 + exp(-y)) * up;
    }
    uint col = tile_c0 + c;
    if (col >= pc.split2) y2_out[pc.base_y2 + m * (pc.out_cols - pc.split2) + col - pc.split2] = A_T(y);
    else if (col >= pc.split1) y1_out[pc.base_y1 + m * (pc.split2 - pc.split1) + col - pc.split1] = A_T(y);
    else y_out[pc.base_y + m * pc.split1 + col] = A_T(y);
}

#include "nbits_tile.glsl"

void main() {
    tile_m0 = gl_WorkGroupID.y * 64u;
    tile_c0 = gl_WorkGroupID.x * 64u;
    for (uint s = 0u; s < 16u; s++) ss_slot[s] = 0.0;
    nbits_tile(tile_m0, pc.row0 + tile_c0, pc.row0 + tile_c0, min(64u, pc.rows - tile_c0), pc.half_n);
}
