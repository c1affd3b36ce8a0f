// ext_nbits.glsl - the MatMulNBits weight layout shared by ext_matmul_nbits.comp (mat-vec) and
// ext_matmul_nbits_tiled.comp (GEMM): b [N, kBlocks, blockSize * bits / 8] bytes bound as 32-bit
// words, values packed low bits first; scales [N * kBlocks] (A_T); zero points (spec ZP_MODE)
// 0 = absent (2^(bits-1)), 1 = uint8 packed like b, rows of zp_row values, 2 = float (A_T)
// [N * kBlocks].  Requires the binding declarations W (uint w_in[]), S (A_T s_in[]), Z (uint
// z_in[] for mode 1; Zf A_T zf_in[] for mode 2) and push constants kBlocks, zp_row, base_s,
// base_z.
layout(constant_id = 1) const uint BITS = 4u;
layout(constant_id = 2) const uint ZP_MODE = 0u;
layout(constant_id = 3) const bool HAS_BIAS = false;

const uint VPW = 32u / BITS; // values per weight word

// Scale and zero point of block kb of weight row n.
void block_params(uint n, uint kb, out float s, out float z) {
    uint bi = n * pc.kBlocks + kb;
    s = float(s_in[pc.base_s + bi]);
    if (ZP_MODE == 1u) z = float(EXT_PACKED(z_in, pc.base_z + n * pc.zp_row + kb, BITS));
    else if (ZP_MODE == 2u) z = float(zf_in[pc.base_z + bi]);
    else z = float(1u << (BITS - 1u));
}
