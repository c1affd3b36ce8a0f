/* dims.c - symbolic dimensions: named symbols with upper bounds ({name, maxSize}) and
 * hash-consed arithmetic expressions over them, so that equal expressions are equal Dims. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "checked.h"
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

/* ---- affine normal form -------------------------------------------------------------------------
 * Sums, differences and products/quotients by static sizes are rebuilt from the form
 *   k + c_1*atom_1 + ... + c_n*atom_n
 * (atoms: symbols and non-affine expressions, sorted by expression number), so that equal affine
 * expressions are equal Dims: (1+S)-1 == S, (4*S)*32 == 128*S, (128*S)/128 == S.  Forms that do not
 * fit (too many terms, nesting too deep, overflow) fall back to a plain expression node. */
#define AFF_MAX_TERMS 8
#define AFF_MAX_DEPTH 24

typedef struct {
    int64_t k;
    int n;
    int64_t c[AFF_MAX_TERMS];
    Dim atom[AFF_MAX_TERMS];
} Affine;

static bool aff_term(Affine *f, int64_t c, Dim atom) {
    int i = 0;
    while (i < f->n && f->atom[i].e < atom.e) i++;
    if (i < f->n && f->atom[i].e == atom.e) return checked_add_i64(f->c[i], c, &f->c[i]);
    if (f->n == AFF_MAX_TERMS) return false;
    memmove(&f->c[i + 1], &f->c[i], sizeof f->c[0] * (size_t)(f->n - i));
    memmove(&f->atom[i + 1], &f->atom[i], sizeof f->atom[0] * (size_t)(f->n - i));
    f->c[i] = c;
    f->atom[i] = atom;
    f->n++;
    return true;
}

/* Adds scale * d to f. */
static bool aff_add(const Graph *g, Dim d, int64_t scale, Affine *f, int depth) {
    int64_t t;
    if (dim_is_static(d)) return checked_mul_i64(d.v, scale, &t) && checked_add_i64(f->k, t, &f->k);
    if (depth > AFF_MAX_DEPTH || d.e < 0 || d.e >= g->n_exprs) return false;
    const DimExpr *e = &g->exprs[d.e];
    switch (e->kind) {
    case '+': return aff_add(g, e->a, scale, f, depth + 1) && aff_add(g, e->b, scale, f, depth + 1);
    case '-': return aff_add(g, e->a, scale, f, depth + 1) && aff_add(g, e->b, -scale, f, depth + 1);
    case '*':
        if (dim_is_static(e->a)) return checked_mul_i64(scale, e->a.v, &t) && aff_add(g, e->b, t, f, depth + 1);
        if (dim_is_static(e->b)) return checked_mul_i64(scale, e->b.v, &t) && aff_add(g, e->a, t, f, depth + 1);
        return aff_term(f, scale, d);
    default: return aff_term(f, scale, d);
    }
}

/* Smallest value an atom can take: symbols and their products are >= 1; quotients >= 0. */
static int64_t atom_min(const Graph *g, Dim a) { return g->exprs[a.e].kind == '/' ? 0 : 1; }

static Dim binary(Graph *g, char kind, Dim a, Dim b, int64_t bound);

/* a + b with bounds (static operands fold). */
static Dim aff_sum(Graph *g, Dim a, Dim b) {
    if (dim_is_static(a) && a.v == 0) return b;
    if (dim_is_static(b) && b.v == 0) return a;
    return binary(g, '+', a, b, a.v + b.v);
}

/* Rebuilds f as (positive terms) - (negative terms); *ok = false on overflow. */
static Dim aff_build(Graph *g, const Affine *f, bool *ok) {
    Dim pos = dim_static(0), neg = dim_static(0);
    int64_t neg_min = 0;
    *ok = true;
    for (int i = 0; i < f->n; i++) {
        int64_t c = f->c[i], m = c < 0 ? -c : c, bound;
        if (c == 0) continue;
        if (c == INT64_MIN || !checked_mul_i64(m, f->atom[i].v, &bound)) return *ok = false, pos;
        Dim t = m == 1 ? f->atom[i] : binary(g, '*', dim_static(m), f->atom[i], bound);
        if (c > 0) {
            if (!checked_add_i64(pos.v, t.v, &bound)) return *ok = false, pos;
            pos = aff_sum(g, pos, t);
        } else {
            if (!checked_add_i64(neg.v, t.v, &bound)) return *ok = false, pos;
            neg = aff_sum(g, neg, t);
            neg_min += m * atom_min(g, f->atom[i]);
        }
    }
    if (f->k == INT64_MIN) return *ok = false, pos;
    if (f->k > 0) {
        if (dim_is_static(pos)) return (neg.e ? binary(g, '-', dim_static(f->k), neg, f->k - neg_min) : dim_static(f->k));
        pos = aff_sum(g, dim_static(f->k), pos);
    } else if (f->k < 0) {
        neg = aff_sum(g, dim_static(-f->k), neg);
        neg_min += -f->k;
    }
    if (dim_is_static(neg) && neg.v == 0) return pos;
    int64_t bound = pos.v - neg_min;
    return binary(g, '-', pos, neg, bound > 0 ? bound : 0);
}

/* scale_a*a + scale_b*b in normal form into *out; false when it does not fit. */
static bool aff_combine(Graph *g, Dim a, int64_t scale_a, Dim b, int64_t scale_b, Dim *out) {
    Affine f = {0};
    bool ok = aff_add(g, a, scale_a, &f, 0) && aff_add(g, b, scale_b, &f, 0);
    if (ok) *out = aff_build(g, &f, &ok);
    return ok;
}

Dim dim_add(Graph *g, Dim a, Dim b) {
    if (dim_is_static(a) && dim_is_static(b)) return dim_static(a.v + b.v);
    if (dim_is_static(a) && a.v == 0) return b;
    if (dim_is_static(b) && b.v == 0) return a;
    Dim r;
    return aff_combine(g, a, 1, b, 1, &r) ? r : binary(g, '+', a, b, a.v + b.v);
}

Dim dim_sub(Graph *g, Dim a, Dim b) {
    if (dim_is_static(a) && dim_is_static(b)) return dim_static(a.v - b.v);
    if (dim_is_static(b) && b.v == 0) return a;
    if (dim_equal(a, b)) return dim_static(0);
    /* Upper bound of a-b is max(a) - min(b); min(b) is unknown (>= 1) for symbols. */
    int64_t bound = a.v - (dim_is_static(b) ? b.v : 1);
    Dim r;
    return aff_combine(g, a, 1, b, -1, &r) ? r : binary(g, '-', a, b, bound > 0 ? bound : 0);
}

Dim dim_mul(Graph *g, Dim a, Dim b) {
    if (dim_is_static(a) && dim_is_static(b)) return dim_static(a.v * b.v);
    if (dim_is_static(a) && a.v == 1) return b;
    if (dim_is_static(b) && b.v == 1) return a;
    if ((dim_is_static(a) && a.v == 0) || (dim_is_static(b) && b.v == 0)) return dim_static(0);
    Dim r;
    if (dim_is_static(a) && aff_combine(g, b, a.v, dim_static(0), 0, &r)) return r;
    if (dim_is_static(b) && aff_combine(g, a, b.v, dim_static(0), 0, &r)) return r;
    return binary(g, '*', a, b, a.v * b.v);
}

Dim dim_div(Graph *g, Dim a, Dim b) {
    if (dim_is_static(a) && dim_is_static(b)) return dim_static(b.v ? a.v / b.v : 0);
    if (dim_is_static(b) && b.v == 1) return a;
    if (dim_equal(a, b)) return dim_static(1);
    if (dim_is_static(b) && b.v > 1) { /* exact when every coefficient divides */
        Affine f = {0};
        bool ok = aff_add(g, a, 1, &f, 0) && f.k % b.v == 0;
        for (int i = 0; ok && i < f.n; i++) ok = f.c[i] % b.v == 0;
        if (ok) {
            f.k /= b.v;
            for (int i = 0; i < f.n; i++) f.c[i] /= b.v;
            Dim r = aff_build(g, &f, &ok);
            if (ok) return r;
        }
    }
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
    int n = snprintf(buf, len, "(%s%c%s)", dim_format(g, e->a, a, sizeof a), e->kind, dim_format(g, e->b, b, sizeof b));
    if (n >= (int)len && len > 3) memcpy(buf + len - 4, "...", 4); /* a long expression, shown cut */
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
