/* clamp_bounds.h - the bounds of a WebNN clamp node as the CPU evaluator (lib/eval/eval_eltwise.c)
 * and the Vulkan runtime (runtime/k_eltwise.c) both read them, so the two agree: minValue and
 * maxValue, no bound on a side whose option is absent or NaN (WPT's clamp cases), and +-Infinity
 * as given (minValue = +Infinity makes every element +Infinity). */
#ifndef WEBNNC_CLAMP_BOUNDS_H
#define WEBNNC_CLAMP_BOUNDS_H

#include <stdint.h>

#include "ir.h"

/* Float bounds: -Infinity / +Infinity for a side without a bound. */
void clamp_float_bounds(const Node *n, double *lo, double *hi);

/* Integer bounds for input dtype dt, exact and saturated to the type's range: lo = ceil(min),
 * hi = floor(max), as 64-bit patterns (two's complement for signed types, the value for uint64). */
void clamp_int_bounds(const Node *n, DType dt, uint64_t *lo, uint64_t *hi);

#endif
