#version 450
// matvec_rows.comp - y[m, n] = sum_k x[m, k] * W[n, k] for weights stored ROW-major [N, K] (each
// output row n reads one contiguous run of K weights): the fast M == 1 (small M) path of matmul
// with a constant B (k_matvec.c).  Weight formats (spec constant WBITS):
//   16 / 32  float weights of the activation type (f16 / f32), no scale;
//   4 / 8    integers dequantized in registers: (q - zeroPoint) * scale, the scale and zero point
//            of block (n / block_n, k / block_k); 4-bit rows are packed two per byte, low nibble
//            first (the ONNX / llama.cpp / MatMulNBits layout).
// Each invocation takes units of 16 consecutive k (vector loads: q4 8 bytes, q8 16, f16 32, f32 64)
// for ROWS rows at once, so one activation load serves ROWS rows; f32 accumulation; the workgroup
// reduces with subgroupAdd then shared memory (or shared memory only without subgroup arithmetic).
// Grid: x/y fold the row groups of this dispatch (flat_group), z = activation row m.
#include "common.glsl"
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable

layout(constant_id = 1) const uint ROWS = 2;        // output rows per workgroup (<= 8)
layout(constant_id = 2) const uint WBITS = 16;      // 4, 8, 16, 32
layout(constant_id = 3) const bool WSIGNED = false; // quantized values are signed (int4 / int8)
layout(constant_id = 4) const bool HAS_ZP = false;
layout(constant_id = 5) const bool SG_REDUCE = true; // subgroupAdd available
layout(constant_id = 6) const uint SLOTS = 64;       // shared slots per row (>= subgroups or invocations)

layout(push_constant) uniform PC {
    uint rows;      // rows of this dispatch
    uint units;     // K / 16
    uint row0;      // global index of the first row of this dispatch (scale / zero point / output)
    uint w_base;    // weight window: first unit of row row0 in vec units (uvec2 for 4-bit, uvec4 else)
    uint x_base;    // activation binding: uvec4 index of x[0, 0]
    uint x_stride;  // uvec4 per activation row
    uint y_base;    // output element index of y[0, 0]
    uint y_stride;  // N
    uint s_base;    // scale / zero-point element index of block (0, 0)
    uint z_base;
    uint block_n, block_k, s_n, s_k; // blocks and element strides of scale / zero point
} pc;

layout(std430, binding = 0) readonly buffer X { uvec4 x4[]; };
layout(std430, binding = 1) readonly buffer W4 { uvec4 w4[]; };
layout(std430, binding = 1) readonly buffer W2 { uvec2 w2[]; };
layout(std430, binding = 2) readonly buffer S { A_T s_in[]; };
layout(std430, binding = 3) readonly buffer Z { uint z_in[]; };
layout(std430, binding = 4) writeonly buffer Y { A_T y_out[]; };

shared float red[8 * SLOTS];

// 16 activations of unit u of row m, as floats.
void load_x(uint m, uint u, out float xv[16]) {
#if A_BITS == 16
    uint i = pc.x_base + m * pc.x_stride + u * 2u;
    for (uint h = 0u; h < 2u; h++) {
        uvec4 q = x4[i + h];
        for (uint j = 0u; j < 4u; j++) {
            vec2 f = unpackHalf2x16(q[j]);
            xv[h * 8u + j * 2u] = f.x;
            xv[h * 8u + j * 2u + 1u] = f.y;
        }
    }
#else
    uint i = pc.x_base + m * pc.x_stride + u * 4u;
    for (uint h = 0u; h < 4u; h++) {
        vec4 f = uintBitsToFloat(x4[i + h]);
        xv[h * 4u] = f.x; xv[h * 4u + 1u] = f.y; xv[h * 4u + 2u] = f.z; xv[h * 4u + 3u] = f.w;
    }
#endif
}

// Zero point of block index zi (elements of the zero-point dtype: 4 or 8 bits), as stored.
float zero_point(uint zi) {
    uint word = z_in[zi * WBITS / 32u];
    uint off = (zi * WBITS) % 32u;
    return WSIGNED ? float(bitfieldExtract(int(word), int(off), int(WBITS))) : float(bitfieldExtract(word, int(off), int(WBITS)));
}

// Quantized values without integer-to-float conversions: (v | 0x4b000000) is the float 2^23 + v
// for v < 2^23, so q - zp = that - (2^23 + zp) exactly.  Signed values are offset to unsigned by
// flipping their sign bits (v ^ 8 = v + 8 for int4), which the bias takes back.
const uint QMASK = (1u << WBITS) - 1u;
const uint SIGNFLIP = WSIGNED ? (WBITS == 4u ? 0x88888888u : 0x80808080u) : 0u;
float qf(uint w, uint off) { return uintBitsToFloat(((w >> off) & QMASK) | 0x4b000000u); }

// Dot of unit u of weight row r (dispatch-local) with xv; quantized: bi = scale / zero-point
// element of (row, unit).
float dot_unit(uint r, uint u, float xv[16], uint bi) {
    float acc = 0.0;
    if (WBITS == 16u) {
        uint i = pc.w_base + (r * pc.units + u) * 2u;
        for (uint h = 0u; h < 2u; h++) {
            uvec4 q = w4[i + h];
            for (uint j = 0u; j < 4u; j++) {
                vec2 f = unpackHalf2x16(q[j]);
                acc = fma(f.x, xv[h * 8u + j * 2u], acc);
                acc = fma(f.y, xv[h * 8u + j * 2u + 1u], acc);
            }
        }
        return acc;
    }
    if (WBITS == 32u) {
        uint i = pc.w_base + (r * pc.units + u) * 4u;
        for (uint h = 0u; h < 4u; h++) acc += dot(uintBitsToFloat(w4[i + h]), vec4(xv[h * 4u], xv[h * 4u + 1u], xv[h * 4u + 2u], xv[h * 4u + 3u]));
        return acc;
    }
    // quantized: sum (q - zp) * s * x = s * sum (qf - bias) * x
    float s = float(s_in[pc.s_base + bi]);
    float bias = 8388608.0 + (WSIGNED ? float(1u << (WBITS - 1u)) : 0.0) + (HAS_ZP ? zero_point(pc.z_base + bi) : 0.0);
    if (WBITS == 4u) {
        uvec2 q = w2[pc.w_base + r * pc.units + u] ^ uvec2(SIGNFLIP);
        for (uint j = 0u; j < 8u; j++) acc = fma(qf(q.x, j * 4u) - bias, xv[j], acc);
        for (uint j = 0u; j < 8u; j++) acc = fma(qf(q.y, j * 4u) - bias, xv[8u + j], acc);
    } else {
        uvec4 q = w4[pc.w_base + r * pc.units + u] ^ uvec4(SIGNFLIP);
        for (uint j = 0u; j < 16u; j++) acc = fma(qf(q[j / 4u], (j % 4u) * 8u) - bias, xv[j], acc);
    }
    return s * acc;
}

void main() {
    uint tid = gl_LocalInvocationID.x;
    uint first = flat_group() * ROWS;
    uint m = gl_WorkGroupID.z;
    float acc[8];
    for (uint r = 0u; r < ROWS; r++) acc[r] = 0.0;
    if (first >= pc.rows) return; // whole workgroup: the grid is rounded up
    uint nrows = min(ROWS, pc.rows - first);
    // two units per iteration while both exist (twice the loads in flight), then the tail
    // scale / zero-point element of each row's block 0 (divisions hoisted out of the loop)
    uint rbase[8];
    for (uint r = 0u; r < ROWS; r++) rbase[r] = WBITS <= 8u ? ((pc.row0 + first + r) / pc.block_n) * pc.s_n : 0u;
    uint upb = pc.block_k / 16u; // units per block along K
    uint wgs = gl_WorkGroupSize.x, u = tid;
    for (; u + wgs < pc.units; u += 2u * wgs) {
        float xa[16], xb[16];
        load_x(m, u, xa);
        load_x(m, u + wgs, xb);
        uint ka = WBITS <= 8u ? (u / upb) * pc.s_k : 0u, kb = WBITS <= 8u ? ((u + wgs) / upb) * pc.s_k : 0u;
        for (uint r = 0u; r < ROWS; r++)
            if (r < nrows) acc[r] += dot_unit(first + r, u, xa, rbase[r] + ka) + dot_unit(first + r, u + wgs, xb, rbase[r] + kb);
    }
    if (u < pc.units) {
        float xv[16];
        load_x(m, u, xv);
        uint ka = WBITS <= 8u ? (u / upb) * pc.s_k : 0u;
        for (uint r = 0u; r < ROWS; r++)
            if (r < nrows) acc[r] += dot_unit(first + r, u, xv, rbase[r] + ka);
    }
    uint slot;
    if (SG_REDUCE) {
        for (uint r = 0u; r < ROWS; r++) acc[r] = subgroupAdd(acc[r]);
        slot = gl_SubgroupID;
        if (gl_SubgroupInvocationID == 0u)
            for (uint r = 0u; r < ROWS; r++) red[r * SLOTS + slot] = acc[r];
    } else {
        slot = tid;
        for (uint r = 0u; r < ROWS; r++) red[r * SLOTS + slot] = acc[r];
    }
    uint used = SG_REDUCE ? gl_NumSubgroups : gl_WorkGroupSize.x;
    barrier();
    if (tid < nrows) {
        float s = 0.0;
        for (uint i = 0u; i < used; i++) s += red[tid * SLOTS + i];
        y_out[pc.y_base + m * pc.y_stride + pc.row0 + first + tid] = A_T(s);
    }
}
