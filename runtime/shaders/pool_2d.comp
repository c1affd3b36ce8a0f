#version 450
// pool_2d.comp - averagePool2d (spec constant 1 = 0), l2Pool2d (1) and maxPool2d (2) over nchw
// or nhwc tensors, one thread per output element in physical order.  Padding elements are not
// counted: the average divides by the number of window elements inside the input.  Floats
// accumulate in f32; max also runs on integer types (compared in their compute type).
#include "common.glsl"

layout(constant_id = 1) const uint KIND = 0;
PARAMS_BLOCK PC {
    uint total, nhwc, C, H;
    uint W, OH, OW, KH;
    uint KW, sh, sw, dh;
    uint dw;
    int pt, pl;
    int base_x, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Y { A_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.total) return;
    uint c, ox, oy, nb, t;
    if (pc.nhwc != 0u) {
        c = i % pc.C; t = i / pc.C;
        ox = t % pc.OW; t /= pc.OW;
        oy = t % pc.OH; nb = t / pc.OH;
    } else {
        ox = i % pc.OW; t = i / pc.OW;
        oy = t % pc.OH; t /= pc.OH;
        c = t % pc.C; nb = t / pc.C;
    }
    uint xs_h = pc.nhwc != 0u ? pc.W * pc.C : pc.W;
    uint xs_w = pc.nhwc != 0u ? pc.C : 1u;
    uint xbase = uint(pc.base_x) + nb * pc.C * pc.H * pc.W + c * (pc.nhwc != 0u ? 1u : pc.H * pc.W);
    float s = 0.0;
    uint cnt = 0u;
    A_C best = A_C(0);
    for (uint ky = 0u; ky < pc.KH; ky++) {
        int iy = int(oy * pc.sh) - pc.pt + int(ky * pc.dh);
        if (iy < 0 || iy >= int(pc.H)) continue;
        for (uint kx = 0u; kx < pc.KW; kx++) {
            int ix = int(ox * pc.sw) - pc.pl + int(kx * pc.dw);
            if (ix < 0 || ix >= int(pc.W)) continue;
            A_C v = A_C(x_in[xbase + uint(iy) * xs_h + uint(ix) * xs_w]);
            if (KIND == 2u) {
                if (cnt == 0u || v > best) best = v;
            } else {
                float f = float(v);
                s = KIND == 1u ? fma(f, f, s) : s + f;
            }
            cnt++;
        }
    }
    A_C y;
    if (KIND == 2u) y = cnt == 0u ? A_C(A_LOWEST) : best;
    else if (KIND == 1u) y = A_C(sqrt(s));
    else y = A_C(cnt == 0u ? 0.0 : s / float(cnt));
    y_out[uint(pc.base_y) + i] = A_T(y);
}
