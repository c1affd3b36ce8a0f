/* ops_contrib_gqa.c - importer handler for com.microsoft GroupQueryAttention -> the
 * groupQueryAttention extension op (ops.def; semantics in docs/extension-ops.md).  Operands keep
 * ORT's order; attributes are renamed snake_case -> camelCase.  What the extension op cannot
 * express is rejected naming the node: a quantized KV cache (k_scale/v_scale, kv_cache_bit_width,
 * k/v_quant_type), the windowed cache layout (sliding_window_cache), non-causal attention,
 * qk_output / the output_qk output, and a missing past (the KV cache is mandatory). */
#include <string.h>

#include "core.h"
#include "import_internal.h"

/* Attributes that must keep their "off" value. */
static int reject_unsupported(OnnxCtx *c) {
    static const char *const zero_attrs[] = {"qk_output", "kv_cache_bit_width", "sliding_window_cache"};
    for (size_t i = 0; i < sizeof zero_attrs / sizeof *zero_attrs; i++)
        if (onnx_attr_int(c, zero_attrs[i], 0) != 0) return onnx_imp_error(c, "attribute %s is not supported", zero_attrs[i]);
    if (onnx_attr_int(c, "causal", 1) != 1) return onnx_imp_error(c, "non-causal attention (causal=0) is not supported");
    static const char *const quant_attrs[] = {"k_quant_type", "v_quant_type"};
    for (size_t i = 0; i < 2; i++) {
        const char *q = onnx_attr_string(c, quant_attrs[i], "NONE");
        if (q && strcmp(q, "NONE") != 0) return onnx_imp_error(c, "quantized KV cache (%s=%s) is not supported", quant_attrs[i], q);
    }
    if (onnx_in_opt(c, GQA_K_SCALE) || onnx_in_opt(c, GQA_V_SCALE))
        return onnx_imp_error(c, "quantized KV cache (k_scale/v_scale inputs) is not supported");
    if (c->n_in > GQA_SLOTS) return onnx_imp_error(c, "has %d inputs, at most %d are known", c->n_in, GQA_SLOTS);
    if (onnx_imp_wants_out(c, 3)) return onnx_imp_error(c, "output 3 (output_qk) is not supported");
    if (!onnx_in_opt(c, GQA_PAST_KEY) || !onnx_in_opt(c, GQA_PAST_VALUE))
        return onnx_imp_error(c, "past_key and past_value are required (webnnc keeps a fixed-capacity KV cache)");
    return diag_has_error() ? -1 : 0;
}

int onnx_GroupQueryAttention(OnnxCtx *c) {
    if (!onnx_in_req(c, GQA_QUERY) || !onnx_in_req(c, GQA_SEQLENS_K) || !onnx_in_req(c, GQA_TOTAL_SEQ) || reject_unsupported(c) < 0)
        return -1;
    int64_t heads = onnx_attr_int(c, "num_heads", 0), kv_heads = onnx_attr_int(c, "kv_num_heads", 0);
    if (heads < 1 || kv_heads < 1) return onnx_imp_error(c, "attributes num_heads and kv_num_heads must be >= 1");
    Node *n = onnx_imp_node(c, OP_GROUP_QUERY_ATTENTION);
    int last = c->n_in < GQA_SLOTS ? c->n_in : GQA_SLOTS;
    for (int i = 0; i < last; i++) node_add_input(c->g, n, onnx_in_opt(c, i));
    node_set_uint(c->g, n, "numHeads", heads);
    node_set_uint(c->g, n, "kvNumHeads", kv_heads);
    double scale = onnx_attr_float(c, "scale", 0.0), softcap = onnx_attr_float(c, "softcap", 0.0);
    if (scale != 0.0) node_set_float(c->g, n, "scale", scale);
    if (softcap != 0.0) node_set_float(c->g, n, "softcap", softcap);
    node_set_int(c->g, n, "localWindowSize", onnx_attr_int(c, "local_window_size", -1));
    node_set_bool(c->g, n, "doRotary", onnx_attr_int(c, "do_rotary", 0) != 0);
    node_set_bool(c->g, n, "rotaryInterleaved", onnx_attr_int(c, "rotary_interleaved", 0) != 0);
    node_set_bool(c->g, n, "smoothSoftmax", onnx_attr_int(c, "smooth_softmax", 0) != 0);
    if (onnx_attr_find(c, "qk_norm_epsilon")) node_set_float(c->g, n, "qkNormEpsilon", onnx_attr_float(c, "qk_norm_epsilon", 1e-6));
    if (diag_has_error() || onnx_imp_insert(c, n) < 0) return -1;
    onnx_imp_set_out(c, GQA_PRESENT_KEY, n->outputs[GQA_PRESENT_KEY]);
    onnx_imp_set_out(c, GQA_PRESENT_VALUE, n->outputs[GQA_PRESENT_VALUE]);
    return onnx_imp_result(c, n->outputs[GQA_OUT]);
}
