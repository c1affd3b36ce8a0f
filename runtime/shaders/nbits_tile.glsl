// nbits_tile.glsl - the int4 (2/4/8-bit) tile core shared by the prefill GEMMs over matmulNBits
// weights: ext_matmul_nbits_tiled.comp (matmulNBits, M > 16; gated:
// ext_matmul_nbits_gated_tiled.comp, gatedMlp's [gate | up] product with its epilogue) and
// ext_norm_proj_tiled.comp (qkvProjection / gatedMlp prefill, normalized activations), and their
// cooperative-matrix builds.  One workgroup computes a TILE_BM x TILE_BN output tile; per step of
// TILE_BK k the activation tile (tile_a(), which the includer defines: plain or normalized
// activations) and the weight tile(s), dequantized ((q - z) * s) straight from the packed layout
// one 32-bit word per invocation, are staged in shared memory, so every weight word is read once
// per tile and never expanded in device memory.
//  - portable path (TILE_COOP false): 256 invocations (16 x 16), each 4 x (TILE_BN / 16) outputs,
//    f32 tiles and f32 accumulation.  TILE_BN is specialization constant 8: 64, or 32 for narrow
//    weights whose 64-wide tiles would leave the device's cores idle (more, thinner workgroups).
//  - NV cooperative matrices (TILE_COOP true, GL_NV_cooperative_matrix, subgroups of 32): 128
//    invocations = 4 subgroups, each 32 x 32 outputs as 2 x 2 16x16x16 float16 products with f32
//    accumulators.  Tiles are staged as packed float16, 8 values per 16-byte store: activations by
//    16-byte loads where aligned (the includer's tile_a8(), else value by value), weights
//    dequantized two at a time in float16 arithmetic (bit for bit the float32 result's rounding,
//    see tile_put_word).  Each subgroup passes its accumulators through its own part of shared
//    memory so that tile_store() gets one value per output as on the portable path.  The default
//    where the device has it (WEBNNC_COOPMAT=0: the portable path).  H100, 512-token Qwen2-0.5B
//    prefill, per layer: [gate | up] 306 -> 156 us, down 175 -> 93, qkv 80 -> 40, o 77 -> 38
//    against the scalar-staged version before it; the whole prefill's GPU time 20.4 -> 12.9 ms.
//    Its float16 results differ from the float64 reference by more than the portable path's: 10
//    float16 ulps at K 320 (0.00122 at -0.161), 4 at K 4864, well inside WebNN's matmul budget of
//    2 K ulps but over the portable path's test tolerance, so tests/runtime/test_rt_ext_nbits.c
//    allows 4e-3 where this path runs.  Splitting the weights into float16 hi + lo parts left that
//    result bit for bit the same, so the weights' rounding to float16 is not the cause; not yet
//    understood.
// Requires, before the include: common.glsl, ext_common.glsl, the bindings and push constants of
// ext_nbits.glsl (then ext_nbits.glsl itself), the macros TILE_COOP (0/1) and TILE_HAS_UP (0/1: the
// up tile exists), the constant bool TILE_UP (gated: the up tile is used; false without it), and
//   float tile_a(uint m, uint k)                  activation row m (< pc.M), k (< pc.K)
//   void tile_store(uint m, uint c, float y, float up)  output (m, c) (c < the tile's column count)
// and, for the cooperative path, may define TILE_A8 and then
//   uvec4 tile_a8(uint m, uint k)                 activations k .. k + 7 of row m as packed float16
// (after the include; tile_a8_values() is the value-by-value fallback), and sets tile_k_begin /
// tile_k_end (the k range of the sums: a multiple of 8 to begin, 0 and pc.K for whole products, a
// slice for split-K partial sums; values from tile_k_end on are staged as zeros) before calling
// nbits_tile().
// Weights: row wrow0 + c of the word binding is output column c (its scales / zero points: row
// srow0 + c); gated: the up rows follow at + up_off.
#define TILE_BM 64u
#define TILE_BK 32u
#if TILE_COOP
#define TILE_BN 64u
#define TILE_NT 128u // invocations
#else
layout(constant_id = 8) const uint TILE_BN = 64u; // 64 or 32 (k_ext_nbits.c)
#define TILE_NT 256u
#endif

#extension GL_EXT_control_flow_attributes : enable // [[unroll]]: the staging registers stay registers
#if TILE_COOP
#extension GL_NV_cooperative_matrix : enable
#extension GL_KHR_memory_scope_semantics : enable
// Tiles staged as packed float16, 8 per uvec4: As[m][k / 8] / Bs[c][k / 8] (k contiguous: the
// cooperative loads read A row-major, B column-major; offsets and strides in uvec4 units), rows
// padded by 8 values against bank conflicts.
#define TILE_T uvec4
#define TILE_VALS 8u // values per staged element
#define TILE_PAD 8u
#else
#define TILE_T float
#define TILE_VALS 1u
#define TILE_PAD 1u
#endif
const uint TILE_LD = (TILE_BK + TILE_PAD) / TILE_VALS; // staged elements per row
shared TILE_T As[TILE_BM * TILE_LD];
shared TILE_T Bs[TILE_BN * TILE_LD];
#if TILE_HAS_UP
shared TILE_T Bu[TILE_BN * TILE_LD];
#endif
uint tile_k_begin = 0u, tile_k_end = 0u; // set by the includer (see the header)

// ---- staging: tile_fetch() loads a k step into registers, tile_put() dequantizes it into shared
// memory.  Invocation t stages activation elements t + TILE_NT i (row-major over the BM x BK tile,
// TILE_VALS values each: consecutive invocations read consecutive k) and weight words t + TILE_NT i
// (TILE_WPR words per column).  (Loading the next step before the current step's products, with
// 64-k steps, measured slower on an H100 than this: fewer registers keep more workgroups resident.)
const uint TILE_WPR = TILE_BK / VPW;                                   // words per column and step
const uint TILE_A_ROW = TILE_BK / TILE_VALS;                           // staged activation elements per row
const uint TILE_A_PER = TILE_BM * TILE_A_ROW / TILE_NT;                // ... per invocation
const uint TILE_W_PER = (64u * TILE_WPR + TILE_NT - 1u) / TILE_NT;     // weight words per invocation (64 columns at most)
TILE_T tile_ra[TILE_A_PER];
uint tile_rw[TILE_W_PER];
float tile_rs[TILE_W_PER], tile_rz[TILE_W_PER];
#if TILE_HAS_UP
uint tile_ruw[TILE_W_PER];
float tile_rus[TILE_W_PER], tile_ruz[TILE_W_PER];
#endif

#if TILE_COOP
// Activations k and k + 1 of row m as packed float16 (zeros from tile_k_end).
uint tile_a2_values(uint m, uint k) {
    return packFloat2x16(f16vec2(k < tile_k_end ? tile_a(m, k) : 0.0, k + 1u < tile_k_end ? tile_a(m, k + 1u) : 0.0));
}
// Activations k .. k + 7 of row m as packed float16, value by value.
uvec4 tile_a8_values(uint m, uint k) {
    return uvec4(tile_a2_values(m, k), tile_a2_values(m, k + 2u), tile_a2_values(m, k + 4u), tile_a2_values(m, k + 6u));
}
#ifdef TILE_A8
uvec4 tile_a8(uint m, uint k); // the includer's: the same as tile_a8_values, by vector loads where it can
TILE_T tile_a_staged(uint m, uint k) { return tile_a8(m, k); }
#else
TILE_T tile_a_staged(uint m, uint k) { return tile_a8_values(m, k); }
#endif
#else
TILE_T tile_a_staged(uint m, uint k) { return tile_a(m, k); }
#endif

// Word u of weight row (wrow, srow) and its block's scale and zero point (0 words where !ok).
void tile_fetch_word(uint wrow, uint srow, uint u, bool ok, out uint w, out float s, out float z) {
    w = ok ? w_in[pc.base_w + wrow * pc.row_words + u] : 0u;
    s = 0.0;
    z = 0.0;
    if (ok) block_params(srow, (u * VPW) / pc.block, s, z);
}

// The loads of step k0 of the tile (m0, wrow0) (nbits_tile's arguments): activations k0 .. k0 +
// TILE_BK - 1 of rows m0.., the weight words of those k for columns 0 .. ncols - 1 (zeros past
// tile_k_end or past the tile).
void tile_fetch(uint m0, uint k0, uint wrow0, uint srow0, uint ncols, uint up_off) {
    uint tid = gl_LocalInvocationID.x;
    [[unroll]] for (uint i = 0u; i < TILE_A_PER; i++) {
        uint e = tid + TILE_NT * i, m = m0 + e / TILE_A_ROW, k = k0 + (e % TILE_A_ROW) * TILE_VALS;
        tile_ra[i] = m < pc.M && k < tile_k_end ? tile_a_staged(m, k) : TILE_T(0);
    }
    [[unroll]] for (uint i = 0u; i < TILE_W_PER; i++) {
        uint e = tid + TILE_NT * i, c = e / TILE_WPR, u = k0 / VPW + e % TILE_WPR;
        bool ok = e < TILE_BN * TILE_WPR && c < ncols && u * VPW < tile_k_end;
        tile_fetch_word(wrow0 + c, srow0 + c, u, ok, tile_rw[i], tile_rs[i], tile_rz[i]);
#if TILE_HAS_UP
        if (TILE_UP)
            tile_fetch_word(wrow0 + up_off + c, srow0 + up_off + c, u, ok, tile_ruw[i], tile_rus[i], tile_ruz[i]);
#endif
    }
}

#if TILE_COOP
// The values of word w ((q - z) * s each, rounded once to float16) into column c of Bs (Bu when up)
// from k offset kl, two per 32-bit store.  With integer zero points the pairs are computed in
// float16: 0x6400 | q is the float16 1024 + q, so subtracting 1024 + z gives q - z exactly and the
// one float16 multiply by the (float16) scale rounds as the float32 product's conversion does.
void tile_put_word(uint w, float s, float z, uint c, uint kl, bool up) {
    uint row = c * TILE_LD * 4u + kl / 2u; // in 32-bit units
    f16vec2 zz = f16vec2(float16_t(1024.0 + z)), ss = f16vec2(float16_t(s));
    [[unroll]] for (uint j = 0u; j < VPW; j += 2u) {
        uint q0 = bitfieldExtract(w, int(j * BITS), int(BITS)), q1 = bitfieldExtract(w, int((j + 1u) * BITS), int(BITS));
        uint pair = ZP_MODE == 2u ? packFloat2x16(f16vec2((float(q0) - z) * s, (float(q1) - z) * s))
                                  : packFloat2x16((unpackFloat2x16(0x64006400u | q0 | (q1 << 16)) - zz) * ss);
        uint at = row + j / 2u;
#if TILE_HAS_UP
        if (up) Bu[at / 4u][at % 4u] = pair;
        else
#endif
            Bs[at / 4u][at % 4u] = pair;
    }
}
#else
// The values of word w ((q - z) * s each) into column c of Bs (Bu when up) from k offset kl.
void tile_put_word(uint w, float s, float z, uint c, uint kl, bool up) {
    [[unroll]] for (uint j = 0u; j < VPW; j++) {
        float v = (float(bitfieldExtract(w, int(j * BITS), int(BITS))) - z) * s;
#if TILE_HAS_UP
        if (up) Bu[c * TILE_LD + kl + j] = v;
        else
#endif
            Bs[c * TILE_LD + kl + j] = v;
    }
}
#endif

// The fetched step into shared memory (the caller has a barrier between this and the last reads).
void tile_put() {
    uint tid = gl_LocalInvocationID.x;
    [[unroll]] for (uint i = 0u; i < TILE_A_PER; i++) {
        uint e = tid + TILE_NT * i;
        As[(e / TILE_A_ROW) * TILE_LD + e % TILE_A_ROW] = tile_ra[i];
    }
    [[unroll]] for (uint i = 0u; i < TILE_W_PER; i++) {
        uint e = tid + TILE_NT * i, c = e / TILE_WPR, kl = (e % TILE_WPR) * VPW;
        if (e >= TILE_BN * TILE_WPR) break;
        tile_put_word(tile_rw[i], tile_rs[i], tile_rz[i], c, kl, false);
#if TILE_HAS_UP
        if (TILE_UP) tile_put_word(tile_ruw[i], tile_rus[i], tile_ruz[i], c, kl, true);
#endif
    }
}

// The staging of step k0 of the tile (m0, wrow0), then a barrier; the caller does its products and
// a barrier.  (The accumulators stay local to the caller's function, whose loops unroll: as
// module-scope variables, or indexed in a loop the compiler did not unroll, the H100 compiler kept
// them in local memory, which took twice the time.)
void tile_step(uint m0, uint k0, uint wrow0, uint srow0, uint ncols, uint up_off) {
    tile_fetch(m0, k0, wrow0, srow0, ncols, up_off);
    tile_put();
    barrier();
}

#if TILE_COOP
#define TILE_FRAG_A fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define TILE_ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
// Per subgroup, its 32 x 32 accumulators on their way out (gate, then up), 16 x 16 blocks row-major.
shared float Cs[(TILE_NT / 32u) * 1024u];

// The tile (m0, wrow0) of K: 4 subgroups of 32 x 32 outputs each (rows sm + 16 i, columns sn + 16 j:
// 2 x 2 16x16x16 float16 products with f32 accumulators); every invocation calls it.  Each subgroup
// passes its accumulators through its own part of Cs, so tile_store() gets one value per output (and
// its up value) without a workgroup barrier.
void nbits_tile(uint m0, uint wrow0, uint srow0, uint ncols, uint up_off) {
    uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID, sm = (sg / 2u) * 32u, sn = (sg % 2u) * 32u;
    TILE_ACC acc[2][2];
#if TILE_HAS_UP
    TILE_ACC accu[2][2];
#endif
    [[unroll]] for (uint i = 0u; i < 2u; i++)
        [[unroll]] for (uint j = 0u; j < 2u; j++) {
            acc[i][j] = TILE_ACC(0.0);
#if TILE_HAS_UP
            accu[i][j] = TILE_ACC(0.0);
#endif
        }
    for (uint k0 = tile_k_begin; k0 < tile_k_end; k0 += TILE_BK) {
        tile_step(m0, k0, wrow0, srow0, ncols, up_off);
        [[unroll]] for (uint kk = 0u; kk < TILE_BK; kk += 16u) {
            TILE_FRAG_A a[2], b[2];
            [[unroll]] for (uint i = 0u; i < 2u; i++) coopMatLoadNV(a[i], As, (sm + 16u * i) * TILE_LD + kk / 8u, TILE_LD, false);
            [[unroll]] for (uint j = 0u; j < 2u; j++) coopMatLoadNV(b[j], Bs, (sn + 16u * j) * TILE_LD + kk / 8u, TILE_LD, true);
            [[unroll]] for (uint i = 0u; i < 2u; i++)
                [[unroll]] for (uint j = 0u; j < 2u; j++) acc[i][j] = coopMatMulAddNV(a[i], b[j], acc[i][j]);
#if TILE_HAS_UP
            if (TILE_UP) {
                [[unroll]] for (uint j = 0u; j < 2u; j++)
                    coopMatLoadNV(b[j], Bu, (sn + 16u * j) * TILE_LD + kk / 8u, TILE_LD, true);
                [[unroll]] for (uint i = 0u; i < 2u; i++)
                    [[unroll]] for (uint j = 0u; j < 2u; j++) accu[i][j] = coopMatMulAddNV(a[i], b[j], accu[i][j]);
            }
#endif
        }
        barrier();
    }
    // All blocks out at once (a loop the compiler unrolls: indexed inside a loop with barriers, the
    // accumulators went to local memory), then each lane takes every 32nd value; gated, the lane
    // keeps its gate values in registers while the up values pass.
    uint cs = sg * 1024u;
    [[unroll]] for (uint i = 0u; i < 2u; i++)
        [[unroll]] for (uint j = 0u; j < 2u; j++) coopMatStoreNV(acc[i][j], Cs, cs + (2u * i + j) * 256u, 16u, false);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    float gate[32];
#if TILE_HAS_UP
    if (TILE_UP) {
        [[unroll]] for (uint q = 0u; q < 32u; q++) gate[q] = Cs[cs + lane + 32u * q];
        subgroupBarrier();
        [[unroll]] for (uint i = 0u; i < 2u; i++)
            [[unroll]] for (uint j = 0u; j < 2u; j++) coopMatStoreNV(accu[i][j], Cs, cs + (2u * i + j) * 256u, 16u, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
    }
    [[unroll]]
#endif
    for (uint q = 0u; q < 32u; q++) {
        uint e = lane + 32u * q, blk = e / 256u;
        uint m = m0 + sm + 16u * (blk / 2u) + (e % 256u) / 16u, c = sn + 16u * (blk % 2u) + e % 16u;
        if (m < pc.M && c < ncols) tile_store(m, c, TILE_UP ? gate[q] : Cs[cs + e], TILE_UP ? Cs[cs + e] : 0.0);
    }
}
#else
const uint TILE_TN = TILE_BN / 16u; // output columns per invocation (4 or 2)

// The tile (m0, wrow0) of K on the portable path (256 invocations (tx, ty), rows ty * 4 + i and
// columns tx + 16 j each).
void nbits_tile(uint m0, uint wrow0, uint srow0, uint ncols, uint up_off) {
    uint tid = gl_LocalInvocationID.x, tx = tid % 16u, ty = tid / 16u;
    float acc[4][4], accu[4][4];
    for (uint i = 0u; i < 4u; i++)
        for (uint j = 0u; j < 4u; j++) acc[i][j] = accu[i][j] = 0.0;
    for (uint k0 = tile_k_begin; k0 < tile_k_end; k0 += TILE_BK) {
        tile_step(m0, k0, wrow0, srow0, ncols, up_off);
        for (uint kk = 0u; kk < TILE_BK; kk++) {
            float av[4], bv[4], uv[4];
            for (uint i = 0u; i < 4u; i++) av[i] = As[(ty * 4u + i) * TILE_LD + kk];
            for (uint j = 0u; j < TILE_TN; j++) {
                bv[j] = Bs[(tx + 16u * j) * TILE_LD + kk];
#if TILE_HAS_UP
                uv[j] = Bu[(tx + 16u * j) * TILE_LD + kk];
#else
                uv[j] = 0.0;
#endif
            }
            for (uint i = 0u; i < 4u; i++)
                for (uint j = 0u; j < TILE_TN; j++) {
                    acc[i][j] = fma(av[i], bv[j], acc[i][j]);
                    if (TILE_UP) accu[i][j] = fma(av[i], uv[j], accu[i][j]);
                }
        }
        barrier();
    }
    for (uint i = 0u; i < 4u; i++) {
        uint m = m0 + ty * 4u + i;
        if (m >= pc.M) continue;
        for (uint j = 0u; j < TILE_TN; j++) {
            uint c = tx + 16u * j;
            if (c < ncols) tile_store(m, c, acc[i][j], accu[i][j]);
        }
    }
}
#endif
