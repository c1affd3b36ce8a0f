#version 450
// ext_norm_proj.comp - the normalized projections qkvProjection / gatedMlp with matmulNBits weights,
// fully fused: each workgroup recomputes the RMS of its MT activation rows (x (+ skip (+ skipBias)),
// f32), then runs the mat-vec of ext_matmul_nbits.comp on the normalized activations
// h = v * inv_rms * normScale, dequantizing packed weights in registers, + bias.  qkvProjection:
// weight rows row0 .. row0+rows-1 go to output columns 0.. of one split output (one dispatch per
// split).  GATED (gatedMlp): output column c needs gate row c and up row half + c; the workgroup
// accumulates both and writes act(gate) * up.  SUM_ONLY: a pre-pass, one workgroup per row, that
// writes v = x + skip (+ skipBias) to the sum output (then the projection pass reads it as x).
// Bindings: norm_proj_io.glsl (0 x, 1 skip, 2 skipBias, 3 normScale, 4 weights, 5 scales,
// 6 zero points, 7 output, 11 bias).  Grid: x/y fold column groups, z groups of MT activation rows.
#include "common.glsl"
#include "ext_common.glsl"

layout(constant_id = 4) const uint ROWS = 4u;    // output columns per workgroup (<= 8; gated <= 4)
layout(constant_id = 5) const uint MT = 1u;      // activation rows per workgroup (<= 4)
layout(constant_id = 6) const bool SG_REDUCE = true;
#include "norm_proj_io.glsl"
#include "ext_nbits.glsl"

const uint ACC = GATED ? 2u * ROWS : ROWS; // weight rows per workgroup
shared float red[4 * 8 * 128];
shared float inv_rms[4];

// Sum over the workgroup of MT values at once (slot i of each accumulator group).
void reduce(inout float v[32], uint count) {
    uint tid = gl_LocalInvocationID.x;
    for (uint a = 0u; a < count; a++) {
        float x = SG_REDUCE ? subgroupAdd(v[a]) : v[a];
        if (!SG_REDUCE || subgroupElect()) red[a * 128u + (SG_REDUCE ? gl_SubgroupID : tid)] = x;
    }
    barrier();
    uint used = SG_REDUCE ? gl_NumSubgroups : gl_WorkGroupSize.x;
    for (uint a = 0u; a < count; a++) {
        float s = 0.0;
        for (uint i = 0u; i < used; i++) s += red[a * 128u + i];
        v[a] = s;
    }
    barrier();
}

void main() {
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    if (SUM_ONLY) {
        uint m = flat_group();
        if (m >= pc.M) return;
        for (uint k = tid; k < pc.K; k += nt) y_out[pc.base_y + m * pc.K + k] = A_T(value_at(m, k));
        return;
    }
    uint first = flat_group() * ROWS, m0 = gl_WorkGroupID.z * MT;
    if (first >= pc.rows) return;
    uint nrows = min(ROWS, pc.rows - first), nm = min(MT, pc.M - m0);
    float acc[32];
    for (uint m = 0u; m < MT; m++) {
        float ss = 0.0;
        for (uint k = tid; k < pc.K; k += nt) {
            float v = value_at(m0 + min(m, nm - 1u), k);
            ss = fma(v, v, ss);
        }
        acc[m] = ss;
    }
    reduce(acc, MT);
    for (uint m = 0u; m < MT; m++) acc[m] = 1.0 / sqrt(acc[m] / float(pc.K) + pc.eps);
    float inv[4];
    for (uint m = 0u; m < MT; m++) inv[m] = acc[m];
    for (uint a = 0u; a < 32u; a++) acc[a] = 0.0;
    for (uint u = tid; u < pc.row_words; u += nt) {
        uint k0 = u * VPW;
        if (k0 >= pc.K) continue;
        uint kn = min(VPW, pc.K - k0), kb = k0 / pc.block;
        float xv[4][16], xs[4];
        for (uint m = 0u; m < MT; m++) {
            xs[m] = 0.0;
            uint mm = m0 + min(m, nm - 1u);
            for (uint j = 0u; j < VPW; j++) {
                xv[m][j] = j < kn ? value_at(mm, k0 + j) * inv[m] * float(scale_in[pc.base_scale + k0 + j]) : 0.0;
                xs[m] += xv[m][j];
            }
        }
        for (uint r = 0u; r < ACC; r++) {
            uint c = r % ROWS;
            if (c >= nrows) continue;
            uint n = pc.row0 + first + c + (r >= ROWS ? pc.half_n : 0u);
            uint word = w_in[pc.base_w + n * pc.row_words + u];
            float s, z;
            block_params(n, kb, s, z);
            for (uint m = 0u; m < MT; m++) {
                float d = 0.0;
                for (uint j = 0u; j < VPW; j++) d = fma(float(bitfieldExtract(word, int(j * BITS), int(BITS))), xv[m][j], d);
                acc[m * 8u + r] += s * (d - z * xs[m]);
            }
        }
    }
    reduce(acc, (MT - 1u) * 8u + ACC); // only the accumulators in use
    for (uint o = tid; o < MT * ROWS; o += nt) {
        uint m = o / ROWS, c = o % ROWS;
        if (m >= nm || c >= nrows) continue;
        uint n = pc.row0 + first + c;
        float y = acc[m * 8u + c];
        if (HAS_BIAS) y += float(bias_in[pc.base_bias + n]);
        if (GATED) {
            float up = acc[m * 8u + ROWS + c];
            if (HAS_BIAS) up += float(bias_in[pc.base_bias + pc.half_n + n]);
            y = gate_activation(GATE_ACT, y) * up;
        }
        y_out[pc.base_y + (m0 + m) * pc.out_cols + first + c] = A_T(y);
    }
}
