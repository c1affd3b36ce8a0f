/* fuzz_util.c - scratch files and input splitting for the fuzz harnesses (fuzz_util.h). */
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

int fuzz_split(const uint8_t *data, size_t size, FuzzPart *parts, int max) {
    const size_t sep_len = sizeof FUZZ_PART_SEP - 1;
    int n = 0;
    for (int i = 0; i < max; i++) parts[i] = (FuzzPart){(const uint8_t *)"", 0};
    size_t start = 0;
    while (n < max - 1) {
        const uint8_t *hit = size - start >= sep_len ? memmem(data + start, size - start, FUZZ_PART_SEP, sep_len) : NULL;
        if (!hit) break;
        parts[n++] = (FuzzPart){data + start, (size_t)(hit - (data + start))};
        start = (size_t)(hit - data) + sep_len;
    }
    parts[n++] = (FuzzPart){data + start, size - start};
    return n;
}

const char *fuzz_scratch_dir(void) {
    static char dir[4096];
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp ? tmp : "/tmp";
        snprintf(dir, sizeof dir, "%s/webnnc-fuzz-XXXXXX", base);
        if (!mkdtemp(dir)) abort();
    }
    return dir;
}

static char *scratch_path(const char *name) {
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", fuzz_scratch_dir(), name);
    return path;
}

const char *fuzz_write(const char *name, const void *data, size_t size) {
    char *path = scratch_path(name);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if ((size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
    return path;
}

void fuzz_unlink(const char *name) { unlink(scratch_path(name)); }

void fuzz_touch(const void *p, size_t n) {
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < n; i++) sink ^= ((const uint8_t *)p)[i];
    (void)sink;
}

void fuzz_require_diag(void) {
    if (!diag_has_error()) {
        fprintf(stderr, "fuzz: input rejected without a diagnostic\n");
        abort();
    }
}
