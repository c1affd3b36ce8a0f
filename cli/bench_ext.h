/* bench_ext.h - graphs of the extension-op benchmarks of `webnnc bench` (cmd_bench.c): the
 * matmulNBits prefill GEMM and groupQueryAttention prefill, built in code (bench_ext.c). */
#ifndef WEBNNC_BENCH_EXT_H
#define WEBNNC_BENCH_EXT_H

#include <stddef.h>

#include "core.h"

/* y = a . dequant(b)^T with a float16 [M, S] (the only graph input), b a 4-bit [S, S] matmulNBits
 * constant (block 32, uint8 zero points, float16 scales).  *flops = 2 M S S. */
Graph *bench_gemm_int4_graph(int64_t M, int64_t S, double *flops, char *detail, size_t detail_size);
/* Qwen2-0.5B's attention layer at prefill: groupQueryAttention, 14 query / 2 KV heads of 64, packed
 * float16 QKV [1, T, 1152] and past caches [1, 2, T, 64] (inputs), rotary from float16 cos/sin
 * caches, seqlensK T - 1 (constant: an empty past).  *flops = 4 N H T (T + 1) / 2 (causal). */
Graph *bench_attention_graph(int64_t T, double *flops, char *detail, size_t detail_size);

#endif
