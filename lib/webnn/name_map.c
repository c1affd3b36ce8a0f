/* name_map.c - string -> pointer hash map (FNV-1a, linear probing, grows at 50% load). */
#include "name_map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

void wn_name_map_init(NameMap *m) { memset(m, 0, sizeof *m); }

void wn_name_map_free(NameMap *m) {
    free(m->keys);
    free(m->vals);
    wn_name_map_init(m);
}

static size_t find(const NameMap *m, const char *key) {
    size_t i = hash_str(key) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & (m->cap - 1);
    return i;
}

void *wn_name_map_get(const NameMap *m, const char *key) {
    if (!m->cap) return NULL;
    size_t i = find(m, key);
    return m->keys[i] ? m->vals[i] : NULL;
}

static void grow(NameMap *m) {
    NameMap n = {.cap = m->cap ? m->cap * 2 : 64};
    n.keys = calloc(n.cap, sizeof *n.keys);
    n.vals = calloc(n.cap, sizeof *n.vals);
    if (!n.keys || !n.vals) abort();
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t j = find(&n, m->keys[i]);
        n.keys[j] = m->keys[i];
        n.vals[j] = m->vals[i];
    }
    n.count = m->count;
    free(m->keys);
    free(m->vals);
    *m = n;
}

bool wn_name_map_put(NameMap *m, const char *key, void *val) {
    if ((m->count + 1) * 2 > m->cap) grow(m);
    size_t i = find(m, key);
    if (m->keys[i]) return false;
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
    return true;
}
