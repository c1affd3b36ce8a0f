/* timing.c - GPU timing of runs for benchmarks (webnnc_runtime.h wnrt_set_timing /
 * wnrt_last_gpu_ns): a two-entry timestamp query pool that record.c brackets the node dispatches
 * of every recording with (after the input uploads, after the last dispatch). */
#include <stdlib.h>

#include "rt_model.h"

/* Valid timestamp bits of the model's queue family (0: no timestamps). */
uint32_t wnrt_timing_bits(const VkDev *d) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &n, NULL);
    if (d->queue_family >= n) return 0;
    VkQueueFamilyProperties *q = calloc(n, sizeof *q);
    if (!q) return 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &n, q);
    uint32_t bits = q[d->queue_family].timestampValidBits;
    free(q);
    return bits;
}

int wnrt_set_timing(WnrtModel *m, bool on) {
    if (m->n_rec > 0) {
        diag_error("wnrt_set_timing: call it before the first run");
        return -1;
    }
    if (!on) {
        wnrt_timing_free(m);
        return 0;
    }
    if (m->timestamps) return 0;
    if (wnrt_timing_bits(m->dev) == 0) {
        diag_error("vulkan: device %s has no timestamps on its compute queue", m->dev->info.name);
        return -1;
    }
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = 2};
    VkResult r = vkCreateQueryPool(m->dev->device, &qi, NULL, &m->timestamps);
    if (r != VK_SUCCESS) {
        m->timestamps = VK_NULL_HANDLE;
        return vkdev_fail("vkCreateQueryPool", r);
    }
    return 0;
}

int wnrt_last_gpu_ns(WnrtModel *m, double *ns) {
    if (!m->timestamps || m->cur < 0) {
        diag_error("wnrt_last_gpu_ns: %s", m->timestamps ? "the model has not run yet" : "timing is not enabled");
        return -1;
    }
    uint64_t t[2];
    VkResult r = vkGetQueryPoolResults(m->dev->device, m->timestamps, 0, 2, sizeof t, t, sizeof t[0],
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) return vkdev_fail("vkGetQueryPoolResults", r);
    uint32_t bits = wnrt_timing_bits(m->dev);
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(m->dev->phys, &p);
    *ns = (double)((t[1] - t[0]) & mask) * (double)p.limits.timestampPeriod;
    return 0;
}

void wnrt_timing_free(WnrtModel *m) {
    if (m->timestamps && m->dev && m->dev->device) vkDestroyQueryPool(m->dev->device, m->timestamps, NULL);
    m->timestamps = VK_NULL_HANDLE;
}
