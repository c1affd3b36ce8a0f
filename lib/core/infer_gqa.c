/* infer_gqa.c - validation and shape inference of the groupQueryAttention extension op:
 * gqa_geometry() (gqa.h) reads every option and operand of the op once, for inference, the CPU
 * reference and the decomposition; infer_gqa() turns it into the three outputs
 * (output [B, S, N*H], presentKey/presentValue shaped like the fixed-capacity caches; without
 * pastKey/pastValue only the output: attention over the S new keys, geo->past false).
 * Family gqa of ops.def: its op-indexed table is infer_gqa_rules. */
#include <inttypes.h>
#include <math.h>

#include "gqa.h"
#include "infer_internal.h"

static bool check_dims(Graph *g, const Node *n, int slot, int rank, const Dim *shape) {
    return infer_check_rank(n, slot, rank, rank) && infer_check_shape(g, n, slot, rank, shape);
}

static int read_options(const Node *n, GqaGeom *geo) {
    geo->heads = node_int(n, "numHeads", 0);
    geo->kv_heads = node_int(n, "kvNumHeads", 0);
    if (geo->heads < 1 || geo->heads > GQA_MAX_HEADS || geo->kv_heads < 1 || geo->kv_heads > GQA_MAX_HEADS) {
        diag_node_error(n, "numHeads (%" PRId64 ") and kvNumHeads (%" PRId64 ") must be in 1..%d", geo->heads,
                        geo->kv_heads, GQA_MAX_HEADS);
        return -1;
    }
    if (geo->heads % geo->kv_heads != 0) {
        diag_node_error(n, "numHeads (%" PRId64 ") is not a multiple of kvNumHeads (%" PRId64 ")", geo->heads,
                        geo->kv_heads);
        return -1;
    }
    geo->group = geo->heads / geo->kv_heads;
    geo->scale = node_float(n, "scale", 0.0);
    geo->softcap = node_float(n, "softcap", 0.0);
    geo->window = node_int(n, "localWindowSize", -1);
    geo->qk_eps = node_float(n, "qkNormEpsilon", 1e-6);
    if (!isfinite(geo->scale) || !isfinite(geo->softcap) || geo->softcap < 0 || !isfinite(geo->qk_eps) ||
        geo->qk_eps < 0) {
        diag_node_error(n, "scale, softcap and qkNormEpsilon must be finite (softcap, qkNormEpsilon >= 0)");
        return -1;
    }
    if (geo->window < -1 || geo->window >= INFER_LIMIT) {
        diag_node_error(n, "localWindowSize %" PRId64 " must be -1 (off) or in 0..2^31", geo->window);
        return -1;
    }
    geo->rotary = node_bool(n, "doRotary", false);
    geo->interleaved = node_bool(n, "rotaryInterleaved", false);
    geo->smooth = node_bool(n, "smoothSoftmax", false);
    return 0;
}

/* pastKey/pastValue [B, kvN, C, H] with static kvN and H (C is static once kv_cache has run). */
static int read_caches(Graph *g, const Node *n, GqaGeom *geo) {
    const Value *pk = infer_in(n, GQA_PAST_KEY);
    if (!infer_check_rank(n, GQA_PAST_KEY, 4, 4)) return -1;
    if (!infer_need_static(n, pk->shape[1], "pastKey dim 1 (kv heads)") ||
        !infer_need_static(n, pk->shape[3], "pastKey dim 3 (head size)"))
        return -1;
    if (pk->shape[1].v != geo->kv_heads) {
        diag_node_error(n, "pastKey (%s) has %" PRId64 " heads at axis 1, expected kvNumHeads = %" PRId64,
                        value_display_name(pk), pk->shape[1].v, geo->kv_heads);
        return -1;
    }
    geo->batch = pk->shape[0];
    geo->cap = pk->shape[2];
    geo->capacity = dim_is_static(geo->cap) ? geo->cap.v : 0;
    geo->head_size = pk->shape[3].v;
    if (!check_dims(g, n, GQA_PAST_VALUE, 4, pk->shape) || !infer_check_same_dtype(n, GQA_PAST_VALUE, GQA_QUERY) ||
        !infer_check_same_dtype(n, GQA_PAST_KEY, GQA_QUERY))
        return -1;
    return 0;
}

/* No cache: B from the query, H from the key width / kvN (packed: query width / (N + 2 kvN)), the
 * keys are the S new tokens (cap = S); seqlensK and totalSequenceLength must be absent. */
static int read_no_cache(const Node *n, GqaGeom *geo) {
    const Value *q = infer_in(n, GQA_QUERY), *k = infer_in(n, GQA_KEY);
    if (infer_in(n, GQA_PAST_KEY) || infer_in(n, GQA_PAST_VALUE)) {
        diag_node_error(n, "pastKey and pastValue must both be present or both absent");
        return -1;
    }
    if (infer_in(n, GQA_SEQLENS_K) || infer_in(n, GQA_TOTAL_SEQ)) {
        diag_node_error(n, "seqlensK and totalSequenceLength need pastKey/pastValue (without a cache the keys are the S new tokens)");
        return -1;
    }
    if (!infer_check_rank(n, GQA_QUERY, 3, 3) || !infer_check_rank(n, GQA_KEY, 3, 3)) return -1;
    const Value *src = k ? k : q;
    int64_t parts = k ? geo->kv_heads : geo->heads + 2 * geo->kv_heads; /* < 2^18 */
    if (!infer_need_static(n, src->shape[2], "key width (last axis)")) return -1;
    if (src->shape[2].v % parts != 0 || src->shape[2].v / parts < 1) {
        diag_node_error(n, "%s width %" PRId64 " is not a positive multiple of %" PRId64 " heads", k ? "key" : "packed query",
                        src->shape[2].v, parts);
        return -1;
    }
    geo->batch = q->shape[0];
    geo->head_size = src->shape[2].v / parts;
    geo->cap = q->shape[1];
    geo->capacity = 0;
    return 0;
}

/* query [B, S, N*H] (or packed [B, S, (N+2kvN)*H]), key/value [B, S, kvN*H]. */
static int read_qkv(Graph *g, const Node *n, GqaGeom *geo) {
    const Value *q = infer_in(n, GQA_QUERY), *k = infer_in(n, GQA_KEY), *v = infer_in(n, GQA_VALUE);
    if (!infer_check_dtype(n, GQA_QUERY, DTM_FLOAT) || !infer_check_rank(n, GQA_QUERY, 3, 3)) return -1;
    if (!k != !v) {
        diag_node_error(n, "key and value must both be present or both absent (packed QKV)");
        return -1;
    }
    geo->packed = !k;
    geo->dt = q->dtype;
    geo->seq = q->shape[1];
    if (!dim_equal(q->shape[0], geo->batch)) {
        char s[256], t[256];
        diag_node_error(n, "query batch %s differs from pastKey batch %s",
                        infer_shape_str(g, 1, &q->shape[0], s, sizeof s), infer_shape_str(g, 1, &geo->batch, t, sizeof t));
        return -1;
    }
    int64_t kv_width = geo->kv_heads * geo->head_size; /* both < 2^31: no overflow in int64 */
    Dim want = dim_static(geo->packed ? (geo->heads + 2 * geo->kv_heads) * geo->head_size : geo->heads * geo->head_size);
    Dim qshape[3] = {geo->batch, geo->seq, want};
    if (!check_dims(g, n, GQA_QUERY, 3, qshape)) return -1;
    Dim kvshape[3] = {geo->batch, geo->seq, dim_static(kv_width)};
    for (int slot = GQA_KEY; slot <= GQA_VALUE && !geo->packed; slot++)
        if (!check_dims(g, n, slot, 3, kvshape) || !infer_check_same_dtype(n, slot, GQA_QUERY)) return -1;
    if (geo->capacity > 0 && dim_max(geo->seq) > geo->capacity) {
        diag_node_error(n, "sequence length (up to %" PRId64 ") exceeds the KV cache capacity %" PRId64,
                        dim_max(geo->seq), geo->capacity);
        return -1;
    }
    return 0;
}

static int read_rotary(Graph *g, const Node *n, GqaGeom *geo) {
    const Value *cos = infer_in(n, GQA_COS), *sin = infer_in(n, GQA_SIN);
    geo->rot = geo->max_pos = 0;
    if (!geo->rotary) return 0; /* ORT ignores the caches without doRotary */
    if (!cos || !sin) {
        diag_node_error(n, "doRotary needs cosCache and sinCache");
        return -1;
    }
    if (!infer_check_rank(n, GQA_COS, 2, 2) || !infer_check_same_dtype(n, GQA_COS, GQA_QUERY) ||
        !infer_need_static(n, cos->shape[0], "cosCache dims") || !infer_need_static(n, cos->shape[1], "cosCache dims") ||
        !check_dims(g, n, GQA_SIN, 2, cos->shape) || !infer_check_same_dtype(n, GQA_SIN, GQA_QUERY))
        return -1;
    geo->max_pos = cos->shape[0].v;
    geo->rot = 2 * cos->shape[1].v;
    if (geo->rot > geo->head_size) {
        diag_node_error(n, "rotary dim %" PRId64 " (2 x cosCache dim 1) exceeds the head size %" PRId64, geo->rot,
                        geo->head_size);
        return -1;
    }
    const Value *pos = infer_in(n, GQA_POSITION_IDS);
    Dim pshape[2] = {geo->batch, geo->seq};
    if (pos && (!infer_check_dtype(n, GQA_POSITION_IDS, DTM(I64) | DTM(I32)) || !check_dims(g, n, GQA_POSITION_IDS, 2, pshape)))
        return -1;
    return 0;
}

static int read_extras(Graph *g, const Node *n, GqaGeom *geo) {
    for (int slot = GQA_K_SCALE; slot <= GQA_V_SCALE; slot++)
        if (infer_in(n, slot)) {
            diag_node_error(n, "quantized KV cache (kScale/vScale) is not supported");
            return -1;
        }
    Dim b1[1] = {dim_static(1)};
    Dim seqlens[1] = {geo->batch};
    if (!infer_check_dtype(n, GQA_SEQLENS_K, DTM(I32)) || !check_dims(g, n, GQA_SEQLENS_K, 1, seqlens) ||
        !infer_check_dtype(n, GQA_TOTAL_SEQ, DTM(I32)))
        return -1;
    const Value *total = infer_in(n, GQA_TOTAL_SEQ);
    if (total && total->rank != 0 && !check_dims(g, n, GQA_TOTAL_SEQ, 1, b1)) return -1;
    const Value *bias = infer_in(n, GQA_ATTENTION_BIAS);
    if (bias) {
        if (!infer_check_rank(n, GQA_ATTENTION_BIAS, 4, 4) || !infer_check_same_dtype(n, GQA_ATTENTION_BIAS, GQA_QUERY))
            return -1;
        Dim want[4] = {geo->batch, dim_static(geo->heads), geo->seq, geo->cap};
        for (int d = 0; d < 2; d++)
            if (dim_is_static(bias->shape[d]) && bias->shape[d].v == 1) want[d] = bias->shape[d];
        if (!check_dims(g, n, GQA_ATTENTION_BIAS, 4, want)) return -1;
    }
    Dim heads[1] = {dim_static(geo->heads)}, hs[1] = {dim_static(geo->head_size)};
    if (!infer_check_vector(g, n, GQA_HEAD_SINK, heads[0], GQA_QUERY) || !infer_check_vector(g, n, GQA_Q_NORM, hs[0], GQA_QUERY) ||
        !infer_check_vector(g, n, GQA_K_NORM, hs[0], GQA_QUERY))
        return -1;
    if (!infer_in(n, GQA_Q_NORM) != !infer_in(n, GQA_K_NORM)) {
        diag_node_error(n, "qNormWeight and kNormWeight must both be present or both absent");
        return -1;
    }
    return 0;
}

int gqa_geometry(Graph *g, const Node *n, GqaGeom *geo) {
    *geo = (GqaGeom){0};
    if (!infer_in(n, GQA_QUERY)) {
        diag_node_error(n, "missing the query operand");
        return -1;
    }
    geo->past = infer_in(n, GQA_PAST_KEY) || infer_in(n, GQA_PAST_VALUE);
    if (geo->past && (!infer_in(n, GQA_PAST_KEY) || !infer_in(n, GQA_PAST_VALUE) || !infer_in(n, GQA_SEQLENS_K) ||
                      !infer_in(n, GQA_TOTAL_SEQ))) {
        diag_node_error(n, "with a KV cache pastKey, pastValue, seqlensK and totalSequenceLength are all required");
        return -1;
    }
    if (read_options(n, geo) < 0 || (geo->past ? read_caches(g, n, geo) : read_no_cache(n, geo)) < 0 || read_qkv(g, n, geo) < 0 ||
        read_rotary(g, n, geo) < 0 || read_extras(g, n, geo) < 0)
        return -1;
    if (geo->scale == 0) geo->scale = 1.0 / sqrt((double)geo->head_size);
    return 0;
}

static int infer_gqa(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    GqaGeom geo;
    if (gqa_geometry(g, n, &geo) < 0) return -1;
    if (max_out < GQA_OUTPUTS) {
        diag_node_error(n, "no room for the 3 outputs");
        return -1;
    }
    out[GQA_OUT] = (TensorDesc){geo.dt, 3, {geo.batch, geo.seq, dim_static(geo.heads * geo.head_size)}};
    if (!geo.past) return 1;
    infer_desc_of(&out[GQA_PRESENT_KEY], infer_in(n, GQA_PAST_KEY));
    infer_desc_of(&out[GQA_PRESENT_VALUE], infer_in(n, GQA_PAST_VALUE));
    return GQA_OUTPUTS;
}

const InferRule infer_gqa_rules[OP_COUNT] = {
    [OP_GROUP_QUERY_ATTENTION] = {infer_gqa},
};
