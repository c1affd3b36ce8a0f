/* summary.h - the model summary printed by `webnnc inspect`: one cJSON object with stable keys
 * (format, nodes, ops, inputs, outputs, parameterBytes, opsets) that is filled by the ONNX or the
 * webnn-graph reader and rendered either as JSON or as text.  See README.md "inspect". */
#ifndef WEBNNC_CLI_SUMMARY_H
#define WEBNNC_CLI_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "core.h"

/* {"format": format, "nodes": 0, "ops": {}, "inputs": [], "outputs": [], "parameterBytes": {}};
 * NULL on out-of-memory. */
cJSON *summary_new(const char *format);
/* ops[name] += 1, nodes += 1. */
void summary_count_op(cJSON *s, const char *name);
/* parameterBytes[dtype] += bytes. */
void summary_add_bytes(cJSON *s, const char *dtype, uint64_t bytes);
/* Appends {"name", "dataType", "shape": []} to s[list] ("inputs"/"outputs"); returns the shape array. */
cJSON *summary_add_tensor(cJSON *s, const char *list, const char *name, const char *dtype);
/* Shape entries: a number, or {"name": NAME, "maxSize": MAX} (maxSize left out when max <= 0). */
void summary_dim_static(cJSON *shape, int64_t v);
void summary_dim_symbol(cJSON *shape, const char *name, int64_t max);
/* Total of parameterBytes. */
uint64_t summary_total_bytes(const cJSON *s);

/* Writes the summary: JSON (keys in a fixed order, ops sorted by name) or a text report. */
void summary_print(cJSON *s, bool json, FILE *f);

/* Bytes a constant takes in the webnn-graph weights file (4-bit types one byte per element). */
uint64_t value_file_bytes(const Value *v);
/* Adds every constant of `g` to parameterBytes; returns the total. */
uint64_t summary_add_graph_constants(cJSON *s, const Graph *g);
/* "3.1 MB" style size. */
const char *format_bytes(uint64_t n, char *buf, size_t len);

#endif
