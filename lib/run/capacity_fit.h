/* capacity_fit.h - convert_onnx for a device (capacity_fit.c): a GenAI model whose max_length makes
 * a tensor larger than the device's maximum buffer size is converted again with a lower
 * total_sequence_length, with a one-line notice naming `--dim total_sequence_length=N`. */
#ifndef WEBNNC_CAPACITY_FIT_H
#define WEBNNC_CAPACITY_FIT_H

#include "convert.h"

/* Bytes of the graph's largest tensor at its dims' upper bounds. */
uint64_t run_graph_largest_tensor_bytes(const Graph *g);

/* convert_onnx(input, opt, ...) for Vulkan device `device` (-1: auto, the smallest limit of all
 * devices).  Unless the user set total_sequence_length (--fix or --dim), a graph whose largest
 * tensor exceeds the device's maximum buffer size is converted again with total_sequence_length
 * lowered to the largest power of two that fits, and stderr gets one line
 * "webnnc: note: total_sequence_length lowered from C to N ...; choose it with --dim
 * total_sequence_length=N (N <= ... fits)".  Same results as convert_onnx. */
Graph *run_convert_onnx_fitting(const char *input, const ConvertOptions *opt, int device, size_t *onnx_nodes,
                            int *exit_code);

#endif
