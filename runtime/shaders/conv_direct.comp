#version 450
// conv_direct.comp - direct conv2d / convTranspose2d (spec constant 1 = transposed), one thread
// per output element in physical order, f32 accumulation.  Activations are nchw or nhwc (pc.nhwc);
// the filter is addressed through per-logical-dim strides (o = output channel, or output channel
// within the group when transposed; i = input channel within the group, or the absolute input
// channel when transposed), so every WebNN filter layout shares one shader (k_conv.c).
#include "common.glsl"

layout(constant_id = 1) const uint TRANSPOSED = 0;
PARAMS_BLOCK PC {
    uint total, nhwc, has_bias, groups;
    uint C, H, W, OC;
    uint OH, OW, KH, KW;
    uint sh, sw, dh, dw;
    int pt, pl;
    uint fs_o, fs_i, fs_h, fs_w;
    int base_x, base_f, base_b, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer F { A_T f_in[]; };
layout(std430, binding = 2) readonly buffer Bias { A_T b_in[]; };
layout(std430, binding = 3) writeonly buffer Y { A_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.total) return;
    uint c, ox, oy, nb, t;
    if (pc.nhwc != 0u) {
        c = i % pc.OC; t = i / pc.OC;
        ox = t % pc.OW; t /= pc.OW;
        oy = t % pc.OH; nb = t / pc.OH;
    } else {
        ox = i % pc.OW; t = i / pc.OW;
        oy = t % pc.OH; t /= pc.OH;
        c = t % pc.OC; nb = t / pc.OC;
    }
    uint xs_n = pc.C * pc.H * pc.W;
    uint xs_c = pc.nhwc != 0u ? 1u : pc.H * pc.W;
    uint xs_h = pc.nhwc != 0u ? pc.W * pc.C : pc.W;
    uint xs_w = pc.nhwc != 0u ? pc.C : 1u;
    uint cin_g = pc.C / pc.groups, cout_g = pc.OC / pc.groups;
    uint g = c / cout_g;
    uint xbase = uint(pc.base_x) + nb * xs_n + g * cin_g * xs_c;
    float acc = 0.0;
    for (uint ky = 0u; ky < pc.KH; ky++) {
        int iy;
        if (TRANSPOSED != 0u) {
            int ty = int(oy) + pc.pt - int(ky * pc.dh);
            if (ty < 0 || ty % int(pc.sh) != 0) continue;
            iy = ty / int(pc.sh);
        } else {
            iy = int(oy * pc.sh) - pc.pt + int(ky * pc.dh);
        }
        if (iy < 0 || iy >= int(pc.H)) continue;
        for (uint kx = 0u; kx < pc.KW; kx++) {
            int ix;
            if (TRANSPOSED != 0u) {
                int tx = int(ox) + pc.pl - int(kx * pc.dw);
                if (tx < 0 || tx % int(pc.sw) != 0) continue;
                ix = tx / int(pc.sw);
            } else {
                ix = int(ox * pc.sw) - pc.pl + int(kx * pc.dw);
            }
            if (ix < 0 || ix >= int(pc.W)) continue;
            uint xo = xbase + uint(iy) * xs_h + uint(ix) * xs_w;
            uint fo = uint(pc.base_f) + ky * pc.fs_h + kx * pc.fs_w;
            if (TRANSPOSED != 0u) fo += (c % cout_g) * pc.fs_o + g * cin_g * pc.fs_i;
            else fo += c * pc.fs_o;
            for (uint ci = 0u; ci < cin_g; ci++)
                acc = fma(float(x_in[xo + ci * xs_c]), float(f_in[fo + ci * pc.fs_i]), acc);
        }
    }
    if (pc.has_bias != 0u) acc += float(b_in[uint(pc.base_b) + c]);
    y_out[uint(pc.base_y) + i] = A_T(acc);
}
