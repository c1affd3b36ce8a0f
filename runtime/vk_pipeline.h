/* vk_pipeline.h - embedded SPIR-V shader variants and lazily created compute pipelines.
 *
 * Shader variants (name + dtypes) are compiled by glslc at build time (runtime/shaders/meson.build)
 * and listed in the generated shader_table.h.  A pipeline is made on first use for a
 * (variant, specialization constants) pair; its VkPipelineCache data is persisted on disk in
 * $XDG_CACHE_HOME/webnnc (or ~/.cache/webnnc), one file per pipeline named by the xxHash64 of
 * SPIR-V + spec constants + the driver's pipelineCacheUUID.  WEBNNC_NO_PIPELINE_CACHE=1 disables it.
 * All pipelines share one layout: the kernel's storage-buffer bindings and its parameter block's
 * uniform buffer (push descriptors), and K_PUSH_MAX bytes of push constants (fewer where the device
 * has fewer), for the variants whose parameter block is read from push constants (vk_spirv_push.h).
 */
#ifndef WEBNNC_VK_PIPELINE_H
#define WEBNNC_VK_PIPELINE_H

#include <stddef.h>

#include "core.h"
#include "vk_device.h"

typedef struct {
    const char *name; /* shader file name without .comp */
    DType a, b;       /* dtype variant; b = DT_INVALID when unused */
    const uint32_t *code;
    size_t size;      /* bytes */
} ShaderInfo;

int vk_shader_count(void);
const ShaderInfo *vk_shader_get(int id);
/* Variant id or -1. */
int vk_shader_lookup(const char *name, DType a, DType b);
/* Whether the device can run dtype dt in a shader (16/8-bit storage, int64). */
bool vk_shader_dtype_ok(const VkDev *d, DType dt);

typedef struct PipelineSet PipelineSet;
PipelineSet *vk_pipeset_create(VkDev *d);
void vk_pipeset_destroy(VkDev *d, PipelineSet *p);
VkPipelineLayout vk_pipeset_layout(const VkDev *d);
VkDescriptorSetLayout vk_pipeset_set_layout(const VkDev *d);
/* Pipeline for (shader, spec constants ids 0..n_spec-1), its parameter block read from push
 * constants when `push` (only where vk_pipeset_push_fits); created on first use. */
VkPipeline vk_pipeset_get(VkDev *d, int shader, const uint32_t *spec, int n_spec, bool push);
/* Bytes of push constants in the layout (K_PUSH_MAX, or maxPushConstantsSize where that is less:
 * 128 on lavapipe), and whether the parameter block of `shader` fits them. */
uint32_t vk_pipeset_push_range(const VkDev *d);
bool vk_pipeset_push_fits(VkDev *d, int shader);
int vk_pipeset_count(const VkDev *d);

#endif
