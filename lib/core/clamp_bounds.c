/* clamp_bounds.c - the bounds of a WebNN clamp node (clamp_bounds.h). */
#include "clamp_bounds.h"

#include <math.h>

void clamp_float_bounds(const Node *n, double *lo, double *hi) {
    *lo = node_float(n, "minValue", -INFINITY);
    *hi = node_float(n, "maxValue", INFINITY);
    if (isnan(*lo)) *lo = -INFINITY;
    if (isnan(*hi)) *hi = INFINITY;
}

/* v (an integral double or +-Infinity) saturated to dt's range, as a 64-bit pattern. */
static uint64_t saturate(double v, DType dt) {
    double tmin, tmax;
    switch (dt) {
    case DT_I4: tmin = -8, tmax = 7; break;
    case DT_U4: tmin = 0, tmax = 15; break;
    case DT_I8: tmin = -128, tmax = 127; break;
    case DT_U8: tmin = 0, tmax = 255; break;
    case DT_I32: tmin = -2147483648.0, tmax = 2147483647.0; break;
    case DT_U32: tmin = 0, tmax = 4294967295.0; break;
    case DT_U64: return v <= 0 ? 0 : v >= 0x1p64 ? UINT64_MAX : (uint64_t)v;
    default: return (uint64_t)(v < -0x1p63 ? INT64_MIN : v >= 0x1p63 ? INT64_MAX : (int64_t)v);
    }
    return (uint64_t)(int64_t)(v < tmin ? tmin : v > tmax ? tmax : v);
}

void clamp_int_bounds(const Node *n, DType dt, uint64_t *lo, uint64_t *hi) {
    double flo, fhi;
    clamp_float_bounds(n, &flo, &fhi);
    *lo = saturate(ceil(flo), dt);
    *hi = saturate(floor(fhi), dt);
}
