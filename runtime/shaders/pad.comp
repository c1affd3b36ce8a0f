#version 450
// pad.comp - pad with mode constant (0) / edge (1) / reflection (2).  Output is contiguous;
// input coordinates = output coordinates - beginning padding, mapped per mode.  Big tensors are
// split over rows of dim 0 (k_movement.c): begin[0] is then relative to the window's first output
// row and base_in may be negative (the input row 0 lies before the bound window).
#include "common.glsl"

PARAMS_BLOCK PC {
    uint n, rank, mode;
    uint shape[6];    // output
    uint in_shape[6];
    int begin[6];
    float value;
    int base_in, base_out;
} pc;
layout(std430, binding = 0) readonly buffer In { A_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Out { A_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    uint rest = i;
    int off = 0, stride = 1;
    bool inside = true;
    for (int d = int(pc.rank) - 1; d >= 0; d--) {
        uint q = rest / pc.shape[d];
        int c = int(rest - q * pc.shape[d]) - pc.begin[d];
        rest = q;
        int n = int(pc.in_shape[d]);
        if (c < 0 || c >= n) {
            if (pc.mode == 0u) inside = false;
            else if (pc.mode == 1u) c = clamp(c, 0, n - 1);
            else if (n == 1) c = 0;
            else {
                int period = 2 * (n - 1);
                c = abs(c) % period;
                if (c >= n) c = period - c;
            }
        }
        off += c * stride;
        stride *= n;
    }
#if A_FLOAT
    A_T fill = A_T(pc.value);
#else
    A_T fill = A_T(A_C(int64_t(pc.value)));
#endif
    if (!inside) { // no load: off may lie outside the bound window
        y_out[pc.base_out + int(i)] = fill;
        return;
    }
    y_out[pc.base_out + int(i)] = x_in[pc.base_in + off];
}
