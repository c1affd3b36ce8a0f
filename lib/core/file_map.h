/* file_map.h - process-wide registry of read-only file mappings (ONNX external data).  Whoever
 * streams constant data (the weights writer) asks it whether bytes lie in a mapped file: then it
 * can drop the pages it has consumed (they refault from the page cache if read again), so that
 * writing a model far larger than memory keeps the resident set small, and it can name the file
 * descriptor and offset of the bytes for kernel-side copies.  Memory that was not registered is
 * never touched.  Thread-safe. */
#ifndef WEBNNC_FILE_MAP_H
#define WEBNNC_FILE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Registers [addr, addr + size), a PROT_READ MAP_PRIVATE mapping of file descriptor `fd` (-1:
 * unknown) from file offset 0.  The caller keeps owning both.  Returns false (and registers
 * nothing) when out of memory: the mapping then simply is not known. */
bool file_map_register(const void *addr, size_t size, int fd);
/* Forgets the mapping starting at `addr` (call before munmap). */
void file_map_unregister(const void *addr);
/* True when [p, p + n) lies inside one registered mapping; sets *fd and *offset (file offset
 * of p). */
bool file_map_find(const void *p, uint64_t n, int *fd, uint64_t *offset);
/* Drops the resident pages of [p, p + n) that lie in registered mappings (rounded out to whole
 * pages, clipped to the mapping).  A no-op for memory that is not a registered mapping. */
void file_map_release(const void *p, uint64_t n);

#endif
