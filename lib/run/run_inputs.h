/* run_inputs.h - tensor folders for running a graph (run_inputs.c): reading the *.pb / *.npy files
 * of a folder (an ONNX test_data_set, `webnnc run --inputs / --expect`), matching them to graph
 * values by name, and random inputs (`webnnc run --random`).  Bound with run_io.h. */
#ifndef WEBNNC_RUN_INPUTS_H
#define WEBNNC_RUN_INPUTS_H

#include "core.h"
#include "onnx.h"

#define TENSOR_SET_MAX 256

typedef struct {
    TensorFile t[TENSOR_SET_MAX];
    int n;
} TensorSet;

/* Reads every *.pb / *.npy file of dir (sorted by name).  0, or -1 + diagnostic. */
int run_tensor_set_read_dir(const char *dir, TensorSet *set);
void run_tensor_set_free(TensorSet *s);
/* A tensor name matches a value by the value's name, its ONNX name, or the identifier the
 * converter made of it (`past.0.key` -> `past_0_key`: graphs read from JSON carry no ONNX names). */
bool run_tensor_name_matches(const Value *v, const char *name);
/* Matches files to graph values (by name, ONNX name or its identifier); file_of[i] is the file of
 * vals[i].  The error lists missing and extra names (files naming one of `ignore` are not extra). */
int run_tensor_set_match(Value **vals, int nv, const TensorSet *set, int *file_of, const char *what, bool extra_is_error,
          Value **ignore, int n_ignore);
/* Inputs filled with random values (floats in [-1, 1), integers in [0, 8), dynamic dims at
 * min(maxSize, 16)), file_of[i] = i.  0, or -1 + diagnostic. */
int run_tensor_set_random(Graph *g, TensorSet *set, int *file_of);

#endif
