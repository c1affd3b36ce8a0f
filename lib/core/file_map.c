/* file_map.c - the registry of read-only file mappings (see file_map.h): a small array under a
 * mutex, searched linearly (a model maps a handful of external data files). */
#include "file_map.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    uintptr_t start, end;
    int fd;
} FileMap;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FileMap *maps;
static size_t n_maps, cap_maps;

bool file_map_register(const void *addr, size_t size, int fd) {
    if (!addr || !size || (uintptr_t)addr > UINTPTR_MAX - size) return false;
    bool ok = true;
    pthread_mutex_lock(&lock);
    if (n_maps == cap_maps) {
        size_t cap = cap_maps ? cap_maps * 2 : 8;
        FileMap *m = cap < SIZE_MAX / sizeof *m ? realloc(maps, cap * sizeof *m) : NULL;
        if (m) {
            maps = m;
            cap_maps = cap;
        } else {
            ok = false;
        }
    }
    if (ok) maps[n_maps++] = (FileMap){(uintptr_t)addr, (uintptr_t)addr + size, fd};
    pthread_mutex_unlock(&lock);
    return ok;
}

void file_map_unregister(const void *addr) {
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_maps; i++) {
        if (maps[i].start == (uintptr_t)addr) {
            maps[i] = maps[--n_maps];
            break;
        }
    }
    if (!n_maps) {
        free(maps);
        maps = NULL;
        cap_maps = 0;
    }
    pthread_mutex_unlock(&lock);
}

bool file_map_find(const void *p, uint64_t n, int *fd, uint64_t *offset) {
    uintptr_t a = (uintptr_t)p;
    bool found = false;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_maps && !found; i++) {
        const FileMap *m = &maps[i];
        if (a >= m->start && a < m->end && n <= m->end - a) {
            *fd = m->fd;
            *offset = a - m->start;
            found = true;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void file_map_release(const void *p, uint64_t n) {
    uintptr_t a = (uintptr_t)p, b = n > UINTPTR_MAX - a ? UINTPTR_MAX : a + (uintptr_t)n;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_maps; i++) {
        const FileMap *m = &maps[i];
        uintptr_t lo = a > m->start ? a : m->start, hi = b < m->end ? b : m->end;
        if (lo >= hi) continue;
        /* The mapping starts on a page boundary; its last page may be partial. */
        lo &= ~(page - 1);
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
    pthread_mutex_unlock(&lock);
}
