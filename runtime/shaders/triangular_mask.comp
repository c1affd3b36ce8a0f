#version 450
// triangular_mask.comp - triangular: keeps element (r, c) of each matrix of the last two dims when
// c - r >= diagonal (upper) or c - r <= diagonal (lower), else writes zero.  Moved by element size.
#include "common.glsl"

#if A_BITS == 8
#define E_T uint8_t
#elif A_BITS == 16
#define E_T uint16_t
#elif A_BITS == 64
#define E_T uint64_t
#else
#define E_T uint
#endif
PARAMS_BLOCK PC {
    uint n, rows, cols, upper;
    int diag;
    int base_x, base_y;
} pc;
layout(std430, binding = 0) readonly buffer X { E_T x_in[]; };
layout(std430, binding = 1) writeonly buffer Y { E_T y_out[]; };

void main() {
    uint i = flat_id();
    if (i >= pc.n) return;
    uint t = i / pc.cols;
    int c = int(i - t * pc.cols), r = int(t % pc.rows);
    int d = c - r;
    bool keep = pc.upper != 0u ? d >= pc.diag : d <= pc.diag;
    y_out[pc.base_y + int(i)] = keep ? x_in[pc.base_x + int(i)] : E_T(0);
}
