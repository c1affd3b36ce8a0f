/* run_report.c - per-output lines / JSON entries and --repeat timing of `webnnc run` (see
 * run_report.h).  Text form of an output with --expect (tests/e2e/e2e_common.py parses it):
 *   NAME [D, ...] DTYPE: max_abs X max_rel Y cosine Z [argmax A/R] PASS|FAIL [(K of N elements
 *   outside atol A + rtol R)] [tolerance atol A rtol R: default for DTYPE output, P weights] */
#include "run_report.h"

#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "run.h"

static void print_head(const WnrtTensorInfo *info) {
    printf("%s [", info->name);
    for (int d = 0; d < info->rank; d++) printf("%s%lld", d ? ", " : "", (long long)info->shape[d]);
    printf("] %s", dtype_name(info->dtype));
}

static cJSON *json_head(cJSON *outputs, const WnrtTensorInfo *info) {
    cJSON *o = cJSON_CreateObject();
    if (!o) abort();
    cJSON_AddItemToArray(outputs, o);
    cJSON_AddStringToObject(o, "name", info->name);
    cJSON *shape = report_add_array(o, "shape");
    for (int d = 0; d < info->rank; d++) cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)info->shape[d]));
    cJSON_AddStringToObject(o, "dataType", dtype_name(info->dtype));
    return o;
}

static void json_tolerance(cJSON *o, const Tolerance *t) {
    cJSON_AddNumberToObject(o, "atol", t->atol);
    cJSON_AddNumberToObject(o, "rtol", t->rtol);
    cJSON_AddStringToObject(o, "toleranceFrom", t->user ? "--atol/--rtol" : t->reason);
}

int run_report_output(cJSON *outputs, const WnrtTensorInfo *info, const void *got, const TensorFile *want,
                      const Tolerance *t) {
    cJSON *o = outputs ? json_head(outputs, info) : NULL;
    if (!o) print_head(info);
    if (!want) {
        if (!o) printf("\n");
        return 0;
    }
    bool shape_ok = info->rank == want->rank;
    for (int d = 0; shape_ok && d < info->rank; d++) shape_ok = info->shape[d] == want->shape[d];
    if (!shape_ok) {
        if (o) {
            cJSON_AddBoolToObject(o, "pass", false);
            cJSON_AddStringToObject(o, "mismatch", "expected shape differs");
        } else {
            printf(": FAIL (expected shape differs)\n");
        }
        return 1;
    }
    uint64_t n = 1;
    for (int d = 0; d < info->rank; d++) n *= (uint64_t)info->shape[d];
    CompareResult c;
    run_tensor_compare(info->dtype, got, want->dtype, want->data, n, info->rank >= 2 ? info->shape[info->rank - 1] : 0,
                   t->atol, t->rtol, &c);
    if (o) {
        cJSON_AddNumberToObject(o, "maxAbs", c.max_abs);
        cJSON_AddNumberToObject(o, "maxRel", c.max_rel);
        cJSON_AddNumberToObject(o, "cosine", c.cosine);
        if (c.argmax_rows) {
            cJSON_AddNumberToObject(o, "argmaxAgree", (double)c.argmax_agree);
            cJSON_AddNumberToObject(o, "argmaxRows", (double)c.argmax_rows);
        }
        cJSON_AddNumberToObject(o, "elements", (double)n);
        cJSON_AddNumberToObject(o, "failures", (double)c.failures);
        json_tolerance(o, t);
        cJSON_AddBoolToObject(o, "pass", c.failures == 0);
        return c.failures ? 1 : 0;
    }
    printf(": max_abs %.3g max_rel %.3g cosine %.6f", c.max_abs, c.max_rel, c.cosine);
    if (c.argmax_rows) printf(" argmax %lld/%lld", (long long)c.argmax_agree, (long long)c.argmax_rows);
    printf(" %s", c.failures ? "FAIL" : "PASS");
    if (c.failures)
        printf(" (%llu of %llu elements outside atol %g + rtol %g)", (unsigned long long)c.failures,
               (unsigned long long)n, t->atol, t->rtol);
    if (!t->user) printf(" [tolerance atol %g rtol %g: default for %s]", t->atol, t->rtol, t->reason);
    printf("\n");
    return c.failures ? 1 : 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void run_report_timing(cJSON *r, double *ms, int n) {
    if (n <= 0) return;
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    double min = ms[0], median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
    int k = (int)((n * 9 + 9) / 10) - 1; /* nearest rank: ceil(0.9 n) */
    double p90 = ms[k < 0 ? 0 : k];
    if (!r) {
        printf("time: %d runs: min %.3f ms, median %.3f ms, p90 %.3f ms\n", n, min, median, p90);
        return;
    }
    cJSON *t = report_add_object(r, "timing");
    cJSON_AddNumberToObject(t, "runs", n);
    cJSON_AddNumberToObject(t, "minMs", min);
    cJSON_AddNumberToObject(t, "medianMs", median);
    cJSON_AddNumberToObject(t, "p90Ms", p90);
}
