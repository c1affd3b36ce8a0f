/* vk_spirv_rte.h - float16 results rounded to nearest even: the RoundingModeRTE execution mode
 * (SPIR-V 1.4 float controls) added to a compute shader's SPIR-V at pipeline creation.
 *
 * Without a rounding-mode decoration or execution mode, Vulkan leaves the rounding of float32 ->
 * float16 conversions (every float16 store of a float32 result) to the implementation.  ONNX
 * Runtime and PyTorch round to nearest even, and so does lavapipe; so where the device has
 * shaderRoundingModeRTEFloat16 the runtime asks for it in every shader (vk_pipeline.c;
 * WEBNNC_RTE16=0 leaves the modules as glslc wrote them).  Measured on an NVIDIA H200 (driver
 * 580): it has the feature, and tests/runtime/test_rt_eltwise.c cast_float16_rounding passes there
 * with and without the mode (so that driver rounds to nearest anyway); decode rates and generated
 * ids are the same either way.  (The test failure that led to this, test_rt_ext_fused.c
 * residual_fold, had another cause: a float16 round trip the compiler did not round; a_round in
 * shaders/common.glsl.)
 */
#ifndef WEBNNC_VK_SPIRV_RTE_H
#define WEBNNC_VK_SPIRV_RTE_H

#include <stddef.h>
#include <stdint.h>

/* A malloc'd copy of the module `code` (`bytes` long) with OpCapability RoundingModeRTE and
 * OpExecutionMode RoundingModeRTE 16 on its entry point, its length in *out_bytes; NULL with a
 * diagnostic when the module is not SPIR-V 1.4 or later with one entry point (our glslc output is
 * 1.5), or is malformed.  A module that already has the capability is copied unchanged.  (Every
 * patched shader of the table passes `spirv-val --target-env vulkan1.2 --scalar-block-layout
 * --uniform-buffer-standard-layout`.) */
uint32_t *vk_spirv_with_rte16(const uint32_t *code, size_t bytes, size_t *out_bytes);

#endif
