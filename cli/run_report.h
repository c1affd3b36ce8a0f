/* run_report.h - what `webnnc run` prints per output and for --repeat (run_report.c), as text lines
 * or as entries of its --json report. */
#ifndef WEBNNC_CLI_RUN_REPORT_H
#define WEBNNC_CLI_RUN_REPORT_H

#include <cjson/cJSON.h>

#include "run_tolerance.h"
#include "onnx.h"
#include "webnnc_runtime.h"

/* One output: name, shape, dtype and, with `want`, the comparison (max abs/rel error, cosine,
 * argmax agreement, PASS/FAIL under tolerance t and where t came from).  Printed as a line, or
 * appended to the JSON array `outputs` when it is not NULL.  Returns 1 on FAIL, else 0. */
int run_report_output(cJSON *outputs, const WnrtTensorInfo *info, const void *got, const TensorFile *want,
                      const Tolerance *t);
/* --repeat: min / median / p90 of n run times (ms; sorted in place), as a line or r["timing"]. */
void run_report_timing(cJSON *r, double *ms, int n);

#endif
