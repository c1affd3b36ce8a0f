/* test_rt_ext_util.c - the oracle harness of the extension-op kernel tests (test_rt_ext.h). */
#include "test_rt_ext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "eval_internal.h"
#include "webnnc_profile.h"

static double urand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (double)((*s >> 8) & 0xffffff) / (double)0xffffff;
}

static void put(DType dt, void *data, int64_t i, double v) {
    switch (dt) {
    case DT_F32: ((float *)data)[i] = (float)v; break;
    case DT_F16: ((uint16_t *)data)[i] = ten_f64_to_f16(v); break;
    case DT_I32: ((int32_t *)data)[i] = (int32_t)v; break;
    case DT_I64: ((int64_t *)data)[i] = (int64_t)v; break;
    case DT_U8: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case DT_U4:
    case DT_I4: {
        uint8_t *b = data, q = (uint8_t)((int)v & 15);
        b[i / 2] = (uint8_t)(i % 2 ? (b[i / 2] & 0x0f) | (q << 4) : (b[i / 2] & 0xf0) | q);
        break;
    }
    default: ck_abort_msg("ext_rand: unsupported dtype %s", dtype_name(dt));
    }
}

static Value *make(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, unsigned *seed, double lo,
                   double hi, const int64_t *ints) {
    int64_t count = 1;
    for (int i = 0; i < rank; i++) count *= shape[i];
    uint64_t bytes = dtype_storage_bytes(dt, (uint64_t)count);
    void *data = calloc(1, bytes + 8);
    ck_assert(data != NULL);
    for (int64_t i = 0; i < count; i++) {
        double v = ints ? (double)ints[i] : lo + (hi - lo) * urand(seed);
        if (!ints && !dtype_is_float(dt)) v = floor(v);
        if (!ints && dt == DT_U8 && lo == 0 && hi == 0) v = (double)((*seed = *seed * 1103515245u + 12345u) >> 16 & 255);
        put(dt, data, i, v);
    }
    Value *c = graph_add_const_copy(g, name, dt, rank, shape, data, bytes);
    free(data);
    ck_assert_msg(c != NULL, "%s", diag_message());
    return c;
}

Value *ext_rand(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, unsigned *seed, double lo,
                double hi) {
    return make(g, name, dt, rank, shape, seed, lo, hi, NULL);
}

Value *ext_ints(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const int64_t *v) {
    return make(g, name, dt, rank, shape, NULL, 0, 0, v);
}

static double get(DType dt, const void *data, uint64_t i) {
    switch (dt) {
    case DT_F32: return ((const float *)data)[i];
    case DT_F16: return ten_f16_to_f64(((const uint16_t *)data)[i]);
    case DT_I32: return ((const int32_t *)data)[i];
    case DT_I64: return (double)((const int64_t *)data)[i];
    case DT_U8: return ((const uint8_t *)data)[i];
    default: ck_abort_msg("ext_check: unsupported output dtype %s", dtype_name(dt)); return 0;
    }
}

double ext_check(Graph *g, Node *n, double rtol, double atol, const char *label) {
    const void *ref[16];
    uint64_t ref_bytes[16];
    ck_assert_msg(n->n_outputs <= 16, "%s: too many outputs", label);
    int rc = eval_node(g, n, ref, ref_bytes);
    ck_assert_msg(rc == 0, "%s: reference evaluation failed (%d): %s", label, rc, diag_message());
    for (int k = 0; k < n->n_outputs; k++) graph_add_output(g, n->outputs[k]);
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s: load: %s", label, diag_message());
    ck_assert_msg(wnrt_run(m) == 0, "%s: run: %s", label, diag_message());
    double worst = 0;
    for (int k = 0; k < n->n_outputs; k++) {
        const Value *v = n->outputs[k];
        void *got = malloc(ref_bytes[k] + 8);
        ck_assert(got != NULL);
        ck_assert_msg(wnrt_read_output(m, k, got, ref_bytes[k]) == 0, "%s: read: %s", label, diag_message());
        uint64_t count = value_max_elements(v);
        bool fl = dtype_is_float(v->dtype);
        for (uint64_t i = 0; i < count; i++) {
            double want = get(v->dtype, ref[k], i), have = get(v->dtype, got, i);
            double tol = fl ? atol + rtol * fabs(want) : 0, err = fabs(have - want);
            ck_assert_msg(err <= tol && !isnan(have), "%s: output %d element %llu: got %.9g want %.9g (tolerance %.3g)", label,
                          k, (unsigned long long)i, have, want, tol);
            if (tol > 0 && err / tol > worst) worst = err / tol;
        }
        free(got);
    }
    wnrt_free(m);
    return worst;
}

int ext_run_dispatches(Graph *g, int k, void *out, uint64_t bytes, const char *label) {
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s: load: %s", label, diag_message());
    const char *why = NULL;
    ck_assert_msg(wnrt_profile_enable(m, &why) >= 0, "%s: profile: %s", label, diag_message());
    ck_assert_msg(wnrt_run(m) == 0, "%s: run: %s", label, diag_message());
    ck_assert_msg(wnrt_read_output(m, k, out, bytes) == 0, "%s: read: %s", label, diag_message());
    WnrtProfStep step;
    ck_assert_msg(wnrt_profile_take(m, &step) == 0, "%s: profile: %s", label, diag_message());
    wnrt_free(m);
    return step.n_dispatches;
}
