/* ops_contrib.c - importer handlers for the ORT-GenAI contrib ops, each mapped to one webnnc
 * extension op (ops.def, OPF_EXT) that passes/decompose_*.c later lowers to spec ops:
 *   com.microsoft MatMulNBits                -> matmulNBits   (g_idx only in the trivial order)
 *   SimplifiedLayerNormalization (ai.onnx)   -> rmsNorm       (output 0 only)
 *   com.microsoft SkipSimplifiedLayerNormalization -> skipRmsNorm (outputs 0 and 3)
 *   com.microsoft SkipLayerNormalization     -> add + layerNormalization (spec ops; outputs 0 and 3)
 *   com.microsoft RotaryEmbedding, ai.onnx RotaryEmbedding-23 -> rotaryEmbedding (one operand order)
 *   com.microsoft GatherBlockQuantized       -> gatherBlockQuantized
 *   com.microsoft QuickGelu                  -> quickGelu
 * Semantics: docs/extension-ops.md and ../shared/docs/ortgenai-ops.md section 2. */
#include <inttypes.h>
#include <string.h>

#include "core.h"
#include "import_internal.h"

/* New node of `op` with the given operands (NULL = absent optional). */
static Node *with_inputs(OnnxCtx *c, OpId op, int count, Value *const *ins) {
    Node *n = onnx_imp_node(c, op);
    for (int i = 0; i < count; i++) node_add_input(c->g, n, ins[i]);
    return n;
}

/* Rejects requested outputs the extension op does not produce. */
static int only_outputs(OnnxCtx *c, unsigned allowed_mask) {
    for (int i = 0; i < c->n_out; i++)
        if (onnx_imp_wants_out(c, i) && !(allowed_mask & (1u << i))) return onnx_imp_error(c, "output %d is not supported", i);
    return 0;
}

/* g_idx must list k / blockSize for every k (the order MatMulNBits uses without it). */
static int check_g_idx(OnnxCtx *c, const Value *g_idx, int64_t k, int64_t block) {
    if (!(g_idx->flags & VF_CONST) || !g_idx->data || g_idx->rank != 1 || !dim_is_static(g_idx->shape[0]))
        return onnx_imp_error(c, "g_idx must be a constant 1-D tensor");
    int64_t len = g_idx->shape[0].v;
    if (len < k || len > k + block) return onnx_imp_error(c, "g_idx has %" PRId64 " entries, expected %" PRId64, len, k);
    for (int64_t i = 0; i < len; i++)
        if (onnx_const_elem_i64(g_idx, (uint64_t)i) != i / block)
            return onnx_imp_error(c, "g_idx is not the trivial order (act-order reordering is not supported)");
    return 0;
}

int onnx_MatMulNBits(OnnxCtx *c) {
    Value *a = onnx_in_req(c, 0), *b = onnx_in_req(c, 1), *scales = onnx_in_req(c, 2);
    if (!a || !b || !scales || only_outputs(c, 1) < 0) return -1;
    int64_t k = onnx_attr_int(c, "K", -1), n = onnx_attr_int(c, "N", -1), bits = onnx_attr_int(c, "bits", 4);
    int64_t block = onnx_attr_int(c, "block_size", -1);
    if (k < 1 || n < 1 || block < 1) return onnx_imp_error(c, "attributes K, N and block_size are required");
    if (onnx_attr_int(c, "weight_prepacked", 0) != 0) return onnx_imp_error(c, "prepacked weights are not supported");
    Value *g_idx = onnx_in_opt(c, 4);
    if (g_idx && check_g_idx(c, g_idx, k, block) < 0) return -1;
    Node *node = with_inputs(c, OP_MATMUL_NBITS, 5, (Value *[]){a, b, scales, onnx_in_opt(c, 3), onnx_in_opt(c, 5)});
    node_set_uint(c->g, node, "k", k);
    node_set_uint(c->g, node, "n", n);
    node_set_uint(c->g, node, "bits", bits < 0 ? 0 : bits);
    node_set_uint(c->g, node, "blockSize", block);
    return onnx_imp_result(c, onnx_imp_finish(c, node));
}

int onnx_SimplifiedLayerNormalization(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0), *scale = onnx_in_req(c, 1);
    int64_t axis;
    if (!x || !scale || only_outputs(c, 1) < 0 || onnx_imp_axis(c, onnx_attr_int(c, "axis", -1), x->rank, &axis) < 0)
        return -1;
    Node *n = with_inputs(c, OP_RMS_NORM, 2, (Value *[]){x, scale});
    node_set_uint(c->g, n, "axis", axis);
    node_set_float(c->g, n, "epsilon", onnx_attr_float(c, "epsilon", EXT_RMS_NORM_EPSILON));
    node_set_int(c->g, n, "stashType", onnx_attr_int(c, "stash_type", 1));
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}

int onnx_SkipSimplifiedLayerNormalization(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0), *skip = onnx_in_req(c, 1), *gamma = onnx_in_req(c, 2);
    if (!x || !skip || !gamma || only_outputs(c, 1u | 8u) < 0) return -1;
    bool sum = onnx_imp_wants_out(c, 3);
    Node *n = with_inputs(c, OP_SKIP_RMS_NORM, 4, (Value *[]){x, skip, gamma, onnx_in_opt(c, 3)});
    node_set_float(c->g, n, "epsilon", onnx_attr_float(c, "epsilon", EXT_RMS_NORM_EPSILON));
    node_set_uint(c->g, n, "outputCount", sum ? 2 : 1);
    if (onnx_imp_insert(c, n) < 0) return -1;
    if (sum) onnx_imp_set_out(c, 3, n->outputs[1]);
    return onnx_imp_result(c, n->outputs[0]);
}

/* com.microsoft SkipLayerNormalization (LayerNorm models: OLMo, Nemotron): lowered to spec ops,
 * s = input + skip (+ bias), output = layerNormalization(s, gamma, beta) over the last axis, output 3
 * = s.  float16 is summed and normalized in float32 (ORT skip_layer_norm.cc) and rounded once. */
int onnx_SkipLayerNormalization(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0), *skip = onnx_in_req(c, 1), *gamma = onnx_in_req(c, 2), *beta = onnx_in_opt(c, 3), *bias = onnx_in_opt(c, 4);
    if (!x || !skip || !gamma || only_outputs(c, 1u | 8u) < 0) return -1;
    if (x->rank < 1) return onnx_imp_error(c, "input must have rank >= 1");
    DType t = x->dtype, f = t == DT_F16 ? DT_F32 : t;
    Value *s = onnx_emit_binary(c, OP_ADD, onnx_emit_cast(c, x, f), onnx_emit_cast(c, skip, f));
    if (s && bias) s = onnx_emit_binary(c, OP_ADD, s, onnx_emit_cast(c, bias, f));
    if (!s) return -1;
    int64_t last = x->rank - 1;
    Node *n = with_inputs(c, OP_LAYER_NORMALIZATION, 3,
                          (Value *[]){s, onnx_emit_cast(c, gamma, f), beta ? onnx_emit_cast(c, beta, f) : NULL});
    node_set_ints(c->g, n, "axes", 1, &last);
    node_set_float(c->g, n, "epsilon", onnx_attr_float(c, "epsilon", 1e-12));
    if (onnx_imp_wants_out(c, 3)) onnx_imp_set_out(c, 3, onnx_emit_cast(c, s, t));
    return onnx_imp_result(c, onnx_emit_cast(c, onnx_imp_finish(c, n), t));
}

int onnx_RotaryEmbedding(OnnxCtx *c) {
    bool ms = strcmp(c->domain, "com.microsoft") == 0;
    /* com.microsoft: (input, position_ids, cos, sin); ai.onnx 23: (X, cos, sin, position_ids?) */
    Value *x = onnx_in_req(c, 0), *pos = ms ? onnx_in_req(c, 1) : onnx_in_opt(c, 3);
    Value *cos = onnx_in_req(c, ms ? 2 : 1), *sin = onnx_in_req(c, ms ? 3 : 2);
    if (!x || !cos || !sin || (ms && !pos) || only_outputs(c, 1) < 0) return -1;
    if (onnx_attr_int(c, "is_packed_batching", 0) != 0) return onnx_imp_error(c, "packed batching is not supported");
    int64_t heads = onnx_attr_int(c, "num_heads", 0), rot = onnx_attr_int(c, "rotary_embedding_dim", 0);
    if (heads < 0 || rot < 0) return onnx_imp_error(c, "num_heads and rotary_embedding_dim must be >= 0");
    Node *n = with_inputs(c, OP_ROTARY_EMBEDDING, 4, (Value *[]){x, pos, cos, sin});
    node_set_bool(c->g, n, "interleaved", onnx_attr_int(c, "interleaved", 0) != 0);
    if (heads) node_set_uint(c->g, n, "numHeads", heads);
    if (rot) node_set_uint(c->g, n, "rotaryEmbeddingDim", rot);
    if (ms) node_set_float(c->g, n, "scale", onnx_attr_float(c, "scale", 1.0));
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}

int onnx_GatherBlockQuantized(OnnxCtx *c) {
    Value *data = onnx_in_req(c, 0), *idx = onnx_in_req(c, 1), *scales = onnx_in_req(c, 2);
    int64_t ga, qa, bits = onnx_attr_int(c, "bits", 4), block = onnx_attr_int(c, "block_size", 128);
    if (!data || !idx || !scales || only_outputs(c, 1) < 0 ||
        onnx_imp_axis(c, onnx_attr_int(c, "gather_axis", 0), data->rank, &ga) < 0 ||
        onnx_imp_axis(c, onnx_attr_int(c, "quantize_axis", 1), data->rank, &qa) < 0)
        return -1;
    if (bits < 1 || block < 1) return onnx_imp_error(c, "bits and block_size must be positive");
    Node *n = with_inputs(c, OP_GATHER_BLOCK_QUANTIZED, 4, (Value *[]){data, idx, scales, onnx_in_opt(c, 3)});
    node_set_uint(c->g, n, "bits", bits);
    node_set_uint(c->g, n, "blockSize", block);
    node_set_uint(c->g, n, "gatherAxis", ga);
    node_set_uint(c->g, n, "quantizeAxis", qa);
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}

int onnx_QuickGelu(OnnxCtx *c) {
    Value *x = onnx_in_req(c, 0);
    if (!x || only_outputs(c, 1) < 0) return -1;
    Node *n = with_inputs(c, OP_QUICK_GELU, 1, &x);
    node_set_float(c->g, n, "alpha", onnx_attr_float(c, "alpha", EXT_QUICK_GELU_ALPHA));
    return onnx_imp_result(c, onnx_imp_finish(c, n));
}
