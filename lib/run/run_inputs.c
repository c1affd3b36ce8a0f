/* run_inputs.c - tensor folders for running a graph (run_inputs.h): *.pb / *.npy files read in name
 * order, matched to graph values by name, or random inputs; moved from cli/ (issue 13). */
#include "run_inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool has_suffix(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a > b && strcmp(s + a - b, suf) == 0;
}

int run_tensor_set_read_dir(const char *dir, TensorSet *set) {
    DIR *d = opendir(dir);
    if (!d) {
        diag_error("%s: cannot open folder (%s)", dir, strerror(errno));
        return -1;
    }
    char *names[TENSOR_SET_MAX];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!has_suffix(e->d_name, ".pb") && !has_suffix(e->d_name, ".npy")) continue;
        if (n == TENSOR_SET_MAX) {
            closedir(d);
            for (int i = 0; i < n; i++) free(names[i]);
            diag_error("%s: more than %d tensor files", dir, TENSOR_SET_MAX);
            return -1;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            rc = onnx_tensor_file_read(path, &set->t[set->n]);
            if (rc == 0) set->n++;
        }
        free(names[i]);
    }
    return rc;
}

void run_tensor_set_free(TensorSet *s) {
    for (int i = 0; i < s->n; i++) onnx_tensor_file_free(&s->t[i]);
    s->n = 0;
}

bool run_tensor_name_matches(const Value *v, const char *name) {
    char id[NAME_SANITIZED_MAX];
    name_sanitize(name, id);
    return strcmp(v->name, name) == 0 || (v->origin && strcmp(v->origin, name) == 0) || strcmp(v->name, id) == 0;
}

static bool any_named(Value **vals, int nv, const char *name) {
    for (int i = 0; i < nv; i++)
        if (run_tensor_name_matches(vals[i], name)) return true;
    return false;
}

/* Matches files to graph values; error lists missing and extra names (files naming one of `ignore`
 * are not extra). */
int run_tensor_set_match(Value **vals, int nv, const TensorSet *set, int *file_of, const char *what, bool extra_is_error,
                 Value **ignore, int n_ignore) {
    char missing[1024] = "", extra[1024] = "";
    for (int i = 0; i < nv; i++) {
        file_of[i] = -1;
        for (int f = 0; f < set->n && file_of[i] < 0; f++)
            if (run_tensor_name_matches(vals[i], set->t[f].name)) file_of[i] = f;
        if (file_of[i] < 0) snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", value_display_name(vals[i]));
    }
    for (int f = 0; f < set->n; f++) {
        bool used = false;
        for (int i = 0; i < nv && !used; i++) used = file_of[i] == f;
        if (!used && !any_named(ignore, n_ignore, set->t[f].name)) snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " %s", set->t[f].name);
    }
    if (missing[0] || (extra_is_error && extra[0])) {
        diag_error("%s: missing:%s%s; not in the graph:%s", what, missing[0] ? missing : " none", "", extra[0] ? extra : " none");
        return -1;
    }
    return 0;
}

static void fill_random(TensorFile *t, unsigned *seed) {
    uint64_t n = 1;
    for (int d = 0; d < t->rank; d++) n *= (uint64_t)t->shape[d];
    for (uint64_t i = 0; i < n; i++) {
        *seed = *seed * 1664525u + 1013904223u;
        double u = (double)(*seed >> 8) / 16777216.0;
        int64_t k = (int64_t)(u * 8);
        switch (t->dtype) {
        case DT_F32: ((float *)t->data)[i] = (float)(2 * u - 1); break;
        case DT_F16: ((uint16_t *)t->data)[i] = (uint16_t)(0x3800 | (*seed >> 20 & 0x3ff)); break; /* [0.5, 1) */
        case DT_I32: ((int32_t *)t->data)[i] = (int32_t)k; break;
        case DT_U32: ((uint32_t *)t->data)[i] = (uint32_t)k; break;
        case DT_I64: ((int64_t *)t->data)[i] = k; break;
        case DT_U64: ((uint64_t *)t->data)[i] = (uint64_t)k; break;
        case DT_I8: ((int8_t *)t->data)[i] = (int8_t)k; break;
        default: ((uint8_t *)t->data)[i] = (uint8_t)k; break;
        }
    }
}

int run_tensor_set_random(Graph *g, TensorSet *set, int *file_of) {
    int64_t sym[1024];
    if (g->n_symbols > 1024 || g->n_inputs > TENSOR_SET_MAX) {
        diag_error("too many symbols or inputs for --random");
        return -1;
    }
    for (int s = 0; s < g->n_symbols; s++) sym[s] = g->symbols[s].max_size < 16 ? g->symbols[s].max_size : 16;
    unsigned seed = 12345;
    for (int i = 0; i < g->n_inputs; i++) {
        const Value *v = g->inputs[i];
        TensorFile *t = &set->t[set->n];
        memset(t, 0, sizeof *t);
        t->dtype = v->dtype;
        t->rank = v->rank;
        uint64_t n = 1;
        for (int d = 0; d < v->rank; d++) n *= (uint64_t)(t->shape[d] = dim_eval(g, v->shape[d], sym));
        t->nbytes = dtype_storage_bytes(v->dtype, n);
        t->name = strdup(v->name);
        t->data = malloc(t->nbytes ? (size_t)t->nbytes : 1);
        if (!t->name || !t->data) {
            diag_error("out of memory");
            return -1;
        }
        set->n++;
        fill_random(t, &seed);
        file_of[i] = i;
    }
    return 0;
}

