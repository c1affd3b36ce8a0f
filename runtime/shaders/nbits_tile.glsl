// nbits_tile.glsl - the int4 (2/4/8-bit) tile core shared by the prefill GEMMs over matmulNBits
// weights: ext_matmul_nbits_tiled.comp (matmulNBits, M > 16) and ext_norm_proj_tiled.comp
// (qkvProjection / gatedMlp prefill, normalized activations).  One workgroup computes a
// TILE_BM x TILE_BN output tile; per step of TILE_BK k the activation tile (tile_a(), which the
// includer defines: plain or normalized activations) and the weight tile(s), dequantized
// ((q - z) * s) straight from the packed layout one 32-bit word per invocation, are staged in
// shared memory, so every weight word is read once per tile and never expanded in device memory.
//  - portable path (TILE_COOP false): 256 invocations (16 x 16), each 4 x (TILE_BN / 16) outputs,
//    f32 tiles and f32 accumulation.  TILE_BN is specialization constant 8: 64, or 32 for narrow
//    weights whose 64-wide tiles would leave the device's cores idle (more, thinner workgroups).
//  - NV cooperative matrices (TILE_COOP true, GL_NV_cooperative_matrix, subgroups of 32): 128
//    invocations = 4 subgroups, each 32 x 32 outputs as 2 x 2 16x16x16 float16 products with f32
//    accumulators; tiles staged as float16; the accumulators go through shared memory so that
//    tile_store() gets one value per output as on the portable path.  The default where the device
//    has it (WEBNNC_COOPMAT=0: the portable path): on an H100 it takes a 512-token Qwen2-0.5B
//    prefill from 30.0 to 22.9 ms.  Its float16 results differ from the float64 reference by more
//    than the portable path's: 10 float16 ulps at K 320 (0.00122 at -0.161), 4 at K 4864, well
//    inside WebNN's matmul budget of 2 K ulps but over the portable path's test tolerance, so
//    tests/runtime/test_rt_ext_nbits.c allows 4e-3 where this path runs.  Splitting the weights
//    into float16 hi + lo parts left that result bit for bit the same, so the weights' rounding to
//    float16 is not the cause; not yet understood.
// Requires, before the include: common.glsl, ext_common.glsl, the bindings and push constants of
// ext_nbits.glsl (then ext_nbits.glsl itself), the macros TILE_COOP (0/1) and TILE_HAS_UP (0/1: the
// up tile exists), the constant bool TILE_UP (gated: the up tile is used; false without it), and
//   float tile_a(uint m, uint k)                  activation row m (< pc.M), k (< pc.K)
//   void tile_store(uint m, uint c, float y, float up)  output (m, c) (c < the tile's column count)
// and sets tile_k_begin / tile_k_end (the k range of the sums, TILE_BK-aligned begin; 0 and pc.K
// for whole products, a slice for split-K partial sums) before calling nbits_tile().
// Weights: row wrow0 + c of the word binding is output column c (its scales / zero points: row
// srow0 + c); gated: the up rows follow at + up_off.
#define TILE_BM 64u
#if TILE_COOP
#define TILE_BN 64u
#else
layout(constant_id = 8) const uint TILE_BN = 64u; // 64 or 32 (k_ext_nbits.c)
#endif
#define TILE_BK 32u

#if TILE_COOP
#extension GL_NV_cooperative_matrix : enable
#extension GL_KHR_memory_scope_semantics : enable
#define TILE_T float16_t
#define TILE_PAD 8u
#else
#define TILE_T float
#define TILE_PAD 1u
#endif

// As[m][k] / Bs[c][k] (k contiguous: the cooperative loads read A row-major, B column-major)
shared TILE_T As[TILE_BM * (TILE_BK + TILE_PAD)];
shared TILE_T Bs[TILE_BN * (TILE_BK + TILE_PAD)];
#if TILE_HAS_UP
shared TILE_T Bu[TILE_BN * (TILE_BK + TILE_PAD)];
#endif
const uint TILE_LD = TILE_BK + TILE_PAD;
uint tile_k_begin = 0u, tile_k_end = 0u; // set by the includer (see the header)

// Dequantized values of word u (k from u * VPW) of weight row (wrow, srow) into Bs[c][kl..] (Bu when up).
void tile_weight_word(uint wrow, uint srow, uint u, uint c, uint kl, bool ok, bool up) {
    uint word = ok ? w_in[pc.base_w + wrow * pc.row_words + u] : 0u;
    float s = 0.0, z = 0.0;
    if (ok) block_params(srow, (u * VPW) / pc.block, s, z);
    for (uint j = 0u; j < VPW; j++) {
        TILE_T v = TILE_T((float(bitfieldExtract(word, int(j * BITS), int(BITS))) - z) * s);
#if TILE_HAS_UP
        if (up) Bu[c * TILE_LD + kl + j] = v;
        else
#endif
            Bs[c * TILE_LD + kl + j] = v;
    }
}

// Stages k0 .. k0 + TILE_BK - 1 of the activation rows m0.. and weight columns 0 .. ncols - 1.
void tile_stage(uint m0, uint k0, uint wrow0, uint srow0, uint ncols, uint up_off) {
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x;
    for (uint e = tid; e < TILE_BM * TILE_BK; e += nt) {
        uint r = e / TILE_BK, kk = e % TILE_BK, m = m0 + r, k = k0 + kk;
        As[r * TILE_LD + kk] = TILE_T(m < pc.M && k < pc.K ? tile_a(m, k) : 0.0);
    }
    const uint WPR = TILE_BK / VPW; // words per column and step
    for (uint e = tid; e < TILE_BN * WPR; e += nt) {
        uint c = e / WPR, wi = e % WPR, u = k0 / VPW + wi;
        bool ok = c < ncols && u < pc.row_words;
        tile_weight_word(wrow0 + c, srow0 + c, u, c, wi * VPW, ok, false);
        if (TILE_UP) tile_weight_word(wrow0 + up_off + c, srow0 + up_off + c, u, c, wi * VPW, ok, true);
    }
}

#if TILE_COOP
#define TILE_FRAG_A fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define TILE_ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
shared float Cs[TILE_BM * TILE_BN]; // accumulators on their way out (gate, then up)

// The tile (m0, wrow0) of K: every invocation of the 128 calls it and then stores its outputs.
void nbits_tile(uint m0, uint wrow0, uint srow0, uint ncols, uint up_off) {
    uint sg = gl_SubgroupID, sm = (sg / 2u) * 32u, sn = (sg % 2u) * 32u;
    TILE_ACC acc[2][2];
#if TILE_HAS_UP
    TILE_ACC accu[2][2];
#endif
    for (uint i = 0u; i < 2u; i++)
        for (uint j = 0u; j < 2u; j++) {
            acc[i][j] = TILE_ACC(0.0);
#if TILE_HAS_UP
            accu[i][j] = TILE_ACC(0.0);
#endif
        }
    for (uint k0 = tile_k_begin; k0 < tile_k_end; k0 += TILE_BK) {
        tile_stage(m0, k0, wrow0, srow0, ncols, up_off);
        barrier();
        for (uint kk = 0u; kk < TILE_BK; kk += 16u) {
            TILE_FRAG_A a[2], b[2];
            for (uint i = 0u; i < 2u; i++) coopMatLoadNV(a[i], As, (sm + 16u * i) * TILE_LD + kk, TILE_LD, false);
            for (uint j = 0u; j < 2u; j++) coopMatLoadNV(b[j], Bs, (sn + 16u * j) * TILE_LD + kk, TILE_LD, true);
            for (uint i = 0u; i < 2u; i++)
                for (uint j = 0u; j < 2u; j++) acc[i][j] = coopMatMulAddNV(a[i], b[j], acc[i][j]);
#if TILE_HAS_UP
            if (TILE_UP) {
                for (uint j = 0u; j < 2u; j++) coopMatLoadNV(b[j], Bu, (sn + 16u * j) * TILE_LD + kk, TILE_LD, true);
                for (uint i = 0u; i < 2u; i++)
                    for (uint j = 0u; j < 2u; j++) accu[i][j] = coopMatMulAddNV(a[i], b[j], accu[i][j]);
            }
#endif
        }
        barrier();
    }
    uint tid = gl_LocalInvocationID.x;
    float gate[TILE_BM * TILE_BN / 128u]; // gated: this invocation's gate values while the up values pass
    for (uint pass = 0u; pass < (TILE_UP ? 2u : 1u); pass++) {
        for (uint i = 0u; i < 2u; i++)
            for (uint j = 0u; j < 2u; j++) {
#if TILE_HAS_UP
                TILE_ACC v = pass == 0u ? acc[i][j] : accu[i][j];
#else
                TILE_ACC v = acc[i][j];
#endif
                coopMatStoreNV(v, Cs, (sm + 16u * i) * TILE_BN + sn + 16u * j, TILE_BN, false);
            }
        barrier();
        for (uint e = tid, q = 0u; e < TILE_BM * TILE_BN; e += gl_WorkGroupSize.x, q++) {
            if (TILE_UP && pass == 0u) {
                gate[q] = Cs[e];
                continue;
            }
            uint r = e / TILE_BN, c = e % TILE_BN, m = m0 + r;
            if (m < pc.M && c < ncols) tile_store(m, c, TILE_UP ? gate[q] : Cs[e], TILE_UP ? Cs[e] : 0.0);
        }
        barrier();
    }
}
#else
// The tile (m0, wrow0) of K on the portable path (256 invocations, 4 x TN outputs each).
void nbits_tile(uint m0, uint wrow0, uint srow0, uint ncols, uint up_off) {
    const uint TN = TILE_BN / 16u; // output columns per invocation (4 or 2)
    uint tid = gl_LocalInvocationID.x, tx = tid % 16u, ty = tid / 16u;
    float acc[4][4], accu[4][4];
    for (uint i = 0u; i < 4u; i++)
        for (uint j = 0u; j < 4u; j++) acc[i][j] = accu[i][j] = 0.0;
    for (uint k0 = tile_k_begin; k0 < tile_k_end; k0 += TILE_BK) {
        tile_stage(m0, k0, wrow0, srow0, ncols, up_off);
        barrier();
        for (uint kk = 0u; kk < TILE_BK; kk++) {
            float av[4], bv[4], uv[4];
            for (uint i = 0u; i < 4u; i++) av[i] = As[(ty * 4u + i) * TILE_LD + kk];
            for (uint j = 0u; j < TN; j++) {
                bv[j] = Bs[(tx + 16u * j) * TILE_LD + kk];
#if TILE_HAS_UP
                uv[j] = Bu[(tx + 16u * j) * TILE_LD + kk];
#else
                uv[j] = 0.0;
#endif
            }
            for (uint i = 0u; i < 4u; i++)
                for (uint j = 0u; j < TN; j++) {
                    acc[i][j] = fma(av[i], bv[j], acc[i][j]);
                    if (TILE_UP) accu[i][j] = fma(av[i], uv[j], accu[i][j]);
                }
        }
        barrier();
    }
    for (uint i = 0u; i < 4u; i++) {
        uint m = m0 + ty * 4u + i;
        if (m >= pc.M) continue;
        for (uint j = 0u; j < TN; j++) {
            uint c = tx + 16u * j;
            if (c < ncols) tile_store(m, c, acc[i][j], accu[i][j]);
        }
    }
}
#endif
