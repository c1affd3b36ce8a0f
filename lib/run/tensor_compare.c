/* tensor_compare.c - output-vs-expected comparison statistics (tensor_compare.h). */
#include "tensor_compare.h"

#include <math.h>

#include "webnn.h"

double run_tensor_elem(DType dt, const void *data, uint64_t i) {
    switch (dt) {
    case DT_F32: return ((const float *)data)[i];
    case DT_F16: return wn_f16_to_f32(((const uint16_t *)data)[i]);
    case DT_I32: return ((const int32_t *)data)[i];
    case DT_U32: return ((const uint32_t *)data)[i];
    case DT_I64: return (double)((const int64_t *)data)[i];
    case DT_U64: return (double)((const uint64_t *)data)[i];
    case DT_I8: return ((const int8_t *)data)[i];
    case DT_U8: return ((const uint8_t *)data)[i];
    default: return NAN;
    }
}

void run_tensor_compare(DType dt_a, const void *a, DType dt_b, const void *b, uint64_t n, int64_t last_dim, double atol,
                    double rtol, CompareResult *out) {
    *out = (CompareResult){0};
    double dot = 0, na = 0, nb = 0;
    for (uint64_t i = 0; i < n; i++) {
        double x = run_tensor_elem(dt_a, a, i), y = run_tensor_elem(dt_b, b, i);
        double err = fabs(x - y);
        bool same = x == y || (isnan(x) && isnan(y));
        if (same) err = 0;
        if (!same && !(err <= atol + rtol * fabs(y))) out->failures++; /* NaN == NaN passes */
        if (err > out->max_abs || isnan(err)) out->max_abs = isnan(err) ? INFINITY : err;
        double rel = y != 0 ? err / fabs(y) : (err > 0 ? INFINITY : 0);
        if (rel > out->max_rel) out->max_rel = rel;
        if (isfinite(x) && isfinite(y)) dot += x * y, na += x * x, nb += y * y;
    }
    out->cosine = na > 0 && nb > 0 ? dot / (sqrt(na) * sqrt(nb)) : (na == nb ? 1.0 : 0.0);
    if (last_dim > 1 && dtype_is_float(dt_a) && n % (uint64_t)last_dim == 0) {
        for (uint64_t r = 0; r < n / (uint64_t)last_dim; r++) {
            uint64_t ia = 0, ib = 0;
            for (uint64_t j = 1; j < (uint64_t)last_dim; j++) {
                uint64_t k = r * (uint64_t)last_dim;
                if (run_tensor_elem(dt_a, a, k + j) > run_tensor_elem(dt_a, a, k + ia)) ia = j;
                if (run_tensor_elem(dt_b, b, k + j) > run_tensor_elem(dt_b, b, k + ib)) ib = j;
            }
            out->argmax_rows++;
            out->argmax_agree += ia == ib;
        }
    }
}
