/* checked.h - tiny overflow-checked integer helpers (add/sub/mul on uint64 and int64).
 * Each returns true and stores the result when it fits, false (result unspecified) on overflow. */
#ifndef WEBNNC_CHECKED_H
#define WEBNNC_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool checked_add_u64(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline bool checked_mul_u64(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_mul_overflow(a, b, r); }
static inline bool checked_add_i64(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline bool checked_sub_i64(int64_t a, int64_t b, int64_t *r) { return !__builtin_sub_overflow(a, b, r); }
static inline bool checked_mul_i64(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

/* size_t flavour for allocation sizes. */
static inline bool checked_mul_size(size_t a, size_t b, size_t *r) { return !__builtin_mul_overflow(a, b, r); }
static inline bool checked_add_size(size_t a, size_t b, size_t *r) { return !__builtin_add_overflow(a, b, r); }

#endif
