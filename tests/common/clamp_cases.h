/* clamp_cases.h - clamp cases with NaN and infinite bounds, shared by the CPU evaluator's tests
 * (tests/passes/test_eval_ops.c) and the Vulkan runtime's (tests/runtime/test_rt_eltwise.c) so
 * both check the same rules: a NaN bound is no bound on that side, infinite bounds act as given,
 * NaN elements stay NaN, integer bounds are rounded inward and saturated to the type. */
#ifndef WEBNNC_CLAMP_CASES_H
#define WEBNNC_CLAMP_CASES_H

#include <math.h>
#include <stdint.h>

static const float clamp_f32_x[6] = {-INFINITY, INFINITY, NAN, -3e35f, -2, 5};
static const struct {
    double lo, hi;
    float want[6];
} clamp_f32_cases[] = {
    {NAN, 2, {-INFINITY, 2, NAN, -3e35f, -2, 2}},
    {-1, NAN, {-1, INFINITY, NAN, -1, -1, 5}},
    {NAN, NAN, {-INFINITY, INFINITY, NAN, -3e35f, -2, 5}},
    {INFINITY, INFINITY, {INFINITY, INFINITY, NAN, INFINITY, INFINITY, INFINITY}},
    {-INFINITY, -INFINITY, {-INFINITY, -INFINITY, NAN, -INFINITY, -INFINITY, -INFINITY}},
};

static const int32_t clamp_i32_x[5] = {INT32_MIN, -5, 0, 7, INT32_MAX};
static const struct {
    double lo, hi;
    int32_t want[5];
} clamp_i32_cases[] = {
    {NAN, 3, {INT32_MIN, -5, 0, 3, 3}},
    {-2.5, NAN, {-2, -2, 0, 7, INT32_MAX}},
    {INFINITY, INFINITY, {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX}},
    {-INFINITY, -INFINITY, {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN}},
};

#define CLAMP_CASE_COUNT(a) ((int)(sizeof(a) / sizeof *(a)))

#endif
