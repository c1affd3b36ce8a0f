#version 450
// ext_rms_norm.comp - rmsNorm / skipRmsNorm, one workgroup per normalized row of `size` values:
// v = x (+ skip, broadcast) (+ bias), y = v / sqrt(mean(v^2) + eps) * scale, optional second
// output = v (skipRmsNorm's sum, written in the input dtype).  f32 accumulation for f16 data;
// the sum of squares is reduced with subgroupAdd + shared memory.  The first HELD values of
// each invocation (rows up to HELD x the workgroup: every hidden size of the corpus at decode)
// stay in registers between the two passes, their scales loaded with them, so that the second
// pass waits for no memory; values past those are recomputed in the second pass, so rows of any
// length work.  The arithmetic and its order are the same either way.
// A = input dtype (x, skip, bias, sum), B = output dtype (scale, y).
// The skip row offset: row index unravelled over the outer dims (skip strides, 0 = broadcast).
#include "common.glsl"
#define EXT_REDUCTION 256
#include "ext_common.glsl"

#define HELD 4u // values per invocation held in registers between the passes

layout(constant_id = 1) const bool SG_REDUCE = true;
layout(constant_id = 2) const bool HAS_SKIP = false;
layout(constant_id = 3) const bool HAS_BIAS = false;
layout(constant_id = 4) const bool HAS_SUM = false;

PARAMS_BLOCK PC {
    uint rows, size;
    float eps;
    uint outer_rank;      // dims of outer[] used (skip broadcast), innermost last
    uint outer[5];
    uint skip_st[5];      // skip element strides of the outer dims
    uint skip_inner;      // skip stride of the normalized (last) dim: 1, or 0 when broadcast
    uint base_x, base_skip, base_bias, base_scale, base_y, base_sum;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer K { A_T skip_in[]; };
layout(std430, binding = 2) readonly buffer Bi { A_T bias_in[]; };
layout(std430, binding = 3) readonly buffer S { B_T scale_in[]; };
layout(std430, binding = 4) writeonly buffer Y { B_T y_out[]; };
layout(std430, binding = 5) writeonly buffer Sum { A_T sum_out[]; };

float value_at(uint xrow, uint srow, uint j) {
    float v = float(x_in[pc.base_x + xrow + j]);
    if (HAS_SKIP) v += float(skip_in[pc.base_skip + srow + j * pc.skip_inner]);
    if (HAS_BIAS) v += float(bias_in[pc.base_bias + j]);
    return v;
}

void main() {
    uint row = flat_group();
    if (row >= pc.rows) return;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    uint xrow = row * pc.size, srow = 0u;
    if (HAS_SKIP) {
        uint r = row;
        for (int d = int(pc.outer_rank) - 1; d >= 0; d--) {
            uint q = r / pc.outer[d];
            srow += (r - q * pc.outer[d]) * pc.skip_st[d];
            r = q;
        }
    }
    // loads of the held values and their scales first, all in flight together
    float held[HELD], scale[HELD];
    for (uint i = 0u; i < HELD; i++) {
        uint j = tid + i * nt;
        held[i] = j < pc.size ? value_at(xrow, srow, j) : 0.0;
        scale[i] = j < pc.size ? float(scale_in[pc.base_scale + j]) : 0.0;
    }
    float ss = 0.0;
    for (uint i = 0u; i < HELD; i++) {
        uint j = tid + i * nt;
        if (j >= pc.size) break;
        if (HAS_SUM) sum_out[pc.base_sum + xrow + j] = A_T(held[i]);
        ss = fma(held[i], held[i], ss);
    }
    for (uint j = tid + HELD * nt; j < pc.size; j += nt) {
        float v = value_at(xrow, srow, j);
        if (HAS_SUM) sum_out[pc.base_sum + xrow + j] = A_T(v);
        ss = fma(v, v, ss);
    }
    float inv = 1.0 / sqrt(ext_wg_sum(ss, SG_REDUCE) / float(pc.size) + pc.eps);
    for (uint i = 0u; i < HELD; i++) {
        uint j = tid + i * nt;
        if (j < pc.size) y_out[pc.base_y + xrow + j] = B_T(held[i] * inv * scale[i]);
    }
    for (uint j = tid + HELD * nt; j < pc.size; j += nt)
        y_out[pc.base_y + xrow + j] = B_T(value_at(xrow, srow, j) * inv * float(scale_in[pc.base_scale + j]));
}
