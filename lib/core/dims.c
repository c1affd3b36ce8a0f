/* dims.c - symbolic dimensions: named symbols with upper bounds ({name, maxSize}) and
 * hash-consed arithmetic expressions over them, so that equal expressions are equal Dims. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "ir.h"

static int32_t intern_expr(Graph *g, DimExpr e) {
    for (int32_t i = 1; i < g->n_exprs; i++) {
        DimExpr *x = &g->exprs[i];
        if (x->kind == e.kind && x->sym == e.sym && dim_equal(x->a, e.a) && dim_equal(x->b, e.b)) return i;
    }
    if (g->n_exprs >= g->cap_exprs) { /* n_exprs starts at 1 (entry 0 means static) */
        int ncap = g->cap_exprs ? g->cap_exprs * 2 : 32;
        g->exprs = arena_grow(g->arena, g->exprs, sizeof *g->exprs * (size_t)g->cap_exprs,
                              sizeof *g->exprs * (size_t)ncap);
        g->cap_exprs = ncap;
    }
    g->exprs[g->n_exprs] = e;
    return g->n_exprs++;
}

Dim dim_symbol(Graph *g, const char *name, int64_t max_size) {
    int32_t s;
    for (s = 0; s < g->n_symbols; s++)
        if (strcmp(g->symbols[s].name, name) == 0) break;
    if (s == g->n_symbols) {
        if (g->n_symbols == g->cap_symbols) {
            int ncap = g->cap_symbols ? g->cap_symbols * 2 : 8;
            g->symbols = arena_grow(g->arena, g->symbols, sizeof *g->symbols * (size_t)g->cap_symbols,
                                    sizeof *g->symbols * (size_t)ncap);
            g->cap_symbols = ncap;
        }
        g->symbols[s].name = arena_strdup(g->arena, name);
        g->symbols[s].max_size = max_size;
        g->n_symbols++;
    } else if (max_size > 0 && (g->symbols[s].max_size == 0 || max_size < g->symbols[s].max_size)) {
        g->symbols[s].max_size = max_size;
    }
    DimExpr e = {.kind = 's', .sym = s};
    return (Dim){g->symbols[s].max_size, intern_expr(g, e)};
}

bool dim_equal(Dim a, Dim b) { return a.e == b.e && (a.e != 0 || a.v == b.v); }

static Dim binary(Graph *g, char kind, Dim a, Dim b, int64_t bound) {
    /* Canonical operand order for commutative kinds. */
    if ((kind == '+' || kind == '*') && (a.e > b.e || (a.e == b.e && a.v > b.v))) {
        Dim t = a;
        a = b;
        b = t;
    }
    DimExpr e = {.kind = kind, .sym = -1, .a = a, .b = b};
    return (Dim){bound, intern_expr(g, e)};
}

Dim dim_add(Graph *g, Dim a, Dim b) {
    if (dim_is_static(a) && dim_is_static(b)) return dim_static(a.v + b.v);
    if (dim_is_static(a) && a.v == 0) return b;
    if (dim_is_static(b) && b.v == 0) return a;
    return binary(g, '+', a, b, a.v + b.v);
}

Dim dim_sub(Graph *g, Dim a, Dim b) {
    if (dim_is_static(a) && dim_is_static(b)) return dim_static(a.v - b.v);
    if (dim_is_static(b) && b.v == 0) return a;
    if (dim_equal(a, b)) return dim_static(0);
    /* Upper bound of a-b is max(a) - min(b); min(b) is unknown (>= 1) for symbols. */
    int64_t bound = a.v - (dim_is_static(b) ? b.v : 1);
    return binary(g, '-', a, b, bound > 0 ? bound : 0);
}

Dim dim_mul(Graph *g, Dim a, Dim b) {
    if (dim_is_static(a) && dim_is_static(b)) return dim_static(a.v * b.v);
    if (dim_is_static(a) && a.v == 1) return b;
    if (dim_is_static(b) && b.v == 1) return a;
    if ((dim_is_static(a) && a.v == 0) || (dim_is_static(b) && b.v == 0)) return dim_static(0);
    return binary(g, '*', a, b, a.v * b.v);
}

Dim dim_div(Graph *g, Dim a, Dim b) {
    if (dim_is_static(a) && dim_is_static(b)) return dim_static(b.v ? a.v / b.v : 0);
    if (dim_is_static(b) && b.v == 1) return a;
    if (dim_equal(a, b)) return dim_static(1);
    return binary(g, '/', a, b, dim_is_static(b) && b.v > 0 ? a.v / b.v : a.v);
}

const char *dim_symbol_name(const Graph *g, Dim d) {
    if (d.e <= 0 || d.e >= g->n_exprs || g->exprs[d.e].kind != 's') return NULL;
    return g->symbols[g->exprs[d.e].sym].name;
}

const char *dim_format(const Graph *g, Dim d, char *buf, size_t len) {
    if (dim_is_static(d)) {
        snprintf(buf, len, "%" PRId64, d.v);
        return buf;
    }
    const DimExpr *e = &g->exprs[d.e];
    if (e->kind == 's') {
        snprintf(buf, len, "%s", g->symbols[e->sym].name);
        return buf;
    }
    char a[128], b[128];
    snprintf(buf, len, "(%s%c%s)", dim_format(g, e->a, a, sizeof a), e->kind, dim_format(g, e->b, b, sizeof b));
    return buf;
}

int64_t dim_eval(const Graph *g, Dim d, const int64_t *symbol_values) {
    if (dim_is_static(d)) return d.v;
    const DimExpr *e = &g->exprs[d.e];
    if (e->kind == 's') return symbol_values[e->sym];
    int64_t a = dim_eval(g, e->a, symbol_values), b = dim_eval(g, e->b, symbol_values);
    switch (e->kind) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    default: return b ? a / b : 0;
    }
}
