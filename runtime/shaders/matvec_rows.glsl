// matvec_rows.glsl - y[m, n] = sum_k x[m, k] * W[n, k] for weights stored ROW-major [N, K] (each
// output row n reads one contiguous run of K weights): the fast M == 1 (small M) path of matmul
// with a constant B (k_matvec.c).  Included by matvec_rows.comp (HALF_DOT 0) and
// matvec_rows_half.comp (HALF_DOT 1).  Weight formats (spec constant WBITS):
//   16 / 32  float weights of the activation type (f16 / f32), no scale;
//   4 / 8    integers dequantized in registers: (q - zeroPoint) * scale, the scale and zero point
//            of block (n / block_n, k / block_k); 4-bit rows are packed two per byte, low nibble
//            first (the ONNX / llama.cpp / MatMulNBits layout).  An absent zero point is 0
//            (2^(bits-1) for signed values, ZP_ABSENT for matmulNBits' unsigned ones).
// Optional bias (HAS_BIAS): y[m, n] += bias[n].
// Optional residual (RESIDUAL, not NORM_PROJ): y[m, n] = y[m, n] rounded to A_T + res[m, n] (+ res_bias[n]
// when RESIDUAL 2), summed in f32 in that order: the skip sum of a normalized projection that reads y
// (runtime/plan_residual.c), done here once per element instead of by each of its row groups.
// Work: an invocation takes one "unit" of consecutive k for ROWS rows at once (one activation load
// serves ROWS rows; rows past the end are clamped, not branched, so loads stay in one block):
//   float weights  16 k per unit (f16: 2 uvec4, f32: 4 uvec4);
//   quantized      16 bytes per unit (uvec4: 32 int4 or 16 int8), or 8 bytes (uvec2: 16 int4) when
//                  4-bit rows are not 16-byte aligned (K % 32 != 0; QLAYOUT bit 0).  The scale and
//                  zero point are read once per unit and row (once per 16 k when a block boundary
//                  can fall inside a unit: QLAYOUT bit 1).
// A quantized unit is loaded whole (weights, activations as stored, scales, zero-point words)
// before it is computed, one unit per loop iteration (float weights: two).  Two quantized units per
// iteration let the compiler hold both units' loads at once: 96 registers instead of 80 for the
// float16-pair kernel of 4 rows, so fewer resident workgroups: at 16384 x 16384, 67.6 -> 69.7% of
// copy with zero points and 72.0 -> 74.4% without (H200, `bench matvec-int4`, both binaries in one
// call); Qwen2-0.5B decode 1220 -> 1233 tok/s after 128 tokens.  The sums are the same, in the same order.
// The invocations of a row group split its units: the whole workgroup (TPR 0), reduced through
// subgroupAdd and shared memory; or (CLUSTER, quantized weights) TPR invocations, several row
// groups per workgroup, reduced with subgroupShuffleXor within the group, no shared memory or
// barrier (k_matvec.c work_split says where each is faster).
// Dequantization without shifts or integer-to-float conversions (HALF_DOT 0, exact, f32): value j
// of a 16-bit half-word h is masked in place, (h & (QMASK << j*WBITS)) | 0x4b000000 is the float
// 2^23 + q * 2^(j*WBITS) (below 2^24, so exact), and fma(that, 2^-(j*WBITS), -(2^(23 - j*WBITS) +
// zp)) = q - zp exactly; the zero point itself becomes the float 2^23 + zp the same way.  Signed
// values are offset to unsigned by flipping their sign bits (q ^ 8 = q + 8 for int4), which the
// zero-point term takes back.  f32 accumulation; the unit's sum is scaled once.  The exact kernels
// without NORM_PROJ (matvec_rows.comp, matvec_rows_pick.comp) run it word by word
// (compute_unit_words): a word's activations are converted just before the rows take it, so 8 of
// them are live instead of the unit's 32; the same operations in the same order.  H200, `bench
// matvec-int4 --size 896 --rows 151936` (the vocabulary head's shape) with WEBNNC_MATVEC_HALF=0, the
// same call: 55 -> 40 registers, 37.8 -> 34.6 us with zero points, 32.6 -> 31.8 without; 4096 x 4096
// without 3.99 -> 3.86 us; `generate` within its run-to-run spread.  In the float16-pair kernel (its
// exact fallback) the same form cost 1-6 points of copy although it never runs there: it stays on
// dot_exact.
// HALF_DOT 1 (4-bit weights, float16 activations, devices with float16 arithmetic): two nibbles at
// a time as float16 pairs, (w & 0x000F000F) | 0x64006400 = (1024 + q0, 1024 + q4); one f16 fma
// turns them into (q - zp) / 16 exactly; the products with x are summed in f16 pairs over the
// whole unit (per pair lane at most 16 (for 8-byte units 8) products of |q - zp| / 16 <= 15 / 16,
// so no overflow below |x| = 4367), then once in f32; an invocation whose row sums end up not
// finite computes its units again in the exact form (outside the hot loop: a check inside it cost
// a third of the speed on an H100).  Summing over the unit instead of converting each word's four
// products (two f16-to-f32 conversions and two adds per word and row fewer), H200, `bench`, the
// same call, % of copy: 4096 x 4096 without zero points 70.5 -> 75.9, with 67.0 -> 69.5; 16384 x
// 16384 73.9 -> 80.8 and 69.2 -> 72.3.  Zero-point variants measured slower and left out: the
// pair terms b0 / b1 built from the zero point's bits with integer operations (63.6 against 69.3
// at 4096), the zero point applied as a correction (8 - zp) * sum(x) after a fixed-offset product
// (68.2 against 69.0), per-row nibble offsets hoisted out of the loop (65.1 against 69.3), the rows
// of a group sharing one nibble offset (+0.5 at 4096, -1.5 at 16384).  Skipping the zero-point
// loads altogether (wrong results) reached only 72.2 / 74.0: the rest of the gap to the kernel
// without zero points is the per-row zero-point arithmetic.  Both go with the zero points paired
// with the scales at load time (SZ_PAIRED; k_matvec.c kmatvec_pairs_scales has the figures): one
// word per row and block whose high half is the float16 b1 itself, b0 = b1 - 60.
// TPR 0: the workgroup reduces with subgroupAdd then shared memory (or shared memory only without
// subgroup arithmetic).  Grid: x/y fold the workgroups of this dispatch (flat_group; one row group
// each, or size / TPR), z = row m.
// NORM_PROJ 1 (matvec_rows_norm.comp: qkvProjection / gatedMlp at decode, quantized weights, exact
// f32): the activations are v = x (+ skip (+ skipBias)) and the product is taken with v * normScale;
// the sum of v^2 over k is accumulated alongside (every k of row m passes through exactly one
// invocation of the workgroup) and reduced with the rows, so y = inv_rms * (v * normScale) . W
// + bias with inv_rms = 1 / sqrt(sum v^2 / K + eps): one pass over x, no separate norm.  The
// workgroups of row group 0 write v to the sum output (NP_FLAGS 4).  Gated (NP_FLAGS 8): the
// workgroup's ROWS accumulators are ROWS / 2 gate rows c and their up rows half_n + c, and column c
// is act(gate) * up.  Up to 3 outputs (qkv splits): weight row n goes to the split it falls in.
// PICK 1 (matvec_rows_pick.comp: the vocabulary head of a device-loop decode step, one activation
// row; runtime/loop.c): the greedy pick of next_token.comp in the epilogue.  Each workgroup keeps the
// first index of the largest of its logits as stored (NaN never wins), merges its subgroups' picks
// and puts (order-preserving key << 32 | ~index) into a 64-bit atomicMax, so that the largest value
// and, among equal ones, the smallest index wins whatever the order of arrival; a NaN logit 0 sets
// a flag (the host's strict comparison then answers 0).  The workgroup whose arrival completes the
// count writes the token as next_token.comp does (the ring entry, the next step's input_ids,
// position_ids and attention_mask element) and sets the words back to zero.  No workgroup returns
// early: every one of the grid arrives.
#include "common.glsl"
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_KHR_shader_subgroup_shuffle : enable

layout(constant_id = 1) const uint ROWS = 2;        // output rows per row group (<= 8)
layout(constant_id = 2) const uint WBITS = 16;      // 4, 8, 16, 32
layout(constant_id = 3) const bool WSIGNED = false; // quantized values are signed (int4 / int8)
layout(constant_id = 4) const bool HAS_ZP = false;
layout(constant_id = 5) const bool SG_REDUCE = true; // subgroupAdd available
layout(constant_id = 6) const uint SLOTS = 64;       // shared slots per row (>= subgroups or invocations)
layout(constant_id = 7) const uint QLAYOUT = 0u;     // quantized: bit 0 uvec2 units, bit 1 blocks split units
layout(constant_id = 8) const uint ZP_ABSENT = 0u;   // unsigned weights without zero points: this one (matmulNBits: 2^(bits-1))
layout(constant_id = 9) const bool HAS_BIAS = false; // y += bias[n] (binding 5)
#ifndef NORM_PROJ
#define NORM_PROJ 0
#endif
#ifndef PICK
#define PICK 0
#endif
layout(constant_id = 10) const uint NP_FLAGS = 0u;   // NORM_PROJ: 1 skip, 2 skipBias, 4 sum output, 8 gated,
                                                     // 16 * gatedMlp activation (activation_math.glsl)
layout(constant_id = 11) const uint NP_SPLITS = 1u;  // NORM_PROJ: outputs (qkvProjection splits, 1..3)
layout(constant_id = 12) const uint TPR = 0u;        // invocations per row group (a power of two dividing the
                                                     // subgroup size; needs subgroupShuffleXor); 0: the workgroup
layout(constant_id = 13) const uint RESIDUAL = 0u; // not NORM_PROJ: 1 y += res (binding 6), 2 also += res_bias (binding 7)
const bool CLUSTER = TPR != 0u;
// The weights' geometry fixed at pipeline creation where the host knows it (common.glsl FIXED_OR):
// constant loop bounds and index arithmetic instead of loads and integer divisions.
layout(constant_id = 14) const uint FIX_UNITS = 0u;   // pc.units
layout(constant_id = 15) const uint FIX_KSHIFT = 0u;  // pc.kshift + 1
layout(constant_id = 16) const uint FIX_BLOCK_N = 0u; // pc.block_n
layout(constant_id = 17) const uint FIX_S_N = 0u;     // pc.s_n + 1
layout(constant_id = 18) const uint FIX_S_K = 0u;     // pc.s_k + 1
// Zero points paired with the scales (HAS_ZP, 4-bit; k_matvec.h sz_paired): binding 2 holds one
// word per block, the float16 scale in its low half and the float16 -(4 + zp / 16) in its high half
// (zp offset to unsigned), so that a row's unit reads one word for both and the float16-pair dot
// takes its offsets from it without conversions; binding 3 is not read.
layout(constant_id = 19) const bool SZ_PAIRED = false;
#define MV_UNITS FIXED_OR(FIX_UNITS, pc.units)
#define MV_KSHIFT FIXED1_OR(FIX_KSHIFT, pc.kshift)
#define MV_BLOCK_N FIXED_OR(FIX_BLOCK_N, pc.block_n)
#define MV_S_N FIXED1_OR(FIX_S_N, pc.s_n)
#define MV_S_K FIXED1_OR(FIX_S_K, pc.s_k)

PARAMS_BLOCK PC {
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
    uint b_base;    // bias element index of bias[0] (HAS_BIAS)
    uint r_base, rb_base; // RESIDUAL: element index of res[0, 0] and res_bias[0]
    // NORM_PROJ only
    float eps;
    uint g_base, skip_base, sb_base, sum_base; // uvec4 index of normScale[0], skip[0, 0], skipBias[0], sum[0, 0]
    uint half_n;                               // gated: gate rows (= output columns)
    uint split1, split2;                       // first weight row of outputs 1 and 2
    uint y1_base, y2_base;                     // output element index of outputs 1 and 2
#if PICK
    // PICK only: the ring entry, position and flags of the picked token (token_pick.glsl
    // write_token), and the first of the pick's four words in binding 12 (even: arrivals, NaN flag,
    // 64-bit best)
    uint pick_slot, pick_pos, pick_flags, pick_ws;
#endif
} pc;

layout(std430, binding = 0) readonly buffer X { uvec4 x4[]; };
layout(std430, binding = 1) readonly buffer W4 { uvec4 w4[]; };
layout(std430, binding = 1) readonly buffer W2 { uvec2 w2[]; };
layout(std430, binding = 2) readonly buffer S { A_T s_in[]; };
layout(std430, binding = 2) readonly buffer S32 { uint sz_in[]; };
layout(std430, binding = 3) readonly buffer Z { uint z_in[]; };
layout(std430, binding = 4) writeonly buffer Y { A_T y_out[]; };
layout(std430, binding = 5) readonly buffer Bi { A_T bias_in[]; };
#if NORM_PROJ
layout(std430, binding = 6) readonly buffer G { uvec4 g4[]; };
layout(std430, binding = 7) readonly buffer Sk { uvec4 skip4[]; };
layout(std430, binding = 8) readonly buffer Sb { uvec4 sb4[]; };
layout(std430, binding = 9) writeonly buffer Sum { uvec4 sum4[]; };
layout(std430, binding = 10) writeonly buffer Y1 { A_T y1_out[]; };
layout(std430, binding = 11) writeonly buffer Y2 { A_T y2_out[]; };
const bool NP_SKIP = (NP_FLAGS & 1u) != 0u, NP_SKIP_BIAS = (NP_FLAGS & 2u) != 0u;
const bool NP_SUM = (NP_FLAGS & 4u) != 0u, NP_GATED = (NP_FLAGS & 8u) != 0u;
const uint NP_GATE_ACT = (NP_FLAGS >> 4) & 3u;
#include "activation_math.glsl"
#else
const bool NP_SKIP = false, NP_SKIP_BIAS = false, NP_SUM = false, NP_GATED = false;
layout(std430, binding = 6) readonly buffer R { A_T res_in[]; };
layout(std430, binding = 7) readonly buffer Rb { A_T res_bias_in[]; };
#endif
#if PICK
layout(std430, binding = 8) buffer PIds { uint ids_w[]; };
layout(std430, binding = 9) buffer PPos { uint pos_w[]; };
layout(std430, binding = 10) buffer PMask { uint mask_w[]; };
layout(std430, binding = 11) buffer PRing { uint ring[]; };
layout(std430, binding = 12) coherent buffer PWs { uint pick_ws32[]; };
layout(std430, binding = 12) coherent buffer PWs64 { uint64_t pick_ws64[]; };
#include "token_pick.glsl"
#endif

shared float red[(NORM_PROJ != 0 ? 9 : 8) * SLOTS]; // NORM_PROJ: slot row 8 reduces sum v^2

const bool QUANT = WBITS <= 8u;
const uint QWORDS = (QLAYOUT & 1u) != 0u ? 2u : 4u; // 32-bit words per quantized unit
const bool SPLIT = (QLAYOUT & 2u) != 0u;
const uint KPU = QUANT ? QWORDS * 32u / WBITS : 16u; // k per unit
const uint SUBS = KPU / 16u;                         // 16-k sub-units per unit (1 or 2)
const uint VPH = QUANT ? 16u / WBITS : 1u;           // quantized values per 16-bit half-word
const uint QMASK = (1u << WBITS) - 1u;
const uint SIGNFLIP = WSIGNED ? (WBITS == 4u ? 0x88888888u : 0x80808080u) : 0u;
const uint XVECS = KPU * A_BITS / 128u;              // uvec4 of activations per unit (2 .. 8)
const bool HALF = HALF_DOT != 0 && WBITS == 4u && A_BITS == 16;

// One quantized unit of ROWS rows, as loaded: weights, activations as stored, and per row the
// scale and the zero-point word of its block(s) (index 1: the second block of a split unit).
struct Unit {
    uvec4 q[8];
    uvec4 x[8];
    float s[8][2];
    uint z[8][2];
#if NORM_PROJ
    uvec4 g[8], sk[8], sb[8]; // normScale, skip, skipBias of the unit's k
#endif
};

float xv[32]; // activations of a float-weight unit, or of the quantized unit being computed
float ssq = 0.0; // NORM_PROJ: this invocation's sum of v^2
uint row_group;  // the row group this invocation computes (main)

// The activations of one stored uvec4 (8 float16 or 4 float32) into xv[at ..] as f32.
const uint XPV = 128u / A_BITS; // activations per uvec4
void put_x(uint at, uvec4 q) {
#if A_BITS == 16
    for (uint j = 0u; j < 4u; j++) {
        vec2 f = unpackHalf2x16(q[j]);
        xv[at + j * 2u] = f.x;
        xv[at + j * 2u + 1u] = f.y;
    }
#else
    vec4 f = uintBitsToFloat(q);
    xv[at] = f.x; xv[at + 1u] = f.y; xv[at + 2u] = f.z; xv[at + 3u] = f.w;
#endif
}

// Activations [k0, k0 + 16) of row m into xv[0 .. 16).
void load_x16(uint m, uint k0) {
    uint i = pc.x_base + m * pc.x_stride + k0 / XPV;
    for (uint c = 0u; c < 16u / XPV; c++) put_x(c * XPV, x4[i + c]);
}

// ---- float weights ---------------------------------------------------------------------------

float dot_float(uint row, uint u) {
    float acc = 0.0;
    if (WBITS == 16u) {
        uint i = pc.w_base + (row * MV_UNITS + u) * 2u;
        for (uint h = 0u; h < 2u; h++) {
            uvec4 q = w4[i + h];
            for (uint j = 0u; j < 4u; j++) {
                vec2 f = unpackHalf2x16(q[j]);
                acc = fma(f.x, xv[h * 8u + j * 2u], acc);
                acc = fma(f.y, xv[h * 8u + j * 2u + 1u], acc);
            }
        }
    } else {
        uint i = pc.w_base + (row * MV_UNITS + u) * 4u;
        for (uint h = 0u; h < 4u; h++) acc += dot(uintBitsToFloat(w4[i + h]), vec4(xv[h * 4u], xv[h * 4u + 1u], xv[h * 4u + 2u], xv[h * 4u + 3u]));
    }
    return acc;
}

void float_unit(uint m, uint u, uint wrow[8], inout float acc[8]) {
    load_x16(m, u * 16u);
    for (uint r = 0u; r < ROWS; r++) acc[r] += dot_float(wrow[r], u);
}

// ---- quantized weights -----------------------------------------------------------------------

// Block index along k of element k.
uint kblock(uint k) { return MV_KSHIFT < 32u ? k >> MV_KSHIFT : k / pc.block_k; }

// Zero point of block element zi, offset to unsigned (+8 / +128 when signed), from its 32-bit word.
uint zero_point(uint word, uint zi) {
    if (HAS_ZP && SZ_PAIRED) return uint(-16.0 * unpackHalf2x16(word).y - 64.0);
    if (!HAS_ZP) return WSIGNED ? 1u << (WBITS - 1u) : ZP_ABSENT;
    return ((word >> ((zi * WBITS) % 32u)) & QMASK) ^ (WSIGNED ? 1u << (WBITS - 1u) : 0u);
}

// Loads unit u (k from u * KPU) of weight rows wrow[0 .. ROWS - 1].
void load_unit(uint m, uint u, uint wrow[8], uint rbase[8], out Unit t) {
    uint k0 = u * KPU;
    for (uint r = 0u; r < ROWS; r++) {
        if (QWORDS == 4u) t.q[r] = w4[pc.w_base + wrow[r] * MV_UNITS + u];
        else t.q[r] = uvec4(w2[pc.w_base + wrow[r] * MV_UNITS + u], 0u, 0u);
    }
    uint xi = pc.x_base + m * pc.x_stride + k0 * A_BITS / 128u;
    for (uint c = 0u; c < XVECS; c++) t.x[c] = x4[xi + c];
#if NORM_PROJ
    uint gi = k0 * A_BITS / 128u, si = m * pc.x_stride + gi;
    for (uint c = 0u; c < XVECS; c++) {
        t.g[c] = g4[pc.g_base + gi + c];
        t.sk[c] = NP_SKIP ? skip4[pc.skip_base + si + c] : uvec4(0u);
        t.sb[c] = NP_SKIP_BIAS ? sb4[pc.sb_base + gi + c] : uvec4(0u);
    }
#endif
    uint kb[2] = uint[2](kblock(k0) * MV_S_K, SPLIT && SUBS > 1u ? kblock(k0 + 16u) * MV_S_K : 0u);
    for (uint r = 0u; r < ROWS; r++)
        for (uint b = 0u; b < (SPLIT && SUBS > 1u ? 2u : 1u); b++) {
            uint bi = rbase[r] + kb[b];
            if (HAS_ZP && SZ_PAIRED) {
                uint word = sz_in[pc.s_base + bi];
                t.s[r][b] = unpackHalf2x16(word).x;
                t.z[r][b] = word;
            } else {
                t.s[r][b] = float(s_in[pc.s_base + bi]);
                t.z[r][b] = HAS_ZP ? z_in[(pc.z_base + bi) * WBITS / 32u] : 0u;
            }
        }
}

#if HALF_DOT
// sum over the 8 values of word w of (q - zp) / 16 * x, x = the 8 float16 of xq (k in order), added
// to acc as float16 pairs (k < 4 in .x, k >= 4 in .y); b0 / b1 = -(64 + zp / 16) / -(4 + zp / 16) as
// float16 pairs.
f16vec2 dot_word_half(uint w, uvec4 xq, f16vec2 b0, f16vec2 b1, f16vec2 acc) {
    uint w8 = w >> 8u;
    f16vec2 d0 = fma(unpackFloat2x16((w & 0x000F000Fu) | 0x64006400u), f16vec2(0.0625), b0);   // (q0, q4)
    f16vec2 d1 = fma(unpackFloat2x16((w & 0x00F000F0u) | 0x64006400u), f16vec2(0.00390625), b1); // (q1, q5)
    f16vec2 d2 = fma(unpackFloat2x16((w8 & 0x000F000Fu) | 0x64006400u), f16vec2(0.0625), b0);  // (q2, q6)
    f16vec2 d3 = fma(unpackFloat2x16((w8 & 0x00F000F0u) | 0x64006400u), f16vec2(0.00390625), b1); // (q3, q7)
    f16vec2 s = fma(d0, unpackFloat2x16((xq.x & 0xffffu) | (xq.z << 16u)), acc);  // (x0, x4)
    s = fma(d1, unpackFloat2x16((xq.x >> 16u) | (xq.z & 0xffff0000u)), s);       // (x1, x5)
    s = fma(d2, unpackFloat2x16((xq.y & 0xffffu) | (xq.w << 16u)), s);           // (x2, x6)
    s = fma(d3, unpackFloat2x16((xq.y >> 16u) | (xq.w & 0xffff0000u)), s);       // (x3, x7)
    return s;
}

// sum over words [i0, i1) of row r's weights: word i pairs with activation vector i.  The float16
// pairs accumulate over all the words and are converted to f32 once.
float dot_half_b(uvec4 w, const Unit t, f16vec2 b0, f16vec2 b1, uint i0, uint i1) {
    f16vec2 s = f16vec2(0.0);
    for (uint i = i0; i < i1; i++) s = dot_word_half(w[i], t.x[i], b0, b1, s);
    vec2 f = vec2(s);
    return (f.x + f.y) * 16.0;
}

float dot_half(uvec4 w, const Unit t, uint zp, uint i0, uint i1) {
    float z16 = float(zp) * 0.0625;
    return dot_half_b(w, t, f16vec2(float16_t(-(64.0 + z16))), f16vec2(float16_t(-(4.0 + z16))), i0, i1);
}

// dot_half with the offsets of a paired scale word (SZ_PAIRED): b1 from its high half, b0 = b1 - 60.
float dot_half_paired(uvec4 w, const Unit t, uint word, uint i0, uint i1) {
    f16vec2 b1 = unpackFloat2x16((word >> 16u) | (word & 0xffff0000u));
    return dot_half_b(w, t, b1 - f16vec2(60.0), b1, i0, i1);
}
#endif

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

// The dequantization offsets of dot_word for zero point zp: nb[j] = -(2^(23 - j*WBITS) + zp).
void word_offsets(uint zp, out float nb[4]) {
    float zf = uintBitsToFloat(0x4b000000u | zp); // 2^23 + zp
    for (uint j = 0u; j < 4u; j++) nb[j] = (8388608.0 - float(1u << (23u - min(j * WBITS, 23u)))) - zf;
}

// sum over words [i0, i1) of (q - zp) * x (exact dequantization, f32).
float dot_exact(uvec4 w, uint zp, uint i0, uint i1) {
    float nb[4];
    word_offsets(zp, nb);
    float a = 0.0;
    for (uint i = i0; i < i1; i++) a = dot_word(w[i], i * 2u * VPH, nb, a);
    return a;
}

#if NORM_PROJ
// xv[at ..] as stored (A_T), one uvec4.
uvec4 pack_x(uint at) {
#if A_BITS == 16
    uvec4 q;
    for (uint j = 0u; j < 4u; j++) q[j] = packHalf2x16(vec2(xv[at + j * 2u], xv[at + j * 2u + 1u]));
    return q;
#else
    return floatBitsToUint(vec4(xv[at], xv[at + 1u], xv[at + 2u], xv[at + 3u]));
#endif
}
#endif

// The activations of unit t as f32, into xv.  NORM_PROJ: v = x (+ skip (+ skipBias)) is added to
// ssq (and written to the sum output when `write_sum`), then xv = v * normScale.
void unpack_x(const Unit t, uint m, uint u, bool write_sum) {
    for (uint c = 0u; c < XVECS; c++) put_x(c * XPV, t.x[c]);
#if NORM_PROJ
    float g[32];
    for (uint c = 0u; c < XVECS; c++) {
        uint at = c * XPV;
        if (NP_SKIP) {
            for (uint j = 0u; j < XPV; j++) g[j] = xv[at + j];
            put_x(at, t.sk[c]);
            for (uint j = 0u; j < XPV; j++) xv[at + j] += g[j];
        }
        if (NP_SKIP_BIAS) {
            for (uint j = 0u; j < XPV; j++) g[j] = xv[at + j];
            put_x(at, t.sb[c]);
            for (uint j = 0u; j < XPV; j++) xv[at + j] += g[j];
        }
        if (NP_SUM && write_sum) sum4[pc.sum_base + m * pc.x_stride + u * XVECS + c] = pack_x(at);
    }
    for (uint j = 0u; j < XVECS * XPV; j++) ssq = fma(xv[j], xv[j], ssq);
    for (uint c = 0u; c < XVECS; c++) {
        uint at = c * XPV;
        for (uint j = 0u; j < XPV; j++) g[j] = xv[at + j];
        put_x(at, t.g[c]);
        for (uint j = 0u; j < XPV; j++) xv[at + j] *= g[j];
    }
#endif
}

#if !NORM_PROJ && !HALF_DOT
// compute_unit's exact form word by word (not NORM_PROJ): each word's activations converted just
// before every row takes that word, so that a word's 2 * VPH activations are live instead of the
// unit's; per row the same operations in the same order as dot_exact.
void compute_unit_words(const Unit t, uint rbase[8], uint bi0, uint bi1, bool two, uint mid, inout float acc[8]) {
    float nb0[8][4], nb1[8][4], a0[8], a1[8];
    for (uint r = 0u; r < ROWS; r++) {
        word_offsets(zero_point(t.z[r][0], pc.z_base + rbase[r] + bi0), nb0[r]);
        if (two) word_offsets(zero_point(t.z[r][1], pc.z_base + rbase[r] + bi1), nb1[r]);
        a0[r] = 0.0;
        a1[r] = 0.0;
    }
    for (uint i = 0u; i < QWORDS; i++) {
        uint k0 = i * 2u * VPH; // the word's first activation in the unit
        for (uint c = k0 / XPV; c * XPV < k0 + 2u * VPH; c++)
            if (c * XPV >= k0) put_x(c * XPV, t.x[c]);
        for (uint r = 0u; r < ROWS; r++) {
            uint w = t.q[r][i] ^ SIGNFLIP;
            if (i < mid) a0[r] = dot_word(w, k0, nb0[r], a0[r]);
            else a1[r] = dot_word(w, k0, nb1[r], a1[r]);
        }
    }
    for (uint r = 0u; r < ROWS; r++) acc[r] = fma(t.s[r][0], a0[r], two ? fma(t.s[r][1], a1[r], acc[r]) : acc[r]);
}
#endif

// Adds unit t (k from u * KPU) of rows first .. first + ROWS - 1 to acc: float16 pairs when
// `use_half`, else exact.
void compute_unit(uint m, uint u, const Unit t, uint rbase[8], bool use_half, inout float acc[8]) {
    bool two = SPLIT && SUBS > 1u;
    uint bi0 = kblock(u * KPU) * MV_S_K, bi1 = two ? kblock(u * KPU + 16u) * MV_S_K : bi0;
    uint mid = two ? QWORDS / 2u : QWORDS;
#if !NORM_PROJ && !HALF_DOT
    if (!use_half) {
        compute_unit_words(t, rbase, bi0, bi1, two, mid, acc);
        return;
    }
#endif
    if (!use_half) unpack_x(t, m, u, row_group == 0u);
    for (uint r = 0u; r < ROWS; r++) {
        uvec4 w = t.q[r] ^ uvec4(SIGNFLIP);
        uint z0 = zero_point(t.z[r][0], pc.z_base + rbase[r] + bi0);
        uint z1 = two ? zero_point(t.z[r][1], pc.z_base + rbase[r] + bi1) : z0;
        float a0, a1 = 0.0;
#if HALF_DOT
        if (use_half && HAS_ZP && SZ_PAIRED) {
            a0 = dot_half_paired(w, t, t.z[r][0], 0u, mid);
            if (two) a1 = dot_half_paired(w, t, t.z[r][1], mid, QWORDS);
        } else if (use_half) {
            a0 = dot_half(w, t, z0, 0u, mid);
            if (two) a1 = dot_half(w, t, z1, mid, QWORDS);
        } else
#endif
        {
            a0 = dot_exact(w, z0, 0u, mid);
            if (two) a1 = dot_exact(w, z1, mid, QWORDS);
        }
        acc[r] = fma(t.s[r][0], a0, two ? fma(t.s[r][1], a1, acc[r]) : acc[r]);
    }
}

// This invocation's units u0, u0 + wgs, ... of weight rows wrow[], added to acc (wgs: the
// invocations of a row group).
void run_units(uint m, uint u0, uint wrow[8], uint rbase[8], bool use_half, inout float acc[8]) {
    uint wgs = CLUSTER ? TPR : gl_WorkGroupSize.x, u = u0;
    if (QUANT) {
        Unit t;
        for (; u < MV_UNITS; u += wgs) {
            load_unit(m, u, wrow, rbase, t);
            compute_unit(m, u, t, rbase, use_half, acc);
        }
        return;
    }
    for (; u + wgs < MV_UNITS; u += 2u * wgs) {
        float_unit(m, u, wrow, acc);
        float_unit(m, u + wgs, wrow, acc);
    }
    if (u < MV_UNITS) float_unit(m, u, wrow, acc);
}

#if NORM_PROJ
// Output column n (a weight row; gated: a gate row) of activation row m into the output it belongs to.
void store(uint m, uint n, float v) {
    uint width = NP_GATED ? pc.half_n : pc.y_stride;
    if (NP_SPLITS > 2u && n >= pc.split2) {
        y2_out[pc.y2_base + m * (width - pc.split2) + n - pc.split2] = A_T(v);
    } else if (NP_SPLITS > 1u && n >= pc.split1) {
        uint end = NP_SPLITS > 2u ? pc.split2 : width;
        y1_out[pc.y1_base + m * (end - pc.split1) + n - pc.split1] = A_T(v);
    } else {
        uint end = NP_SPLITS > 1u ? pc.split1 : width;
        y_out[pc.y_base + m * end + n] = A_T(v);
    }
}
#endif

#if PICK
// This invocation's pick among the logits it wrote: the order-preserving key of the largest (0:
// none; NaN is never kept; -0 counts as +0, equal as the host compares them) and its first index;
// whether logit 0 is NaN.
uint pick_key = 0u, pick_n = 0xffffffffu;
bool pick_nan0 = false;
shared uint pick_sg_key[gl_WorkGroupSize.x], pick_sg_n[gl_WorkGroupSize.x]; // per subgroup (at most one per invocation)

// Whether (key, n) beats (best, bn): the larger key, among equal ones the smaller index (key 0: none).
bool pick_beats(uint key, uint n, uint best, uint bn) { return key > best || (key == best && key != 0u && n < bn); }

void pick_keep(float v, uint n) {
    uint key = isnan(v) ? 0u : key_of(v == 0.0 ? 0.0 : v);
    if (pick_beats(key, n, pick_key, pick_n)) pick_key = key, pick_n = n;
    if (n == 0u && isnan(v)) pick_nan0 = true;
}

// The workgroup's pick into the shared best, its arrival counted; the last to arrive writes the token.
void pick_finish() {
    uint tid = gl_LocalInvocationID.x, words = pc.pick_ws, best64 = words / 2u + 1u;
    uint key = subgroupMax(pick_key);
    uint n = subgroupMin(pick_key == key ? pick_n : 0xffffffffu);
    bool nan0 = subgroupMax(pick_nan0 ? 1u : 0u) != 0u;
    if (gl_SubgroupInvocationID == 0u) {
        pick_sg_key[gl_SubgroupID] = key;
        pick_sg_n[gl_SubgroupID] = n;
        if (nan0) atomicOr(pick_ws32[words + 1u], 1u);
    }
    memoryBarrierBuffer();
    barrier();
    if (tid != 0u) return;
    for (uint i = 1u; i < gl_NumSubgroups; i++) {
        uint k = pick_sg_key[i], j = pick_sg_n[i];
        if (pick_beats(k, j, key, n)) key = k, n = j;
    }
    if (key != 0u) {
        uint64_t packed = (uint64_t(key) << 32) | uint64_t(~n);
        if (pick_ws64[best64] < packed) atomicMax(pick_ws64[best64], packed);
    }
    memoryBarrierBuffer();
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
    if (atomicAdd(pick_ws32[words], 1u) != groups - 1u) return;
    memoryBarrierBuffer();
    uint64_t best = atomicExchange(pick_ws64[best64], 0ul);
    bool nan_first = atomicExchange(pick_ws32[words + 1u], 0u) != 0u;
    atomicExchange(pick_ws32[words], 0u);
    bool none = uint(best >> 32) == 0u;
    write_token(none || nan_first ? 0u : ~uint(best), none, pc.pick_slot, pc.pick_pos, pc.pick_flags);
}
#endif

// RESIDUAL: the residual (and its bias) of the output columns this invocation writes, by row of
// its row group (CLUSTER) or in slot 0, loaded ahead of the sums (prefetch_residual).
float res_pre[8], rb_pre[8];

void prefetch_residual(uint m, uint first, uint nrows, uint lane, uint outs) {
#if !NORM_PROJ
    for (uint r = 0u; r < outs; r++)
        if ((CLUSTER ? r % TPR == lane : r == lane) && r < nrows) {
            uint n = pc.row0 + first + r, slot = CLUSTER ? r : 0u;
            res_pre[slot] = float(res_in[pc.r_base + m * pc.y_stride + n]);
            if (RESIDUAL > 1u) rb_pre[slot] = float(res_bias_in[pc.rb_base + n]);
        }
#endif
}

// Output column n (row r of the row group) of activation row m from its reduced sums: s (gated:
// the gate row's), up (gated: the up row's), ss (NORM_PROJ: sum of v^2 over k).  PICK: the value
// as stored enters this invocation's pick.
void finish(uint m, uint r, uint n, float s, float up, float ss) {
#if NORM_PROJ
    float inv = 1.0 / sqrt(ss / float(MV_UNITS * KPU) + pc.eps);
    s *= inv;
    if (HAS_BIAS) s += float(bias_in[pc.b_base + n]);
    if (NP_GATED) {
        up *= inv;
        if (HAS_BIAS) up += float(bias_in[pc.b_base + pc.half_n + n]);
        s = gate_activation(NP_GATE_ACT, s) * up;
    }
    store(m, n, s);
#else
    if (HAS_BIAS) s += float(bias_in[pc.b_base + n]);
    if (RESIDUAL != 0u) {
        uint slot = CLUSTER ? r : 0u;
        s = a_round(s) + res_pre[slot];
        if (RESIDUAL > 1u) s += rb_pre[slot];
    }
#if PICK
    A_T stored = A_T(s);
    y_out[pc.y_base + m * pc.y_stride + n] = stored;
    pick_keep(float(stored), n);
#else
    y_out[pc.y_base + m * pc.y_stride + n] = A_T(s);
#endif
#endif
}

// Sum over the TPR invocations of a row group (CLUSTER).
float cluster_add(float v) {
    for (uint o = TPR / 2u; o > 0u; o >>= 1u) v += subgroupShuffleXor(v, o);
    return v;
}

void main() {
    uint tid = gl_LocalInvocationID.x;
    uint OUTS = NP_GATED ? ROWS / 2u : ROWS; // output columns per row group
    // CLUSTER: the workgroup holds size / TPR row groups of TPR invocations each
    uint lane = CLUSTER ? tid % TPR : tid;
    row_group = CLUSTER ? flat_group() * (gl_WorkGroupSize.x / TPR) + tid / TPR : flat_group();
    uint first = row_group * OUTS;
    uint m = gl_WorkGroupID.z;
    float acc[8];
    for (uint r = 0u; r < ROWS; r++) acc[r] = 0.0;
#if PICK
    bool live = first < pc.rows; // (every workgroup arrives: pick_finish)
    uint nrows = live ? min(OUTS, pc.rows - first) : 0u;
#else
    if (first >= pc.rows) return; // whole row group: the grid is rounded up
    uint nrows = min(OUTS, pc.rows - first);
#endif
    // weight row of each accumulator (clamped at the end: loads stay in bounds, results unused);
    // scale / zero-point element of its block 0 (divisions hoisted out of the loop)
    uint wrow[8], rbase[8];
    for (uint r = 0u; r < ROWS; r++) {
        wrow[r] = min(first + r % OUTS, pc.rows - 1u) + (r >= OUTS ? pc.half_n : 0u);
        rbase[r] = QUANT ? ((pc.row0 + wrow[r]) / MV_BLOCK_N) * MV_S_N : 0u;
    }
    if (RESIDUAL != 0u) prefetch_residual(m, first, nrows, lane, OUTS);
#if PICK
    if (live)
#endif
    run_units(m, lane, wrow, rbase, HALF, acc);
    if (HALF) {
        // a float16 partial overflowed (or x holds Inf / NaN): this invocation's units again, exactly
        bool finite = true;
        for (uint r = 0u; r < ROWS; r++) finite = finite && !isinf(acc[r]) && !isnan(acc[r]);
        if (!finite) {
            for (uint r = 0u; r < ROWS; r++) acc[r] = 0.0;
            run_units(m, lane, wrow, rbase, false, acc);
        }
    }
    if (CLUSTER) {
        // every invocation of the row group ends with all sums; invocation j writes columns j, j + TPR, ..
        for (uint r = 0u; r < ROWS; r++) acc[r] = cluster_add(acc[r]);
        if (NORM_PROJ != 0) ssq = cluster_add(ssq);
        for (uint r = 0u; r < OUTS; r++)
            if (r % TPR == lane && r < nrows) finish(m, r, pc.row0 + first + r, acc[r], NP_GATED ? acc[r + OUTS] : 0.0, ssq);
#if PICK
        pick_finish();
#endif
        return;
    }
    uint slot;
    if (SG_REDUCE) {
        for (uint r = 0u; r < ROWS; r++) acc[r] = subgroupAdd(acc[r]);
        if (NORM_PROJ != 0) ssq = subgroupAdd(ssq);
        slot = gl_SubgroupID;
        if (gl_SubgroupInvocationID == 0u) {
            for (uint r = 0u; r < ROWS; r++) red[r * SLOTS + slot] = acc[r];
            if (NORM_PROJ != 0) red[8u * SLOTS + slot] = ssq;
        }
    } else {
        slot = tid;
        for (uint r = 0u; r < ROWS; r++) red[r * SLOTS + slot] = acc[r];
        if (NORM_PROJ != 0) red[8u * SLOTS + slot] = ssq;
    }
    uint used = SG_REDUCE ? gl_NumSubgroups : gl_WorkGroupSize.x;
    barrier();
    if (tid < nrows) {
        float s = 0.0, up = 0.0, ss = 0.0;
        for (uint i = 0u; i < used; i++) s += red[tid * SLOTS + i];
        if (NP_GATED)
            for (uint i = 0u; i < used; i++) up += red[(tid + OUTS) * SLOTS + i];
        if (NORM_PROJ != 0)
            for (uint i = 0u; i < used; i++) ss += red[8u * SLOTS + i];
        finish(m, tid, pc.row0 + first + tid, s, up, ss);
    }
#if PICK
    pick_finish();
#endif
}
