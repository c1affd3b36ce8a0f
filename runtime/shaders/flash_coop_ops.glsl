// flash_coop_ops.glsl - the cooperative-matrix and subgroup operations of the cooperative-matrix
// prefill attention (gqa_flash_coop.glsl), in one of two builds chosen by FLASH_COOP_EMULATE:
//  0  native: GL_NV_cooperative_matrix 16x16 float16 A/B fragments (FRAG) and float32 accumulators
//     (ACC) of a subgroup of 32, subgroup shuffles / min / barrier (ext_gqa_attn_flash_coop.comp);
//  1  emulated in plain GLSL, for tests on devices without cooperative matrices or with other
//     subgroup sizes (lavapipe: ext_gqa_attn_flash_coop_emu.comp, WEBNNC_FLASH_COOP=emulate): a
//     "subgroup" is 32 consecutive invocations; every invocation holds whole A/B fragments and 8
//     elements of each accumulator (float32: float16 operands are exact in them); the
//     cross-invocation operations go through shared memory between barrier() calls.  The kernel
//     calls the subgroup operations below in workgroup-uniform control flow only, so barrier() may
//     stand for subgroupBarrier().
// Operations: FC_SG / FC_LANE (subgroup, invocation in it), FC_LOAD(M, BUF, OFF, LD, CM) (A/B fragment
// from shared array BUF at element OFF, row / column stride LD, CM: column-major), FC_LOAD_ACC(M, BUF,
// OFF, LD) (accumulator, row-major), FC_STORE(M, BUF, OFF, LD) (accumulator, row-major), fc_zero(),
// fc_mul_add(A, B, C) = A B + C, fc_scale(O, R): O times R component by component, fc_sync() (the
// subgroup's shared-memory writes visible to it), fc_xor1(x) (x of the invocation FC_LANE ^ 1),
// fc_min(x) (minimum over the subgroup), fc_shuffle(x, lane).
// Include after common.glsl.
#if !FLASH_COOP_EMULATE
#extension GL_NV_cooperative_matrix : enable
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_shuffle : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable

#define FRAG fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define FC_SG gl_SubgroupID
#define FC_LANE gl_SubgroupInvocationID
#define FC_LOAD(M, BUF, OFF, LD, CM) coopMatLoadNV(M, BUF, OFF, LD, CM)
#define FC_LOAD_ACC(M, BUF, OFF, LD) coopMatLoadNV(M, BUF, OFF, LD, false)
#define FC_STORE(M, BUF, OFF, LD) coopMatStoreNV(M, BUF, OFF, LD, false)

ACC fc_zero() { return ACC(0.0); }
ACC fc_mul_add(FRAG a, FRAG b, ACC c) { return coopMatMulAddNV(a, b, c); }
// Component i of two matrices of one type is the same matrix element (one layout per type).
// (Component-wise operators on two matrices, e.g. O * R, crash spirv-opt 2022.4 of glslc -O,
// Debian 12; element access does not.)
void fc_scale(inout ACC o, ACC r) {
    for (int i = 0; i < r.length(); i++) o[i] *= r[i];
}
void fc_sync() {
    subgroupMemoryBarrierShared();
    subgroupBarrier();
}
float fc_xor1(float x) { return subgroupShuffleXor(x, 1u); }
float fc_min(float x) { return subgroupMin(x); }
float fc_shuffle(float x, uint lane) { return subgroupShuffle(x, lane); }
#else
struct FcFull { float v[256]; }; // a whole matrix, row-major
struct FcOwn { float v[8]; };    // elements FC_LANE + 32 i of a matrix, row-major
#define FRAG FcFull
#define ACC FcOwn
#define FC_SG (gl_LocalInvocationID.x / 32u)
#define FC_LANE (gl_LocalInvocationID.x % 32u)
#define FC_AT(BUF, OFF, LD, CM, E) BUF[(CM) ? (OFF) + ((E) % 16u) * (LD) + (E) / 16u : (OFF) + ((E) / 16u) * (LD) + (E) % 16u]
#define FC_LOAD(M, BUF, OFF, LD, CM) \
    for (uint fc_e = 0u; fc_e < 256u; fc_e++) M.v[fc_e] = float(FC_AT(BUF, OFF, LD, CM, fc_e))
#define FC_LOAD_ACC(M, BUF, OFF, LD) \
    for (uint fc_i = 0u; fc_i < 8u; fc_i++) M.v[fc_i] = FC_AT(BUF, OFF, LD, false, FC_LANE + 32u * fc_i)
#define FC_STORE(M, BUF, OFF, LD) \
    for (uint fc_i = 0u; fc_i < 8u; fc_i++) FC_AT(BUF, OFF, LD, false, FC_LANE + 32u * fc_i) = M.v[fc_i]

shared float fc_x[128]; // one value per invocation (4 subgroups of 32 at most)

FcOwn fc_zero() {
    FcOwn m;
    for (uint i = 0u; i < 8u; i++) m.v[i] = 0.0;
    return m;
}
FcOwn fc_mul_add(FcFull a, FcFull b, FcOwn c) {
    for (uint i = 0u; i < 8u; i++) {
        uint r = (FC_LANE + 32u * i) / 16u, col = (FC_LANE + 32u * i) % 16u;
        float s = c.v[i];
        for (uint k = 0u; k < 16u; k++) s = fma(a.v[r * 16u + k], b.v[k * 16u + col], s);
        c.v[i] = s;
    }
    return c;
}
void fc_scale(inout FcOwn o, FcOwn r) {
    for (uint i = 0u; i < 8u; i++) o.v[i] *= r.v[i];
}
void fc_sync() {
    memoryBarrierShared();
    barrier();
}
// x of invocation `lane` of this subgroup, through fc_x
float fc_shuffle(float x, uint lane) {
    fc_x[gl_LocalInvocationID.x] = x;
    barrier();
    float y = fc_x[FC_SG * 32u + lane];
    barrier();
    return y;
}
float fc_xor1(float x) { return fc_shuffle(x, FC_LANE ^ 1u); }
float fc_min(float x) {
    fc_x[gl_LocalInvocationID.x] = x;
    barrier();
    float y = x;
    for (uint i = 0u; i < 32u; i++) y = min(y, fc_x[FC_SG * 32u + i]);
    barrier();
    return y;
}
#endif
