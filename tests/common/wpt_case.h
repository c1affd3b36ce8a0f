/* wpt_case.h - loads WebNN WPT conformance cases (../shared/wpt-webnn (*.json files)) into IR graphs with
 * their input data, expected outputs and the WPT tolerance (webnn/resources/utils.js rules:
 * ULP distance or ATOL, per-op budgets summed over the operators of the case).  Where a number is
 * expected, the strings "Infinity", "-Infinity" and "NaN" stand for the non-finite values (the
 * corpus itself has null there; wpt_restore.h puts the tags back).
 *
 * Typical use:
 *   WptFile *f = wpt_file_load(path);
 *   for (int i = 0; i < wpt_file_case_count(f); i++) {
 *       WptCase *c = wpt_case_build(f, i);      // NULL + diag_message() when not loadable
 *       ... evaluate c->g (inputs' data in c->inputs[k].data) ...
 *       wpt_compare(c, k, actual_bytes, why, sizeof why);
 *       wpt_case_free(c);
 *   }
 *   wpt_file_free(f);
 */
#ifndef WEBNNC_WPT_CASE_H
#define WEBNNC_WPT_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

typedef struct WptFile WptFile;
struct cJSON;

/* A non-constant graph input and its bytes (IR layout). */
typedef struct {
    Value *value;
    const void *data;
    uint64_t nbytes;
} WptInput;

/* An expected output: the graph value that produces it and the expected elements. */
typedef struct {
    const char *name;
    Value *value;
    DType dtype;
    int64_t count;    /* elements in the descriptor's shape */
    int64_t checked;  /* elements compared (WPT checks only the first 1000 of a fill) */
    double *expect;   /* expected values (floats, and integers as doubles) */
    int64_t *expect_i; /* exact integers (uint64 as bit pattern); NULL for float outputs */
} WptOutput;

typedef enum { WPT_ULP, WPT_ATOL } WptMetric;

typedef struct {
    const char *file; /* source file stem, e.g. "reduce_sum" */
    const char *name; /* case name */
    Graph *g;         /* owns everything below */
    int n_inputs;
    WptInput *inputs;
    int n_outputs;
    WptOutput *outputs;
    WptMetric metric;
    double tolerance; /* ULP count or absolute tolerance */
} WptCase;

/* Loads one JSON file; NULL with a diagnostic on error. */
WptFile *wpt_file_load(const char *path);
void wpt_file_free(WptFile *f);
int wpt_file_case_count(const WptFile *f);
const char *wpt_file_case_name(const WptFile *f, int index);
/* The operation name of the file ("add", "reduceSum", ...). */
const char *wpt_file_operation(const WptFile *f);
/* The file name without folder and extension ("clamp"). */
const char *wpt_file_stem(const WptFile *f);
/* The JSON object of case `index` ({"name", "graph"}), owned by f and editable (wpt_restore.c
 * replaces graphs); NULL when out of range. */
struct cJSON *wpt_file_case_json(const WptFile *f, int index);

/* The tag strings that spell non-finite numbers: "Infinity", "-Infinity", "NaN" exactly.  True
 * (and *value set when value is not NULL) for a tag, false for any other string. */
bool wpt_nonfinite_tag(const char *s, double *value);

/* Builds case `index` into a graph (shape inference runs on every node).  NULL with a diagnostic
 * when the case cannot be represented (unknown op or option, a null where a number belongs, ...). */
WptCase *wpt_case_build(const WptFile *f, int index);
void wpt_case_free(WptCase *c);

/* Compares `actual` (IR layout bytes of output `output_index`) with the expected values under
 * the case's tolerance.  Returns 1 when it passes, 0 when not (why = first mismatch), -1 on a bad
 * index. */
int wpt_compare(const WptCase *c, int output_index, const void *actual, char *why, size_t why_len);

/* WPT's toHalf(): float32 -> float16 bits (round half up in magnitude, like the harness). */
uint16_t wpt_to_half(double v);

#endif
