/* run_tolerance.h - the default --atol/--rtol of `webnnc run --expect` (run_tolerance.c), chosen from
 * an output's dtype and the precision of the graph's weights, so that a correct fp16 or int4 model
 * passes without the user knowing the corpus README's numbers. */
#ifndef WEBNNC_CLI_RUN_TOLERANCE_H
#define WEBNNC_CLI_RUN_TOLERANCE_H

#include <stdbool.h>

#include "core.h"

typedef struct {
    double atol, rtol;
    bool user;        /* from --atol / --rtol (both or either; the other keeps its default) */
    char reason[96];  /* what the default was chosen from, e.g. "float16 output, float16 weights" */
} Tolerance;

/* "int4", "uint4", "int8", "uint8", "float16" or "float32": the lowest precision in which the
 * graph stores its weights (4-bit constants; 8-bit constants feeding dequantizeLinear or an
 * extension op; float16 constants of more than 8 elements; else float32). */
const char *weights_precision(const Graph *g);

/* Tolerance for an output of dtype `out` of a graph whose weights are `precision` (integer outputs
 * exact; float32 with float32 weights atol 1e-4 rtol 1e-4; quantized weights atol 1e-3 rtol 0;
 * float16 output or weights atol 3e-2 rtol 0), then --atol/--rtol (NULL when not given) over it. */
Tolerance tolerance_for(DType out, const char *precision, const char *user_atol, const char *user_rtol);

#endif
