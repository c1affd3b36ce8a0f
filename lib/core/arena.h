/* arena.h - bump allocator; everything a Graph owns lives in one arena freed at once. */
#ifndef WEBNNC_ARENA_H
#define WEBNNC_ARENA_H

#include <stddef.h>

typedef struct Arena Arena;

Arena *arena_new(void);
void arena_free(Arena *a);
/* Zeroed, 16-byte aligned.  Aborts on out-of-memory (callers validate sizes first). */
void *arena_alloc(Arena *a, size_t size);
char *arena_strdup(Arena *a, const char *s);
/* Grows an array allocated from this arena (old block is abandoned, not freed). */
void *arena_grow(Arena *a, void *old, size_t old_size, size_t new_size);

#endif
