/* vk_memory.c - block suballocation of device memory and batched staged uploads (vk_memory.h). */
#include "vk_memory.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"

#define BLOCK_SIZE (256ull << 20)
#define STAGING_SIZE (64ull << 20)

typedef struct {
    VkDeviceMemory memory;
    VkBuffer buffer;
    uint64_t size, used;
    uint8_t *map;
} MemBlock;

struct MemPool {
    VkDev *dev;
    MemKind kind;
    MemBlock *blocks;
    int n_blocks, cap_blocks;
    uint64_t align;
    uint64_t total;
    uint64_t hint; /* remaining expected bytes; 0 = unknown */
};

static int find_type(VkDev *d, uint32_t bits, MemKind kind) {
    const VkPhysicalDeviceMemoryProperties *mp = &d->mem_props;
    VkMemoryPropertyFlags want[3];
    int n = 0;
    if (kind == MEM_DEVICE) {
        want[n++] = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        want[n++] = 0;
    } else if (kind == MEM_UPLOAD) {
        want[n++] = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        want[n++] = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    } else {
        want[n++] = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
        want[n++] = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    }
    for (int w = 0; w < n; w++)
        for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
            if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want[w]) == want[w]) return (int)i;
    return -1;
}

MemPool *vk_mempool_create(VkDev *d, MemKind kind) {
    MemPool *p = calloc(1, sizeof *p);
    if (!p) { diag_error("out of memory"); return NULL; }
    p->dev = d;
    p->kind = kind;
    p->align = d->info.min_storage_offset_alignment > 256 ? d->info.min_storage_offset_alignment : 256;
    return p;
}

static int new_block(MemPool *p, uint64_t size) {
    VkDev *d = p->dev;
    if (size > d->info.max_buffer_size) {
        diag_error("vulkan: allocation of %llu bytes exceeds the device's maximum buffer size %llu",
                   (unsigned long long)size, (unsigned long long)d->info.max_buffer_size);
        return -1;
    }
    if (p->n_blocks == p->cap_blocks) {
        int cap = p->cap_blocks ? 2 * p->cap_blocks : 8;
        MemBlock *nb = realloc(p->blocks, sizeof *nb * (size_t)cap);
        if (!nb) { diag_error("out of memory"); return -1; }
        p->blocks = nb;
        p->cap_blocks = cap;
    }
    MemBlock b = {0};
    b.size = size;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                              /* uniform: the parameter slots (replay.c) come from these pools too */
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vkCreateBuffer(d->device, &bci, NULL, &b.buffer);
    if (r != VK_SUCCESS) return vkdev_fail("vkCreateBuffer", r);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->device, b.buffer, &req);
    int type = find_type(d, req.memoryTypeBits, p->kind);
    if (type < 0) {
        vkDestroyBuffer(d->device, b.buffer, NULL);
        diag_error("vulkan: no suitable memory type");
        return -1;
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                               .memoryTypeIndex = (uint32_t)type};
    r = vkAllocateMemory(d->device, &ai, NULL, &b.memory);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(d->device, b.buffer, NULL);
        diag_error("vulkan: out of device memory allocating %llu MiB (VkResult %d)",
                   (unsigned long long)(size >> 20), (int)r);
        return -1;
    }
    vkBindBufferMemory(d->device, b.buffer, b.memory, 0);
    VkMemoryPropertyFlags f = d->mem_props.memoryTypes[type].propertyFlags;
    if (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        void *m = NULL;
        if (vkMapMemory(d->device, b.memory, 0, VK_WHOLE_SIZE, 0, &m) == VK_SUCCESS) b.map = m;
    }
    p->blocks[p->n_blocks++] = b;
    p->total += req.size;
    return 0;
}

int vk_mempool_alloc(MemPool *p, uint64_t size, MemAlloc *out) {
    if (size == 0) size = 1;
    if (size > UINT64_MAX - p->align) { diag_error("allocation size overflow"); return -1; }
    uint64_t asize = (size + p->align - 1) / p->align * p->align;
    MemBlock *b = NULL;
    /* First fit among the blocks (only the last two are usually not full). */
    for (int i = 0; i < p->n_blocks && !b; i++)
        if (p->blocks[i].size - p->blocks[i].used >= asize) b = &p->blocks[i];
    if (!b) {
        uint64_t bs = BLOCK_SIZE;
        if (p->hint && p->hint < bs) bs = p->hint;
        if (new_block(p, asize > bs ? asize : bs) < 0) return -1;
        b = &p->blocks[p->n_blocks - 1];
    }
    out->buffer = b->buffer;
    out->offset = b->used;
    out->size = size;
    out->map = b->map ? b->map + b->used : NULL;
    b->used += asize;
    p->hint = p->hint > asize ? p->hint - asize : 0;
    return 0;
}

void vk_mempool_hint(MemPool *p, uint64_t total) { p->hint = total; }

uint64_t vk_mempool_bytes(const MemPool *p) { return p ? p->total : 0; }

void vk_mempool_destroy(MemPool *p) {
    if (!p) return;
    for (int i = 0; i < p->n_blocks; i++) {
        if (p->blocks[i].map) vkUnmapMemory(p->dev->device, p->blocks[i].memory);
        vkDestroyBuffer(p->dev->device, p->blocks[i].buffer, NULL);
        vkFreeMemory(p->dev->device, p->blocks[i].memory, NULL);
    }
    free(p->blocks);
    free(p);
}

/* ---- uploads --------------------------------------------------------------------------- */

struct Uploader {
    VkDev *dev;
    MemPool *staging;
    MemAlloc buf;
    uint64_t used;
    VkCommandBuffer cb;
};

Uploader *vk_uploader_create(VkDev *d) {
    Uploader *u = calloc(1, sizeof *u);
    if (!u) { diag_error("out of memory"); return NULL; }
    u->dev = d;
    return u;
}

static int flush(Uploader *u) {
    if (!u->cb) return 0;
    int rc = vkdev_end_once(u->dev, u->cb);
    u->cb = VK_NULL_HANDLE;
    u->used = 0;
    return rc;
}

int vk_uploader_put(Uploader *u, const MemAlloc *dst, uint64_t dst_offset, const void *src, uint64_t n) {
    if (dst_offset > dst->size || n > dst->size - dst_offset) {
        diag_error("internal: upload of %llu bytes overflows its allocation", (unsigned long long)n);
        return -1;
    }
    if (dst->map) {
        memcpy(dst->map + dst_offset, src, n);
        return 0;
    }
    const uint8_t *s = src;
    while (n > 0) {
        if (!u->staging) {
            u->staging = vk_mempool_create(u->dev, MEM_STAGING);
            if (!u->staging || vk_mempool_alloc(u->staging, STAGING_SIZE, &u->buf) < 0) return -1;
            if (!u->buf.map) { diag_error("vulkan: staging memory is not mappable"); return -1; }
        }
        if (u->used == STAGING_SIZE && flush(u) < 0) return -1;
        if (!u->cb && !(u->cb = vkdev_begin_once(u->dev))) return -1;
        uint64_t chunk = STAGING_SIZE - u->used;
        if (chunk > n) chunk = n;
        memcpy(u->buf.map + u->used, s, chunk);
        VkBufferCopy c = {.srcOffset = u->buf.offset + u->used, .dstOffset = dst->offset + dst_offset, .size = chunk};
        vkCmdCopyBuffer(u->cb, u->buf.buffer, dst->buffer, 1, &c);
        u->used += chunk;
        dst_offset += chunk;
        s += chunk;
        n -= chunk;
    }
    return 0;
}

int vk_uploader_finish(Uploader *u) {
    if (!u) return 0;
    int rc = flush(u);
    vk_mempool_destroy(u->staging);
    free(u);
    return rc;
}

int vk_zero_fill(VkDev *d, const MemAlloc *a) {
    void *zeros = calloc(1, (size_t)a->size);
    if (!zeros) {
        diag_error("out of memory");
        return -1;
    }
    Uploader *up = vk_uploader_create(d);
    int rc = up && vk_uploader_put(up, a, 0, zeros, a->size) == 0 ? 0 : -1;
    if (up && vk_uploader_finish(up) < 0) rc = -1;
    free(zeros);
    return rc;
}
