#version 450
// matvec_rows.comp - y[m, n] = sum_k x[m, k] * W[n, k] for weights stored ROW-major [N, K] (each
// output row n reads one contiguous run of K weights): the fast M == 1 (small M) path of matmul
// with a constant B (k_matvec.c).  Weight formats (spec constant WBITS):
//   16 / 32  float weights of the activation type (f16 / f32), no scale;
//   4 / 8    integers dequantized in registers: (q - zeroPoint) * scale, the scale and zero point
//            of block (n / block_n, k / block_k); 4-bit rows are packed two per byte, low nibble
//            first (the ONNX / llama.cpp / MatMulNBits layout).
// Work: an invocation takes one "unit" of consecutive k for ROWS rows at once (one activation load
// serves ROWS rows; rows past the end are clamped, not branched, so loads stay in one block):
//   float weights  16 k per unit (f16: 2 uvec4, f32: 4 uvec4);
//   quantized      16 bytes per unit (uvec4: 32 int4 or 16 int8), or 8 bytes (uvec2: 16 int4) when
//                  4-bit rows are not 16-byte aligned (K % 32 != 0; QLAYOUT bit 0).  The scale and
//                  zero point are read once per unit and row (once per 16 k when a block boundary
//                  can fall inside a unit: QLAYOUT bit 1).
// Dequantization without shifts or integer-to-float conversions: value j of a 16-bit half-word h
// is masked in place, (h & (QMASK << j*WBITS)) | 0x4b000000 is the float 2^23 + q * 2^(j*WBITS)
// (below 2^24, so exact), and fma(that, 2^-(j*WBITS), -(2^(23 - j*WBITS) + zp)) = q - zp exactly.
// Signed values are offset to unsigned by flipping their sign bits (q ^ 8 = q + 8 for int4), which
// the zero-point term takes back.  f32 accumulation; the unit's sum is scaled once.  Two units per
// loop iteration keep more loads in flight, or (QLAYOUT bit 2) a software pipeline loads the next
// unit's weights and activations before computing the current one.  The workgroup reduces with subgroupAdd then shared
// memory (or shared memory only without subgroup arithmetic).
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
layout(constant_id = 7) const uint QLAYOUT = 0u;     // quantized: bit 0 uvec2 units, bit 1 blocks split units,
                                                     // bit 2 prefetch the next unit (software pipeline)

layout(push_constant) uniform PC {
    uint rows;      // rows of this dispatch
    uint units;     // units per row (float: K / 16; quantized: K / (k per unit))
    uint row0;      // global index of the first row of this dispatch (scale / zero point / output)
    uint w_base;    // weight window: first unit of row row0 in vector units (see k_matvec.c)
    uint x_base;    // activation binding: uvec4 index of x[0, 0]
    uint x_stride;  // uvec4 per activation row
    uint y_base;    // output element index of y[0, 0]
    uint y_stride;  // N
    uint s_base;    // scale / zero-point element index of block (0, 0)
    uint z_base;
    uint block_n, block_k, s_n, s_k; // blocks and element strides of scale / zero point
    uint kshift;    // log2(block_k) when block_k is a power of two, else 32
} pc;

layout(std430, binding = 0) readonly buffer X { uvec4 x4[]; };
layout(std430, binding = 1) readonly buffer W4 { uvec4 w4[]; };
layout(std430, binding = 1) readonly buffer W2 { uvec2 w2[]; };
layout(std430, binding = 2) readonly buffer S { A_T s_in[]; };
layout(std430, binding = 3) readonly buffer Z { uint z_in[]; };
layout(std430, binding = 4) writeonly buffer Y { A_T y_out[]; };

shared float red[8 * SLOTS];

const bool QUANT = WBITS <= 8u;
const uint QWORDS = (QLAYOUT & 1u) != 0u ? 2u : 4u; // 32-bit words per quantized unit
const bool SPLIT = (QLAYOUT & 2u) != 0u;
const bool PREFETCH = (QLAYOUT & 4u) != 0u;
const uint KPU = QUANT ? QWORDS * 32u / WBITS : 16u; // k per unit
const uint SUBS = KPU / 16u;                         // 16-k sub-units per unit (1 or 2)
const uint VPH = QUANT ? 16u / WBITS : 1u;           // quantized values per 16-bit half-word
const uint QMASK = (1u << WBITS) - 1u;
const uint SIGNFLIP = WSIGNED ? (WBITS == 4u ? 0x88888888u : 0x80808080u) : 0u;

float xv[32];  // activations of the current unit
uvec4 qw[8];   // quantized weight units of the ROWS rows
uvec4 qn[8];   // PREFETCH: the next unit's weights
uvec4 xn[8];   // PREFETCH: the next unit's activations, as stored

// Activations [16 * h, 16 * h + 16) of the unit starting at k = k0, into xv.
void load_x16(uint m, uint k0, uint h) {
#if A_BITS == 16
    uint i = pc.x_base + m * pc.x_stride + (k0 + 16u * h) / 8u;
    for (uint c = 0u; c < 2u; c++) {
        uvec4 q = x4[i + c];
        for (uint j = 0u; j < 4u; j++) {
            vec2 f = unpackHalf2x16(q[j]);
            xv[16u * h + c * 8u + j * 2u] = f.x;
            xv[16u * h + c * 8u + j * 2u + 1u] = f.y;
        }
    }
#else
    uint i = pc.x_base + m * pc.x_stride + (k0 + 16u * h) / 4u;
    for (uint c = 0u; c < 4u; c++) {
        vec4 f = uintBitsToFloat(x4[i + c]);
        xv[16u * h + c * 4u] = f.x; xv[16u * h + c * 4u + 1u] = f.y;
        xv[16u * h + c * 4u + 2u] = f.z; xv[16u * h + c * 4u + 3u] = f.w;
    }
#endif
}

// ---- float weights ---------------------------------------------------------------------------

float dot_float(uint row, uint u) {
    float acc = 0.0;
    if (WBITS == 16u) {
        uint i = pc.w_base + (row * pc.units + u) * 2u;
        for (uint h = 0u; h < 2u; h++) {
            uvec4 q = w4[i + h];
            for (uint j = 0u; j < 4u; j++) {
                vec2 f = unpackHalf2x16(q[j]);
                acc = fma(f.x, xv[h * 8u + j * 2u], acc);
                acc = fma(f.y, xv[h * 8u + j * 2u + 1u], acc);
            }
        }
    } else {
        uint i = pc.w_base + (row * pc.units + u) * 4u;
        for (uint h = 0u; h < 4u; h++) acc += dot(uintBitsToFloat(w4[i + h]), vec4(xv[h * 4u], xv[h * 4u + 1u], xv[h * 4u + 2u], xv[h * 4u + 3u]));
    }
    return acc;
}

// ---- quantized weights -----------------------------------------------------------------------

// Zero point of block index zi (elements of the zero-point dtype: 4 or 8 bits), as stored.
float zero_point(uint zi) {
    uint word = z_in[zi * WBITS / 32u];
    uint off = (zi * WBITS) % 32u;
    return WSIGNED ? float(bitfieldExtract(int(word), int(off), int(WBITS))) : float(bitfieldExtract(word, int(off), int(WBITS)));
}

// Block index along k of element k.
uint kblock(uint k) { return pc.kshift < 32u ? k >> pc.kshift : k / pc.block_k; }

// sum over the VPH values of each half of word w of (q - zp) * x, x from xv[xo..]: the low half
// holds k = xo .. xo + VPH - 1, the high half the next VPH.  nb[j] = -(2^(23 - j*WBITS) + zp).
float dot_word(uint w, uint xo, float nb[4], float acc) {
    uint hi = w >> 16u;
    for (uint j = 0u; j < VPH; j++) {
        float sc = uintBitsToFloat((127u - j * WBITS) << 23u); // 2^-(j*WBITS)
        uint mask = QMASK << (j * WBITS);
        acc = fma(fma(uintBitsToFloat((w & mask) | 0x4b000000u), sc, nb[j]), xv[xo + j], acc);
        acc = fma(fma(uintBitsToFloat((hi & mask) | 0x4b000000u), sc, nb[j]), xv[xo + VPH + j], acc);
    }
    return acc;
}

// Scale and negated biases of scale / zero-point element bi.
float block_terms(uint bi, out float nb[4]) {
    float zp = (WSIGNED ? float(1u << (WBITS - 1u)) : 0.0) + (HAS_ZP ? zero_point(pc.z_base + bi) : 0.0);
    for (uint j = 0u; j < 4u; j++) nb[j] = -(float(1u << (23u - min(j * WBITS, 23u))) + zp);
    return float(s_in[pc.s_base + bi]);
}

// Weights of unit u of rows first .. first + ROWS - 1 (clamped) into q.
void load_units(uint u, uint first, out uvec4 q[8]) {
    for (uint r = 0u; r < ROWS; r++) {
        uint row = min(first + r, pc.rows - 1u);
        if (QWORDS == 4u) q[r] = w4[pc.w_base + row * pc.units + u];
        else q[r] = uvec4(w2[pc.w_base + row * pc.units + u], 0u, 0u);
    }
}

// PREFETCH: the activations of the unit starting at k0, as stored (KPU * A_BITS / 128 uvec4).
void load_x_raw(uint m, uint k0) {
    uint i = pc.x_base + m * pc.x_stride + k0 * A_BITS / 128u;
    for (uint c = 0u; c < KPU * A_BITS / 128u; c++) xn[c] = x4[i + c];
}

// PREFETCH: xv from the stored activations xn.
void unpack_x_raw() {
    for (uint c = 0u; c < KPU * A_BITS / 128u; c++) {
#if A_BITS == 16
        for (uint j = 0u; j < 4u; j++) {
            vec2 f = unpackHalf2x16(xn[c][j]);
            xv[c * 8u + j * 2u] = f.x;
            xv[c * 8u + j * 2u + 1u] = f.y;
        }
#else
        vec4 f = uintBitsToFloat(xn[c]);
        xv[c * 4u] = f.x; xv[c * 4u + 1u] = f.y; xv[c * 4u + 2u] = f.z; xv[c * 4u + 3u] = f.w;
#endif
    }
}

// Unit u (k from u * KPU) of rows first .. first + ROWS - 1 (clamped) into acc; the weights in qw
// and the activations in xv already when `loaded`.
void quant_unit(uint m, uint u, uint first, uint rbase[8], bool loaded, inout float acc[8]) {
    uint k0 = u * KPU;
    if (!loaded) {
        load_units(u, first, qw);
        for (uint h = 0u; h < SUBS; h++) load_x16(m, k0, h);
    }
    uint kb0 = kblock(k0) * pc.s_k, kb1 = SPLIT && SUBS > 1u ? kblock(k0 + 16u) * pc.s_k : kb0;
    for (uint r = 0u; r < ROWS; r++) {
        uvec4 w = qw[r] ^ uvec4(SIGNFLIP);
        float nb0[4], nb1[4];
        float s0 = block_terms(rbase[r] + kb0, nb0);
        if (SUBS == 1u || !SPLIT) {
            float a = 0.0;
            for (uint i = 0u; i < QWORDS; i++) a = dot_word(w[i], i * 2u * VPH, nb0, a);
            acc[r] = fma(s0, a, acc[r]);
        } else {
            float s1 = block_terms(rbase[r] + kb1, nb1);
            float a0 = 0.0, a1 = 0.0;
            for (uint i = 0u; i < QWORDS / 2u; i++) a0 = dot_word(w[i], i * 2u * VPH, nb0, a0);
            for (uint i = QWORDS / 2u; i < QWORDS; i++) a1 = dot_word(w[i], i * 2u * VPH, nb1, a1);
            acc[r] = fma(s0, a0, fma(s1, a1, acc[r]));
        }
    }
}

void float_unit(uint m, uint u, uint first, inout float acc[8]) {
    load_x16(m, u * 16u, 0u);
    for (uint r = 0u; r < ROWS; r++) acc[r] += dot_float(min(first + r, pc.rows - 1u), u);
}

void main() {
    uint tid = gl_LocalInvocationID.x;
    uint first = flat_group() * ROWS;
    uint m = gl_WorkGroupID.z;
    float acc[8];
    for (uint r = 0u; r < ROWS; r++) acc[r] = 0.0;
    if (first >= pc.rows) return; // whole workgroup: the grid is rounded up
    uint nrows = min(ROWS, pc.rows - first);
    // scale / zero-point element of each row's block 0 (divisions hoisted out of the loop)
    uint rbase[8];
    for (uint r = 0u; r < ROWS; r++) rbase[r] = QUANT ? ((pc.row0 + min(first + r, pc.rows - 1u)) / pc.block_n) * pc.s_n : 0u;
    uint wgs = gl_WorkGroupSize.x, u = tid;
    if (QUANT && PREFETCH) {
        // software pipeline: the next unit's weights and activations load while this one computes
        if (u < pc.units) {
            load_units(u, first, qn);
            load_x_raw(m, u * KPU);
        }
        for (; u < pc.units; u += wgs) {
            for (uint r = 0u; r < ROWS; r++) qw[r] = qn[r];
            unpack_x_raw();
            uint un = min(u + wgs, pc.units - 1u); // past the end: reload the last unit (unused)
            load_units(un, first, qn);
            load_x_raw(m, un * KPU);
            quant_unit(m, u, first, rbase, true, acc);
        }
    }
    for (; u + wgs < pc.units; u += 2u * wgs) {
        if (QUANT) {
            quant_unit(m, u, first, rbase, false, acc);
            quant_unit(m, u + wgs, first, rbase, false, acc);
        } else {
            float_unit(m, u, first, acc);
            float_unit(m, u + wgs, first, acc);
        }
    }
    if (u < pc.units) {
        if (QUANT) quant_unit(m, u, first, rbase, false, acc);
        else float_unit(m, u, first, acc);
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
