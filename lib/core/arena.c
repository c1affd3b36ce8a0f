/* arena.c - chunked bump allocator (see arena.h). */
#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Chunk {
    struct Chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} Chunk;

struct Arena {
    Chunk *head;
};

Arena *arena_new(void) {
    Arena *a = calloc(1, sizeof *a);
    if (!a) abort();
    return a;
}

void arena_free(Arena *a) {
    if (!a) return;
    for (Chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

void *arena_alloc(Arena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    Chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t chunk = size > (1u << 20) ? size : (1u << 20);
        c = malloc(sizeof *c + chunk);
        if (!c) {
            fprintf(stderr, "webnnc: out of memory (%zu bytes)\n", size);
            abort();
        }
        c->size = chunk;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strdup(Arena *a, const char *s) {
    size_t n = strlen(s) + 1;
    char *p = arena_alloc(a, n);
    memcpy(p, s, n);
    return p;
}

void *arena_grow(Arena *a, void *old, size_t old_size, size_t new_size) {
    void *p = arena_alloc(a, new_size);
    if (old && old_size) memcpy(p, old, old_size < new_size ? old_size : new_size);
    return p;
}
