/* vk_memory.h - device memory: large blocks (256 MiB, or dedicated for bigger tensors) with one
 * VkBuffer each, bump-suballocated at minStorageBufferOffsetAlignment (at least 256 B); host-
 * visible blocks stay mapped.  Uploads go by memcpy when the memory is mapped (lavapipe, UMA)
 * and through a batched staging buffer otherwise. */
#ifndef WEBNNC_VK_MEMORY_H
#define WEBNNC_VK_MEMORY_H

#include "vk_device.h"

typedef struct {
    VkBuffer buffer;
    uint64_t offset;
    uint64_t size;
    uint8_t *map; /* host pointer of offset 0 of this allocation, NULL if not mapped */
} MemAlloc;

typedef enum {
    MEM_DEVICE,  /* device local (host visible too on unified-memory devices) */
    MEM_STAGING, /* host visible + coherent, for uploads and readbacks */
    MEM_UPLOAD,  /* host visible + coherent, device local where the device has such memory
                  * (small buffers the host writes every run and shaders read: replay.c) */
} MemKind;

typedef struct MemPool MemPool;

MemPool *vk_mempool_create(VkDev *d, MemKind kind);
int vk_mempool_alloc(MemPool *p, uint64_t size, MemAlloc *out);
uint64_t vk_mempool_bytes(const MemPool *p); /* bytes of device memory allocated */
/* Expected total of the coming allocations: new blocks are made no larger than needed for it
 * (still at most 256 MiB unless one allocation is bigger). */
void vk_mempool_hint(MemPool *p, uint64_t total);
void vk_mempool_destroy(MemPool *p);

/* Batched uploads into device allocations. */
typedef struct Uploader Uploader;
Uploader *vk_uploader_create(VkDev *d);
int vk_uploader_put(Uploader *u, const MemAlloc *dst, uint64_t dst_offset, const void *src, uint64_t n);
int vk_uploader_finish(Uploader *u); /* flushes and frees */
/* Writes zeros over allocation a (counters that kernels expect to start at 0). */
int vk_zero_fill(VkDev *d, const MemAlloc *a);

#endif
