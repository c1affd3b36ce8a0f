/* fuzz_util.h - shared helpers for the libFuzzer harnesses in tests/fuzz: a private scratch
 * folder (on /dev/shm when it is writable), writing fuzz bytes into files there for readers that
 * take paths, and splitting one fuzz input into several files at FUZZ_PART_SEP (folder harnesses:
 * model + external data, graph JSON + manifest + weights).  Linked into the fuzzers (clang) and
 * into the regression replays (fuzz_replay_main.c, normal build). */
#ifndef WEBNNC_FUZZ_UTIL_H
#define WEBNNC_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Separator between the files of a folder harness's input (also in the dictionaries). */
#define FUZZ_PART_SEP "|FZ|PART|"

typedef struct {
    const uint8_t *data;
    size_t size;
} FuzzPart;

/* Splits data at FUZZ_PART_SEP into at most `max` parts (the last part keeps any further
 * separators).  Missing parts are empty.  Returns the number of parts found (>= 1). */
int fuzz_split(const uint8_t *data, size_t size, FuzzPart *parts, int max);

/* A scratch folder private to this process, created on first use (aborts when it cannot be). */
const char *fuzz_scratch_dir(void);
/* Writes `size` bytes to scratch/name (replacing it) and returns the path (static buffer, valid
 * until the next call).  Aborts on I/O errors (the harness, not the code under test, failed). */
const char *fuzz_write(const char *name, const void *data, size_t size);
/* Removes scratch/name if present. */
void fuzz_unlink(const char *name);
/* Reads every byte of [p, p + n) so that ASan checks the whole range. */
void fuzz_touch(const void *p, size_t n);
/* Aborts (a harness bug found) unless the last rejection left a diagnostic. */
void fuzz_require_diag(void);

#endif
