#version 450
// ext_rotary.comp - rotaryEmbedding, one output element per invocation (1-D grid).  Input
// [B, S, N*H] (3-D) or [B, N, S, H] (4-D); the first `rot` channels of each head are rotated with
// the cos/sin cache row of the token's position, the rest copied.  Half-split (channel i pairs with
// i +- rot/2) or interleaved (pairs 2j, 2j+1).  Position forms: 0 = positionIds [1] holds a start
// offset (row = offset + s), 1 = positionIds [B, S], 2 = no positionIds, caches [B, S, rot/2];
// rows outside the caches are clamped (WebNN gather rule).  Position ids (int32 / int64) are
// bound as 32-bit words (spec constant POS64).
#include "common.glsl"
#include "ext_common.glsl"

layout(constant_id = 1) const bool FOUR_D = false;
layout(constant_id = 2) const bool INTERLEAVED = false;
layout(constant_id = 3) const uint POS_FORM = 1u;
layout(constant_id = 4) const bool POS64 = true;

PARAMS_BLOCK PC {
    uint n, B, S, N, H, rot, cache_rows;
    uint base_x, base_pos, base_cos, base_sin, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer P { uint pos_in[]; };
layout(std430, binding = 2) readonly buffer C { A_T cos_in[]; };
layout(std430, binding = 3) readonly buffer Sn { A_T sin_in[]; };
layout(std430, binding = 4) writeonly buffer Y { A_T y_out[]; };

// Cache row of token (b, s).
uint cache_row(uint b, uint s) {
    if (POS_FORM == 2u) return b * pc.S + s;
    if (POS_FORM == 1u) return EXT_INDEX_CLAMPED(pos_in, pc.base_pos, b * pc.S + s, POS64, pc.cache_rows);
    // offset form: offset + s, offset read as 64 bits
    uint lo = pos_in[pc.base_pos], hi = POS64 ? pos_in[pc.base_pos + 1u] : (int(lo) < 0 ? 0xffffffffu : 0u);
    bool fits = (hi == 0u && int(lo) >= 0) || (hi == 0xffffffffu && int(lo) < 0);
    if (!fits) return int(hi) < 0 ? 0u : pc.cache_rows - 1u;
    int p = int(lo) + int(s); // |offset| < 2^31, s < 2^31: no int64 needed for the clamp below
    if (int(lo) > 0 && p < 0) return pc.cache_rows - 1u; // wrapped past 2^31
    return ext_clamp_index(uint(p), p < 0 ? 0xffffffffu : 0u, pc.cache_rows);
}

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    uint c = i % pc.H, t = i / pc.H, b, s;
    if (FOUR_D) { s = t % pc.S; b = t / pc.S / pc.N; }
    else { s = (t / pc.N) % pc.S; b = t / pc.N / pc.S; }
    float y = float(x_in[pc.base_x + i]);
    if (c < pc.rot) {
        uint half_ = pc.rot / 2u, row = cache_row(b, s) * half_;
        uint ci = INTERLEAVED ? c / 2u : c % half_;
        bool first = INTERLEAVED ? (c % 2u) == 0u : c < half_;
        uint j = INTERLEAVED ? (first ? c + 1u : c - 1u) : (first ? c + half_ : c - half_);
        float other = float(x_in[pc.base_x + i - c + j]);
        float cv = float(cos_in[pc.base_cos + row + ci]), sv = float(sin_in[pc.base_sin + row + ci]);
        y = first ? y * cv - other * sv : y * cv + other * sv;
    }
    y_out[pc.base_y + i] = A_T(y);
}
