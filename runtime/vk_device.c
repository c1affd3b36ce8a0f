/* vk_device.c - Vulkan instance creation, physical-device probing (limits and optional features
 * that kernels care about), device selection (discrete > integrated > other > CPU; WEBNNC_DEVICE
 * overrides) and logical-device creation with one compute queue. */
#include "vk_device.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "rt_env.h"
#include "vk_pipeline.h"

#define MAX_DEVICES 16

int vkdev_fail(const char *what, VkResult r) {
    diag_error("vulkan: %s failed (VkResult %d)", what, (int)r);
    return -1;
}

int vkdev_instance(VkInstance *out) {
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "webnnc",
                             .pEngineName = "webnnc",
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkResult r = vkCreateInstance(&ci, NULL, out);
    if (r != VK_SUCCESS) return vkdev_fail("vkCreateInstance (is a Vulkan driver installed?)", r);
    return 0;
}

int vkdev_list(VkInstance inst, VkPhysicalDevice *out, int max) {
    uint32_t n = 0;
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, NULL);
    if (r != VK_SUCCESS) return vkdev_fail("vkEnumeratePhysicalDevices", r);
    if (n > (uint32_t)max) n = (uint32_t)max;
    r = vkEnumeratePhysicalDevices(inst, &n, out);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vkdev_fail("vkEnumeratePhysicalDevices", r);
    return (int)n;
}

static bool has_extension(VkPhysicalDevice pd, const char *name) {
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS) return false;
    VkExtensionProperties *e = calloc(n ? n : 1, sizeof *e);
    if (!e) return false;
    bool found = false;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = strcmp(e[i].extensionName, name) == 0;
    free(e);
    return found;
}

static WnrtDeviceType map_type(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return WNRT_DEV_INTEGRATED;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return WNRT_DEV_DISCRETE;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return WNRT_DEV_VIRTUAL;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return WNRT_DEV_CPU;
    default: return WNRT_DEV_OTHER;
    }
}

const char *wnrt_device_type_name(WnrtDeviceType t) {
    static const char *names[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU", "CPU"};
    return (unsigned)t < 5 ? names[t] : "unknown";
}

void vkdev_probe(VkPhysicalDevice pd, WnrtDeviceInfo *info) {
    memset(info, 0, sizeof *info);
    VkPhysicalDeviceSubgroupProperties sg = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sg};
    vkGetPhysicalDeviceProperties2(pd, &p2);
    /* the properties of later core versions, asked for only where the device has that version */
    uint32_t api = p2.properties.apiVersion;
    bool v12 = VK_API_VERSION_MAJOR(api) > 1 || VK_API_VERSION_MINOR(api) >= 2;
    bool v13 = VK_API_VERSION_MAJOR(api) > 1 || VK_API_VERSION_MINOR(api) >= 3;
    VkPhysicalDeviceMaintenance4Properties m4 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
    VkPhysicalDeviceFloatControlsProperties fc = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES,
                                                  .pNext = v13 ? &m4 : NULL};
    if (v12) {
        VkPhysicalDeviceProperties2 q = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &fc};
        vkGetPhysicalDeviceProperties2(pd, &q);
    }
    const VkPhysicalDeviceProperties *p = &p2.properties;
    const VkPhysicalDeviceLimits *l = &p->limits;
    snprintf(info->name, sizeof info->name, "%s", p->deviceName);
    info->type = map_type(p->deviceType);
    info->api_version = p->apiVersion;
    info->vendor_id = p->vendorID;
    info->device_id = p->deviceID;
    info->max_storage_buffer_range = l->maxStorageBufferRange;
    info->min_storage_offset_alignment = (uint32_t)l->minStorageBufferOffsetAlignment;
    info->max_shared_memory = l->maxComputeSharedMemorySize;
    info->max_push_constants = l->maxPushConstantsSize;
    info->max_storage_buffers = l->maxPerStageDescriptorStorageBuffers < l->maxDescriptorSetStorageBuffers
                                    ? l->maxPerStageDescriptorStorageBuffers
                                    : l->maxDescriptorSetStorageBuffers;
    info->max_workgroup_invocations = l->maxComputeWorkGroupInvocations;
    for (int i = 0; i < 3; i++) info->max_workgroup_count[i] = l->maxComputeWorkGroupCount[i];
    info->subgroup_size = sg.subgroupSize;
    info->subgroup_arithmetic = (sg.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
                                (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    info->subgroup_shuffle = (sg.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) &&
                             (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    /* conservative unless maintenance4 says more */
    info->max_buffer_size = v13 && m4.maxBufferSize ? m4.maxBufferSize : 1ull << 31;

    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .pNext = &f12};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f11};
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    info->float16 = f12.shaderFloat16;
    info->int8 = f12.shaderInt8;
    info->storage8 = f12.storageBuffer8BitAccess;
    info->storage16 = f11.storageBuffer16BitAccess;
    info->int64 = f2.features.shaderInt64;
    info->int64_atomics = f2.features.shaderInt64 && f12.shaderBufferInt64Atomics;
    info->uniform_standard_layout = f12.uniformBufferStandardLayout;
    info->push_descriptor = has_extension(pd, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    info->rte16 = fc.shaderRoundingModeRTEFloat16;

    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    info->n_heaps = (int)(mp.memoryHeapCount < WNRT_MAX_HEAPS ? mp.memoryHeapCount : WNRT_MAX_HEAPS);
    for (int i = 0; i < info->n_heaps; i++) {
        info->heap_size[i] = mp.memoryHeaps[i].size;
        info->heap_device_local[i] = mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
    }
    /* Unified: the first device-local type is also host visible. */
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
        if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) {
            info->unified_memory = (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
                                   (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
            break;
        }
    }
}

int wnrt_device_count(void) {
    VkInstance inst;
    if (vkdev_instance(&inst) < 0) return -1;
    VkPhysicalDevice pds[MAX_DEVICES];
    int n = vkdev_list(inst, pds, MAX_DEVICES);
    vkDestroyInstance(inst, NULL);
    return n;
}

int wnrt_device_info(int index, WnrtDeviceInfo *out) {
    VkInstance inst;
    if (vkdev_instance(&inst) < 0) return -1;
    VkPhysicalDevice pds[MAX_DEVICES];
    int n = vkdev_list(inst, pds, MAX_DEVICES);
    int rc = -1;
    if (n >= 0 && (index < 0 || index >= n))
        diag_error("vulkan: no device %d (%d device%s)", index, n, n == 1 ? "" : "s");
    else if (n >= 0) {
        vkdev_probe(pds[index], out);
        rc = 0;
    }
    vkDestroyInstance(inst, NULL);
    return rc;
}

static int rank_type(WnrtDeviceType t) {
    switch (t) {
    case WNRT_DEV_DISCRETE: return 0;
    case WNRT_DEV_INTEGRATED: return 1;
    case WNRT_DEV_VIRTUAL: return 2;
    case WNRT_DEV_OTHER: return 3;
    default: return 4;
    }
}

static int pick_device(VkPhysicalDevice *pds, int n, int index) {
    const char *env = getenv("WEBNNC_DEVICE");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end || v < -1) {
            diag_error("WEBNNC_DEVICE=%s is not a device index", env);
            return -1;
        }
        index = (int)v;
    }
    if (index >= 0) {
        if (index >= n) {
            diag_error("vulkan: no device %d (%d device%s; see `webnnc devices`)", index, n, n == 1 ? "" : "s");
            return -1;
        }
        return index;
    }
    int best = -1, best_rank = 99;
    for (int i = 0; i < n; i++) {
        WnrtDeviceInfo info;
        vkdev_probe(pds[i], &info);
        if ((VK_API_VERSION_MINOR(info.api_version) < 2 && VK_API_VERSION_MAJOR(info.api_version) == 1) ||
            !info.uniform_standard_layout)
            continue;
        int r = rank_type(info.type);
        if (r < best_rank) best = i, best_rank = r;
    }
    if (best < 0) diag_error("vulkan: no Vulkan 1.2 device with uniformBufferStandardLayout found");
    return best;
}

static int find_compute_queue(VkPhysicalDevice pd, uint32_t *family) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties q[32];
    if (n > 32) n = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
    int fallback = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(q[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
        if (!(q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) { *family = i; return 0; } /* async compute */
        if (fallback < 0) fallback = (int)i;
    }
    if (fallback < 0) {
        diag_error("vulkan: device has no compute queue");
        return -1;
    }
    *family = (uint32_t)fallback;
    return 0;
}

/* NV cooperative matrices usable by the prefill GEMMs (shaders/nbits_tile.glsl) and attention
 * (shaders/ext_gqa_attn_flash_coop.comp): the extension, float16 arithmetic, subgroups of 32 and a
 * float16 16x16x16 shape with float32 accumulation at subgroup scope.  (VK_KHR_cooperative_matrix would do as well, but Debian 12's glslang 11.13 and Vulkan
 * headers 1.3.239 do not know it.)  On by default where usable; WEBNNC_COOPMAT=0 turns it off (the
 * portable tile core; nbits_tile.glsl notes the float16 difference this path has on the H100). */
static bool coopmat_nv_usable(VkInstance inst, VkPhysicalDevice pd, const WnrtDeviceInfo *info) {
    if (!wnrt_env_flag("WEBNNC_COOPMAT", true) || !info->float16 || info->subgroup_size != 32 ||
        !has_extension(pd, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME))
        return false;
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV get =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)vkGetInstanceProcAddr(inst, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV");
    uint32_t n = 0;
    if (!get || get(pd, &n, NULL) != VK_SUCCESS || n == 0) return false;
    VkCooperativeMatrixPropertiesNV *p = calloc(n, sizeof *p);
    if (!p) return false;
    for (uint32_t i = 0; i < n; i++) p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
    bool ok = false;
    if (get(pd, &n, p) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !ok; i++)
            ok = p[i].MSize == 16 && p[i].NSize == 16 && p[i].KSize == 16 && p[i].AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
                 p[i].BType == VK_COMPONENT_TYPE_FLOAT16_NV && p[i].CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
                 p[i].DType == VK_COMPONENT_TYPE_FLOAT32_NV && p[i].scope == VK_SCOPE_SUBGROUP_NV;
    free(p);
    return ok;
}

VkDev *vkdev_open(int index) {
    VkDev *d = calloc(1, sizeof *d);
    if (!d) { diag_error("out of memory"); return NULL; }
    if (vkdev_instance(&d->instance) < 0) { free(d); return NULL; }
    VkPhysicalDevice pds[MAX_DEVICES];
    int n = vkdev_list(d->instance, pds, MAX_DEVICES);
    int pick = n < 0 ? -1 : pick_device(pds, n, index);
    if (pick < 0) goto fail;
    d->phys = pds[pick];
    vkdev_probe(d->phys, &d->info);
    if (VK_API_VERSION_MAJOR(d->info.api_version) == 1 && VK_API_VERSION_MINOR(d->info.api_version) < 2) {
        diag_error("vulkan: device %s supports only Vulkan %u.%u (1.2 needed)", d->info.name,
                   VK_API_VERSION_MAJOR(d->info.api_version), VK_API_VERSION_MINOR(d->info.api_version));
        goto fail;
    }
    if (!d->info.uniform_standard_layout) {
        diag_error("vulkan: device %s lacks the Vulkan 1.2 feature uniformBufferStandardLayout, which the kernels' "
                   "parameter blocks need", d->info.name);
        goto fail;
    }
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(d->phys, &props);
    memcpy(d->pipeline_cache_uuid, props.pipelineCacheUUID, VK_UUID_SIZE);
    vkGetPhysicalDeviceMemoryProperties(d->phys, &d->mem_props);
    if (find_compute_queue(d->phys, &d->queue_family) < 0) goto fail;

    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = d->queue_family, .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .pNext = &f12};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f11};
    f12.shaderFloat16 = d->info.float16;
    f12.shaderInt8 = d->info.int8;
    f12.storageBuffer8BitAccess = d->info.storage8;
    f12.uniformBufferStandardLayout = VK_TRUE;
    f11.storageBuffer16BitAccess = d->info.storage16;
    f2.features.shaderInt64 = d->info.int64;
    f12.shaderBufferInt64Atomics = d->info.int64_atomics;
    const char *exts[3];
    uint32_t n_exts = 0;
    if (d->info.push_descriptor) exts[n_exts++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    d->info.coopmat_nv = coopmat_nv_usable(d->instance, d->phys, &d->info);
    VkPhysicalDeviceCooperativeMatrixFeaturesNV fcoop = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
                                                         .cooperativeMatrix = VK_TRUE};
    if (d->info.coopmat_nv) {
        exts[n_exts++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
        fcoop.pNext = f12.pNext;
        f12.pNext = &fcoop;
    }
    /* Fences are waited for by polling their status on GPUs (WEBNNC_WAIT_POLL=0: blocking in the
     * driver), which keeps a core busy meanwhile.  The driver's blocking wait woke the host about 130
     * us after the work ended (H200; the device token loop's GPU idle until its next submit:
     * Qwen2-0.5B, 127 tokens after 512 / 128, batches of 16 steps, 1087 / 1185 -> 1097 / 1198 tok/s).
     * CPU devices block: their work runs on the host's cores. */
    d->poll_fences = wnrt_env_flag("WEBNNC_WAIT_POLL", d->info.type != WNRT_DEV_CPU);
    d->round_rte16 = d->info.rte16 && wnrt_env_flag("WEBNNC_RTE16", true);
    d->pipeline_stats = wnrt_env_flag("WEBNNC_PIPELINE_STATS", false) &&
                        has_extension(d->phys, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fexec = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR, .pipelineExecutableInfo = VK_TRUE};
    if (d->pipeline_stats) {
        exts[n_exts++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
        fexec.pNext = f12.pNext;
        f12.pNext = &fexec;
    }
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f2,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = n_exts, .ppEnabledExtensionNames = exts};
    VkResult r = vkCreateDevice(d->phys, &dci, NULL, &d->device);
    if (r != VK_SUCCESS) { vkdev_fail("vkCreateDevice", r); goto fail; }
    vkGetDeviceQueue(d->device, d->queue_family, 0, &d->queue);
    if (d->info.push_descriptor)
        d->push_descriptor_fn = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(d->device, "vkCmdPushDescriptorSetKHR");
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = d->queue_family};
    r = vkCreateCommandPool(d->device, &pci, NULL, &d->cmd_pool);
    if (r != VK_SUCCESS) { vkdev_fail("vkCreateCommandPool", r); goto fail; }
    d->pipelines = vk_pipeset_create(d);
    if (!d->pipelines) goto fail;
    return d;
fail:
    vkdev_close(d);
    return NULL;
}

void vkdev_close(VkDev *d) {
    if (!d) return;
    if (d->device) {
        vkDeviceWaitIdle(d->device);
        vk_pipeset_destroy(d, d->pipelines);
        if (d->cmd_pool) vkDestroyCommandPool(d->device, d->cmd_pool, NULL);
        vkDestroyDevice(d->device, NULL);
    }
    if (d->instance) vkDestroyInstance(d->instance, NULL);
    free(d);
}

int vkdev_cb_alloc(VkDev *d, VkCommandBuffer *cb) {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = d->cmd_pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkResult r = vkAllocateCommandBuffers(d->device, &ai, cb);
    return r == VK_SUCCESS ? 0 : vkdev_fail("vkAllocateCommandBuffers", r);
}

int vkdev_cb_begin(VkDev *d, VkCommandBuffer *cb) {
    if (!*cb && vkdev_cb_alloc(d, cb) < 0) return -1;
    vkResetCommandBuffer(*cb, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(*cb, &bi);
    return 0;
}

VkCommandBuffer vkdev_begin_once(VkDev *d) {
    VkCommandBuffer cb;
    if (vkdev_cb_alloc(d, &cb) < 0) return VK_NULL_HANDLE;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cb, &bi);
    return cb;
}

int vkdev_submit_wait(VkDev *d, VkCommandBuffer cb, VkFence fence) {
    return vkdev_submit(d, cb, fence) < 0 ? -1 : vkdev_wait(d, fence);
}

int vkdev_submit(VkDev *d, VkCommandBuffer cb, VkFence fence) { return vkdev_submit_n(d, &cb, 1, fence); }

int vkdev_submit_n(VkDev *d, const VkCommandBuffer *cbs, int n, VkFence fence) {
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = (uint32_t)n, .pCommandBuffers = cbs};
    VkResult r = vkQueueSubmit(d->queue, 1, &si, fence);
    return r == VK_SUCCESS ? 0 : vkdev_fail("vkQueueSubmit", r);
}

int vkdev_wait(VkDev *d, VkFence fence) {
    VkResult r;
    if (fence) {
        bool poll = d->poll_fences;
        if (poll)
            while ((r = vkGetFenceStatus(d->device, fence)) == VK_NOT_READY) sched_yield();
        else
            r = vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX);
        if (r != VK_SUCCESS) return vkdev_fail(poll ? "vkGetFenceStatus" : "vkWaitForFences", r);
        r = vkResetFences(d->device, 1, &fence);
        if (r != VK_SUCCESS) return vkdev_fail("vkResetFences", r);
    } else {
        r = vkQueueWaitIdle(d->queue);
        if (r != VK_SUCCESS) return vkdev_fail("vkQueueWaitIdle", r);
    }
    return 0;
}

int vkdev_end_once(VkDev *d, VkCommandBuffer cb) {
    VkResult r = vkEndCommandBuffer(cb);
    int rc = r == VK_SUCCESS ? vkdev_submit_wait(d, cb, VK_NULL_HANDLE) : vkdev_fail("vkEndCommandBuffer", r);
    vkFreeCommandBuffers(d->device, d->cmd_pool, 1, &cb);
    return rc;
}
