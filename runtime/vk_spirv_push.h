/* vk_spirv_push.h - a kernel's parameter block read from push constants instead of its uniform
 * buffer: the SPIR-V of a shader rewritten at pipeline creation (vk_pipeline.c, runtime/loop.c).
 *
 * Every kernel declares its parameters once (shaders/common.glsl PARAMS_BLOCK), as a uniform block at
 * binding K_PARAMS_BINDING: each dispatch's block lives in its own slot of a buffer (replay.h), so a
 * recording is replayed for new sizes by rewriting slots.  But a kernel then loads its parameters from
 * memory before it can address anything else: on an NVIDIA H200 (driver 580, Qwen2-0.5B int4 decode,
 * about 100 dispatches a step) the same parameters as push constants decoded 4.6% faster (1525 ->
 * 1595 tok/s after 128 tokens, 1482 -> 1550 after 512; the same ids).  Push constants are written into
 * the command buffer, though, so the device loop (runtime/loop.c) takes them only for the dispatches
 * whose parameters do not change from step to step. */
#ifndef WEBNNC_VK_SPIRV_PUSH_H
#define WEBNNC_VK_SPIRV_PUSH_H

#include <stddef.h>
#include <stdint.h>

/* A malloc'd copy of the module `code` (`bytes` long) whose uniform block at descriptor set 0,
 * binding `binding` is a push-constant block instead (the variable and every pointer type of the
 * Uniform storage class become PushConstant; its DescriptorSet and Binding decorations go), its
 * length in *out_bytes.  A module without that block (no parameters used) is copied unchanged.
 * NULL with a diagnostic when the module is malformed, already has a push-constant block, or has
 * another variable of the Uniform storage class. */
uint32_t *vk_spirv_params_push(const uint32_t *code, size_t bytes, uint32_t binding, size_t *out_bytes);
/* Bytes that the same block spans (its members' highest offset + size: what a pipeline layout's
 * push-constant range must cover, VUID-VkComputePipelineCreateInfo-layout-10069); 0 without the
 * block; UINT32_MAX (with a diagnostic where the module is malformed) for a member that is not a
 * scalar or vector. */
uint32_t vk_spirv_params_extent(const uint32_t *code, size_t bytes, uint32_t binding);

#endif
