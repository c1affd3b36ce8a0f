// nbits_gemm.glsl - matmulNBits for many activation rows (prefill): y[m, n] = a[m, :] .
// dequant(b[n, :]) + bias[n] on the int4 tile core (nbits_tile.glsl), 64 x 64 outputs per
// workgroup.  Built as ext_matmul_nbits_tiled.comp (portable, 256 invocations) and
// ext_matmul_nbits_coop.comp (NV cooperative matrices, 128 invocations).  The weight binding
// starts at row row0 of this dispatch (k_ext_nbits.c splits big weights over dispatches).
// Grid: x = 64-column tiles of the dispatch's rows, y = 64-row tiles of M, z = k slices.
// Split-K (SPLIT_K, for narrow weights over a long K whose tiles alone would leave cores idle):
// slice z sums k in [z * k_split, (z + 1) * k_split) and writes its f32 partial sums to the
// scratch buffer ws[z][m][n] (no bias); ext_nbits_splitk_sum.comp then adds the slices.
// Gated (GEMM_GATED 1: ext_matmul_nbits_gated_tiled.comp / _gated_coop.comp, gatedMlp's prefill,
// k_fused_prefill.c): the weights are the packed [gate | up] rows, pc.N = their half (the output
// columns) and up row n is gate row n + pc.up_off in the same binding (so the binding of a
// dispatch spans its gate rows up to its last up row); both products accumulate in one tile
// (nbits_tile.glsl's up tile) and y[m, n] = act(gate + bias[n]) * (up + bias[up_off + n]) in f32,
// act = GATE_ACT (activation_math.glsl gate_activation), with gate + bias and up + bias rounded to
// the activation type first as the separate GEMM's output was (nothing for float32): bit for bit
// the GEMM + ext_gate_mul.comp it replaces on the portable path (tested); the cooperative builds
// of the two differ by a few float16 ulps on an H100 (the driver compiles them differently;
// tests/runtime/test_rt_ext_fused.c).  Never split-K.
// Shared memory of the gated cooperative build: As, Bs and Bu of 64 x 5 uvec4 (5 KiB each) and Cs
// of 4 x 1024 floats (16 KiB), 31 KiB; the gated portable build 3 x 64 x 33 floats, 24.75 KiB.
#include "common.glsl"
#include "ext_common.glsl"
#if GEMM_GATED
#include "activation_math.glsl"
#endif

PARAMS_BLOCK PC {
    uint M, N, K, kBlocks, block, row_words, zp_row, rows, row0;
    uint base_a, base_w, base_s, base_z, base_bias, base_y;
    uint k_split, base_ws; // split-K: k per slice, first element of the partial sums in ws
    uint up_off;           // gated: up row n is weight row n + up_off
} pc;
layout(std430, binding = 0) readonly buffer A { A_T a_in[]; };
layout(std430, binding = 0) readonly buffer A4 { uvec4 a4_in[]; }; // cooperative path: 8 float16 per load
layout(std430, binding = 1) readonly buffer W { uint w_in[]; };
layout(std430, binding = 2) readonly buffer S { A_T s_in[]; };
layout(std430, binding = 3) readonly buffer Z { uint z_in[]; };
layout(std430, binding = 3) readonly buffer Zf { A_T zf_in[]; };
layout(std430, binding = 4) readonly buffer Bi { A_T bias_in[]; };
layout(std430, binding = 5) writeonly buffer Y { A_T y_out[]; };
layout(std430, binding = 6) writeonly buffer Ws { float ws[]; };
layout(constant_id = 9) const bool SPLIT_K = false;
layout(constant_id = 10) const uint GATE_ACT = 0u; // gated: GATE_* of lib/core/fused_ops.h

#include "ext_nbits.glsl"

#define TILE_HAS_UP GEMM_GATED
#define TILE_A8
const bool TILE_UP = GEMM_GATED != 0;
float tile_a(uint m, uint k) { return float(a_in[pc.base_a + m * pc.K + k]); }

uint tile_n0; // first dispatch-local weight row of this workgroup's tile
void tile_store(uint m, uint c, float y, float up) {
    uint n = pc.row0 + tile_n0 + c;
    if (SPLIT_K) {
        ws[pc.base_ws + (gl_WorkGroupID.z * pc.M + m) * pc.N + n] = y;
        return;
    }
    if (HAS_BIAS) y += float(bias_in[pc.base_bias + n]);
#if GEMM_GATED
    if (HAS_BIAS) up += float(bias_in[pc.base_bias + pc.up_off + n]);
    y = gate_activation(GATE_ACT, float(A_T(y))) * float(A_T(up)); // as ext_gate_mul.comp reads them
#endif
    y_out[pc.base_y + m * pc.N + n] = A_T(y);
}

#include "nbits_tile.glsl"

#if TILE_COOP
// Eight activations in one load where they are 16-byte aligned (and all before tile_k_end).
uvec4 tile_a8(uint m, uint k) {
    uint at = pc.base_a + m * pc.K + k;
    return at % 8u == 0u && k + 8u <= tile_k_end ? a4_in[at / 8u] : tile_a8_values(m, k);
}
#endif

void main() {
    tile_n0 = gl_WorkGroupID.x * TILE_BN;
    tile_k_begin = SPLIT_K ? gl_WorkGroupID.z * pc.k_split : 0u;
    tile_k_end = SPLIT_K ? min(tile_k_begin + pc.k_split, pc.K) : pc.K;
    nbits_tile(gl_WorkGroupID.y * TILE_BM, tile_n0, pc.row0 + tile_n0, min(TILE_BN, pc.rows - tile_n0),
               GEMM_GATED != 0 ? pc.up_off : 0u);
}
