/* names.c - identifier hygiene: sanitizing ONNX names into WebNN identifiers
 * ([A-Za-z_][A-Za-z0-9_]*, never true/false/null/dyn) and keeping them unique per graph. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"

struct NameSet {
    const char **slots;
    size_t cap, count;
    /* Next suffix to try per base name, so that many values sharing a base stay O(1) each. */
    struct NameSet *bases;
    unsigned *next_suffix; /* parallel to bases->slots */
};

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static bool set_contains(struct NameSet *set, const char *s) {
    if (!set->cap) return false;
    for (size_t i = hash_str(s) & (set->cap - 1);; i = (i + 1) & (set->cap - 1)) {
        if (!set->slots[i]) return false;
        if (strcmp(set->slots[i], s) == 0) return true;
    }
}

/* Slot index of s, or of the empty slot where it would go. */
static size_t set_find(const struct NameSet *set, const char *s) {
    size_t i = hash_str(s) & (set->cap - 1);
    while (set->slots[i] && strcmp(set->slots[i], s) != 0) i = (i + 1) & (set->cap - 1);
    return i;
}

static void set_insert(struct NameSet *set, const char *s) {
    if ((set->count + 1) * 2 > set->cap) {
        size_t ncap = set->cap ? set->cap * 2 : 256;
        const char **nslots = calloc(ncap, sizeof *nslots);
        if (!nslots) abort();
        for (size_t i = 0; i < set->cap; i++) {
            if (!set->slots[i]) continue;
            size_t j = hash_str(set->slots[i]) & (ncap - 1);
            while (nslots[j]) j = (j + 1) & (ncap - 1);
            nslots[j] = set->slots[i];
        }
        free(set->slots);
        set->slots = nslots;
        set->cap = ncap;
    }
    size_t i = hash_str(s) & (set->cap - 1);
    while (set->slots[i]) i = (i + 1) & (set->cap - 1);
    set->slots[i] = s;
    set->count++;
}

void nameset_free(struct NameSet *set) {
    if (!set) return;
    nameset_free(set->bases);
    free(set->next_suffix);
    free(set->slots);
    free(set);
}

/* First suffix worth trying for `base`; remembers where the previous search ended. */
static unsigned *suffix_counter(Graph *g, struct NameSet *set, const char *base) {
    if (!set->bases) {
        set->bases = calloc(1, sizeof *set->bases);
        if (!set->bases) abort();
    }
    struct NameSet *b = set->bases;
    if (!set_contains(b, base)) {
        size_t old_cap = b->cap;
        set_insert(b, graph_strdup(g, base));
        if (b->cap != old_cap) { /* rehashed: rebuild the parallel counters */
            unsigned *old = set->next_suffix;
            set->next_suffix = calloc(b->cap, sizeof *set->next_suffix);
            if (!set->next_suffix) abort();
            free(old); /* counters restart at 1: correct, only slower once per growth */
        }
    }
    return &set->next_suffix[set_find(b, base)];
}

static bool reserved_word(const char *s) {
    return !strcmp(s, "true") || !strcmp(s, "false") || !strcmp(s, "null") || !strcmp(s, "dyn");
}

void name_sanitize(const char *base, char out[NAME_SANITIZED_MAX]) {
    size_t len = base ? strlen(base) : 0;
    if (len > 200) len = 200; /* keep identifiers readable; uniqueness comes from the suffix */
    size_t o = 0;
    if (len == 0 || !((base[0] >= 'A' && base[0] <= 'Z') || (base[0] >= 'a' && base[0] <= 'z') || base[0] == '_'))
        out[o++] = '_';
    for (size_t i = 0; i < len; i++) {
        char c = base[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        out[o++] = ok ? c : '_';
    }
    out[o] = 0;
    if (reserved_word(out)) {
        out[o++] = '_';
        out[o] = 0;
    }
}

const char *graph_unique_name(Graph *g, const char *base) {
    if (!g->names) {
        g->names = calloc(1, sizeof *g->names);
        if (!g->names) abort();
    }
    char buf[NAME_SANITIZED_MAX];
    name_sanitize(base, buf);
    char cand[280];
    snprintf(cand, sizeof cand, "%s", buf);
    if (set_contains(g->names, cand)) {
        unsigned *next = suffix_counter(g, g->names, buf);
        unsigned k = *next ? *next : 1;
        do snprintf(cand, sizeof cand, "%s_%u", buf, k++);
        while (set_contains(g->names, cand));
        *next = k;
    }
    const char *s = graph_strdup(g, cand);
    set_insert(g->names, s);
    return s;
}
