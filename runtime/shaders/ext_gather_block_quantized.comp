#version 450
// ext_gather_block_quantized.comp - gatherBlockQuantized: one output element per invocation; only
// the gathered elements are dequantized: (q - zeroPoint) * scale of their block along the
// quantized axis.  The data are seen as [pre, D, post] around the gather axis (D = its size,
// post in logical elements, i.e. 4/2-bit values unpacked) and as [outer, Q, inner] around the
// quantized axis; scales are [outer, nB, inner] with nB = ceil(Q / block).  Output element
// ((p * I + f) * post + r) reads data ((p * D + idx[f]) * post + r); an index outside -D..D-1
// gives 0 (ORT).  Data kinds (spec DATA_KIND): 0 = uint8 packing 8/bits values per byte (zero
// points packed the same way per scale row of zp_last bytes, default 2^(bits-1)), 1 = uint4,
// 2 = int4 (zero points of the data type shaped like the scales, default 0).  Data, zero points
// and indices are bound as 32-bit words.  A = scale / output dtype.
// A table bigger than one binding (pre == 1 only) runs as several dispatches, each over table rows
// w0 .. w1-1 of the gather axis bound from the byte holding element elem0: a dispatch writes only
// the outputs whose index falls in its rows (out-of-range indices: the w0 == 0 dispatch).
#include "common.glsl"
#include "ext_common.glsl"

layout(constant_id = 1) const uint DATA_KIND = 0u;
layout(constant_id = 2) const bool IDX64 = false;
layout(constant_id = 3) const bool HAS_ZP = false;

PARAMS_BLOCK PC {
    uint n, I, D, post, Q, inner, nB, block, bits, zp_last;
    uint base_data, base_idx, base_scale, base_zp, base_y; // data / zp: in elements of `bits`
    uint w0, w1, elem0; // the table rows of this dispatch; first logical element of its data binding
} pc;
layout(std430, binding = 0) readonly buffer Dt { uint data_in[]; };
layout(std430, binding = 1) readonly buffer Ix { uint idx_in[]; };
layout(std430, binding = 2) readonly buffer S { A_T scale_in[]; };
layout(std430, binding = 3) readonly buffer Z { uint zp_in[]; };
layout(std430, binding = 4) writeonly buffer Y { A_T y_out[]; };

float packed_value(uint e) {
    uint v = EXT_PACKED(data_in, pc.base_data + e, pc.bits);
    return DATA_KIND == 2u ? float(int(v << 28) >> 28) : float(v);
}

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    uint r = i % pc.post, t = i / pc.post, f = t % pc.I, p = t / pc.I;
    int v = EXT_INDEX_CHECKED(idx_in, pc.base_idx, f, IDX64, pc.D);
    if (v < 0) {
        if (pc.w0 == 0u) y_out[pc.base_y + i] = A_T(0.0);
        return;
    }
    if (uint(v) < pc.w0 || uint(v) >= pc.w1) return;
    uint li = (p * pc.D + uint(v)) * pc.post + r;
    uint iq = li % pc.inner, oq = li / pc.inner, cq = oq % pc.Q;
    oq /= pc.Q;
    uint qb = cq / pc.block, si = (oq * pc.nB + qb) * pc.inner + iq;
    float z = DATA_KIND == 0u ? float(1u << (pc.bits - 1u)) : 0.0;
    if (HAS_ZP) {
        if (DATA_KIND == 0u) {
            uint per = 8u / pc.bits;
            z = float(EXT_PACKED(zp_in, pc.base_zp + (oq * pc.zp_last + qb / per) * per + qb % per, pc.bits));
        } else {
            uint zv = EXT_PACKED(zp_in, pc.base_zp + si, 4u);
            z = DATA_KIND == 2u ? float(int(zv << 28) >> 28) : float(zv);
        }
    }
    y_out[pc.base_y + i] = A_T((packed_value(li - pc.elem0) - z) * float(scale_in[pc.base_scale + si]));
}
