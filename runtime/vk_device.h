/* vk_device.h - Vulkan instance, physical-device probing and the logical compute device.
 *
 * Vulkan 1.2+ core; optional features (16/8-bit storage, shaderFloat16, shaderInt8, shaderInt64,
 * subgroup arithmetic, push descriptors) are probed and enabled when present.  With
 * WEBNNC_PIPELINE_STATS=1, VK_KHR_pipeline_executable_properties is enabled (where the driver has
 * it) and vk_pipeline.c prints each new pipeline's statistics (registers, ...) to stderr.
 */
#ifndef WEBNNC_VK_DEVICE_H
#define WEBNNC_VK_DEVICE_H

#include <vulkan/vulkan.h>

#include "webnnc_runtime.h"

typedef struct VkDev {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    VkCommandPool cmd_pool;
    WnrtDeviceInfo info;
    uint8_t pipeline_cache_uuid[VK_UUID_SIZE];
    VkPhysicalDeviceMemoryProperties mem_props;
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_fn; /* NULL when unsupported */
    bool pipeline_stats;                              /* WEBNNC_PIPELINE_STATS=1 and the driver reports them */
    bool poll_fences;                                 /* vkdev_wait polls (WEBNNC_WAIT_POLL; default on GPUs) */
    bool round_rte16;                                 /* shaders round float16 results to nearest even (vk_spirv_rte.h;
                                                         where info.rte16, unless WEBNNC_RTE16=0) */
    struct PipelineSet *pipelines;                    /* vk_pipeline.c */
    int pipelines_created;                            /* by vk_pipeset_get so far */
} VkDev;

/* Creates an instance (caller destroys it); -1 with a diagnostic on failure. */
int vkdev_instance(VkInstance *out);
/* Physical devices of an instance, at most max; returns the count or -1. */
int vkdev_list(VkInstance inst, VkPhysicalDevice *out, int max);
void vkdev_probe(VkPhysicalDevice pd, WnrtDeviceInfo *info);
/* Opens device `index` (-1 auto; WEBNNC_DEVICE overrides).  Returns NULL with a diagnostic. */
VkDev *vkdev_open(int index);
void vkdev_close(VkDev *d);
/* One primary command buffer of the device's pool into *cb.  0 or -1 (diagnostic). */
int vkdev_cb_alloc(VkDev *d, VkCommandBuffer *cb);
/* Begins recording *cb (allocated first when VK_NULL_HANDLE, else reset).  0 or -1 (diagnostic). */
int vkdev_cb_begin(VkDev *d, VkCommandBuffer *cb);
/* One-shot command buffer helpers (load-time uploads). */
VkCommandBuffer vkdev_begin_once(VkDev *d);
int vkdev_submit_wait(VkDev *d, VkCommandBuffer cb, VkFence fence);
/* The two halves of vkdev_submit_wait: submit; wait for the fence (reset after) or the queue. */
int vkdev_submit(VkDev *d, VkCommandBuffer cb, VkFence fence);
/* n command buffers in order, in one submission (the fence signals after the last). */
int vkdev_submit_n(VkDev *d, const VkCommandBuffer *cbs, int n, VkFence fence);
int vkdev_wait(VkDev *d, VkFence fence);
int vkdev_end_once(VkDev *d, VkCommandBuffer cb);
/* Diagnostic for a failed Vulkan call; returns -1. */
int vkdev_fail(const char *what, VkResult r);

#endif
