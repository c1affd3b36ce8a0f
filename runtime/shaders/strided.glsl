// strided.glsl - push constants and offset computation of the generic strided N-d kernels
// (k_strided.c): iteration shape of up to 6 dims; per operand element strides (0 = broadcast,
// negative = reversed) and a base element offset inside its binding.  The output is operand
// n_inputs (st1 for unary/cast/copy, st2 for binary); where (3 inputs) writes base3 + i.
PARAMS_BLOCK PC {
    uint n;     // elements in this dispatch
    uint rank;
    uint shape[6];
    int st0[6];
    int st1[6];
    int st2[6];
    int base0, base1, base2, base3;
    float alpha, beta;
} pc;

void strided_offsets(uint i, out int o0, out int o1, out int o2) {
    int a = pc.base0, b = pc.base1, c = pc.base2;
    for (int d = int(pc.rank) - 1; d >= 0; d--) {
        uint s = pc.shape[d];
        uint q = i / s;
        int r = int(i - q * s);
        i = q;
        a += r * pc.st0[d];
        b += r * pc.st1[d];
        c += r * pc.st2[d];
    }
    o0 = a;
    o1 = b;
    o2 = c;
}
