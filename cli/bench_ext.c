/* bench_ext.c - graphs of the extension-op benchmarks (bench_ext.h): gemm-int4 (matmulNBits with
 * many activation rows: the prefill GEMM) and attention-prefill (groupQueryAttention over a whole
 * prompt).  Constants are deterministic pseudo-random bytes / float16 values copied into the graph. */
#include "bench_ext.h"

#include <stdio.h>
#include <stdlib.h>

#include "core.h"

static uint32_t lcg(uint32_t *s) { return *s = *s * 1103515245u + 12345u; }

/* A constant of n elements of dtype dt: bytes at random, or float16 with exponent bits `base`
 * (0x1c00: |v| < 1/128, 0x3800: [0.5, 1)) and random mantissa and sign. */
static Value *rand_const(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, uint16_t base) {
    uint64_t n = 1;
    for (int d = 0; d < rank; d++) n *= (uint64_t)shape[d];
    uint64_t bytes = dtype_storage_bytes(dt, n);
    uint8_t *p = malloc(bytes ? bytes : 1);
    if (!p) {
        diag_error("out of memory");
        return NULL;
    }
    uint32_t s = 11;
    if (dt == DT_F16)
        for (uint64_t i = 0; i < n; i++) ((uint16_t *)p)[i] = (uint16_t)(base | ((lcg(&s) >> 12) & 0x3ff) | ((s >> 22) & 1) << 15);
    else
        for (uint64_t i = 0; i < bytes; i++) p[i] = (uint8_t)(lcg(&s) >> 16);
    Value *v = graph_add_const_copy(g, name, dt, rank, shape, p, bytes);
    free(p);
    return v;
}

static Value *input(Graph *g, const char *name, int rank, const int64_t *shape) {
    Dim d[4];
    for (int i = 0; i < rank; i++) d[i] = dim_static(shape[i]);
    return graph_add_input(g, name, DT_F16, rank, d);
}

Graph *bench_gemm_int4_graph(int64_t M, int64_t S, double *flops, char *detail, size_t detail_size) {
    int64_t kb = S / 32;
    Graph *g = graph_new("bench_gemm_int4");
    if (!g) return NULL;
    Value *a = input(g, "a", 2, (int64_t[]){M, S});
    Value *b = rand_const(g, "b", DT_U8, 3, (int64_t[]){S, kb, 16}, 0);
    Value *sc = rand_const(g, "scales", DT_F16, 1, (int64_t[]){S * kb}, 0x1c00);
    Value *zp = rand_const(g, "zero_points", DT_U8, 1, (int64_t[]){S * kb / 2}, 0);
    Node *n = graph_new_node(g, OP_MATMUL_NBITS, NULL);
    Value *ops[4] = {a, b, sc, zp};
    for (int i = 0; i < 4; i++) node_add_input(g, n, ops[i]);
    node_set_uint(g, n, "k", S);
    node_set_uint(g, n, "n", S);
    node_set_uint(g, n, "bits", 4);
    node_set_uint(g, n, "blockSize", 32);
    Value *y = b && sc && zp ? graph_finish(g, n) : NULL;
    if (!y) {
        graph_free(g);
        return NULL;
    }
    graph_add_output(g, y);
    *flops = 2.0 * (double)M * (double)S * (double)S;
    snprintf(detail, detail_size, "matmulNBits float16 [%lld, %lld] x uint4 [%lld, %lld] (block 32, zero points)", (long long)M,
             (long long)S, (long long)S, (long long)S);
    return g;
}

Graph *bench_attention_graph(int64_t T, double *flops, char *detail, size_t detail_size) {
    const int64_t N = 14, KV = 2, H = 64;
    Graph *g = graph_new("bench_attention_prefill");
    if (!g) return NULL;
    Value *in[GQA_SLOTS] = {0};
    in[GQA_QUERY] = input(g, "qkv", 3, (int64_t[]){1, T, (N + 2 * KV) * H});
    in[GQA_PAST_KEY] = input(g, "past_key", 4, (int64_t[]){1, KV, T, H});
    in[GQA_PAST_VALUE] = input(g, "past_value", 4, (int64_t[]){1, KV, T, H});
    int32_t seqlens = (int32_t)(T - 1), total = (int32_t)T;
    in[GQA_SEQLENS_K] = graph_add_const_copy(g, "seqlens_k", DT_I32, 1, (int64_t[]){1}, &seqlens, 4);
    in[GQA_TOTAL_SEQ] = graph_add_const_copy(g, "total_sequence_length", DT_I32, 0, NULL, &total, 4);
    in[GQA_COS] = rand_const(g, "cos_cache", DT_F16, 2, (int64_t[]){T, H / 2}, 0x3800);
    in[GQA_SIN] = rand_const(g, "sin_cache", DT_F16, 2, (int64_t[]){T, H / 2}, 0x3800);
    Node *n = graph_new_node(g, OP_GROUP_QUERY_ATTENTION, "attention");
    for (int i = 0; i <= GQA_SIN; i++) node_add_input(g, n, in[i]);
    node_set_uint(g, n, "numHeads", N);
    node_set_uint(g, n, "kvNumHeads", KV);
    node_set_bool(g, n, "doRotary", true);
    if (!in[GQA_COS] || !in[GQA_SIN] || graph_insert_node(g, n) < 0) {
        graph_free(g);
        return NULL;
    }
    for (int i = 0; i < n->n_outputs; i++) graph_add_output(g, n->outputs[i]);
    *flops = 4.0 * (double)(N * H) * (double)T * (double)(T + 1) / 2.0;
    snprintf(detail, detail_size, "groupQueryAttention float16, %lld tokens, 14/2 heads of 64, rotary, causal", (long long)T);
    return g;
}
