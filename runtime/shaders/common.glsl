// common.glsl - shared prelude of every compute shader: extensions, dtype macros, workgroup size
// (specialization constant 0) and flat ids for 1-D grids folded into x/y.
// Build defines per variant (runtime/shaders/meson.build): A_T/B_T storage types, A_C/B_C compute
// types, A_FLOAT/B_FLOAT, A_SIGNED/B_SIGNED, A_BITS/B_BITS (A = input dtype, B = output dtype).
#extension GL_EXT_shader_16bit_storage : enable
#extension GL_EXT_shader_8bit_storage : enable
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : enable
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : enable
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : enable
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : enable

layout(local_size_x_id = 0) in;

// Every kernel declares its parameters as `PARAMS_BLOCK PC { ... } pc;` so that where the
// parameters live is decided here, once, for every shader: a uniform buffer at binding
// K_PARAMS_BINDING (bindings.h, which runtime/kernel.h includes too) holding
// each dispatch's block at its own offset (runtime/replay.c), so that a recorded command buffer is
// replayed for new sizes by rewriting the blocks, not the commands.  Bindings below it are the kernel's.
// (The device token loop turns the block into a push-constant block, rewriting the SPIR-V at pipeline
// creation, for the dispatches whose parameters no decode step changes: runtime/vk_spirv_push.h.)
// A uniform block, not a storage one: the NVIDIA compiler reads its members as constant-bank operands
// instead of reloading them through the cache (H100, Qwen2-0.5B int4: prefill GPU time 12.1 -> 10.7
// ms, decode 1383 -> 1368 us per step).  Its layout stays std430 (the C structs' layout), which needs
// the device feature uniformBufferStandardLayout (runtime/vk_device.c requires it).
#extension GL_EXT_scalar_block_layout : require
#include "bindings.h"
#define PARAMS_BLOCK layout(std430, set = 0, binding = K_PARAMS_BINDING) uniform
// A parameter that the host may fix at pipeline creation as specialization constant F (0: not
// fixed, read P from the parameter block): FIXED_OR for values that are never 0, FIXED1_OR for values
// that may be (F holds the value + 1: runtime/kernel.h K_FIXED1).  Fixed, the compiler sees constant
// loop bounds and index arithmetic.
#define FIXED_OR(F, P) ((F) != 0u ? (F) : (P))
#define FIXED1_OR(F, P) ((F) != 0u ? (F) - 1u : (P))

uint flat_group() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
uint flat_id() { return flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x; }

// Lowest / highest value of the compute type of A (identities of max / min reductions).
#if A_FLOAT
#define A_LOWEST (uintBitsToFloat(0xff800000u))
#define A_HIGHEST (uintBitsToFloat(0x7f800000u))
#elif A_BITS == 64 && A_SIGNED
#define A_LOWEST (int64_t(-9223372036854775807l) - int64_t(1))
#define A_HIGHEST (int64_t(9223372036854775807l))
#elif A_BITS == 64
#define A_LOWEST (uint64_t(0ul))
#define A_HIGHEST (uint64_t(18446744073709551615ul))
#elif A_SIGNED
#define A_LOWEST (-2147483647 - 1)
#define A_HIGHEST (2147483647)
#else
#define A_LOWEST (0u)
#define A_HIGHEST (4294967295u)
#endif

#if A_FLOAT
// x rounded to the storage type A_T and back, as storing and loading it would (round to nearest
// even).  For float16 written out (its subnormals and overflow included) instead of as
// float(float16_t(x)), which the NVIDIA H200's compiler (driver 580) did not round: in the mat-vec's
// residual epilogue the product then entered the sum unrounded, a third of the sums of
// test_rt_ext_fused residual_fold came out up to 4 float16 ulps from the unfused graph's, and with
// this function they are the same bytes.  Where it runs per output, not in inner loops: in the
// normalized projection's unit loop it made decode a third slower there.
float a_round(float x) {
#if A_BITS == 16
    int e = int((floatBitsToUint(x) >> 23u) & 0xffu) - 127; // x's binary exponent (f32 subnormals: -127)
    int k = max(e, -14) - 10;                                // float16's spacing at x is 2^k
    float r = ldexp(roundEven(ldexp(x, -k)), k);
    return abs(r) > 65504.0 ? (x < 0.0 ? A_LOWEST : A_HIGHEST) : r;
#else
    return x;
#endif
}
#endif
