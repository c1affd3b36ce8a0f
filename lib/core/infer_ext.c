/* infer_ext.c - shape inference for the webnnc extension ops (OPF_EXT lines of ops.def: the
 * ORT-GenAI contrib ops matmulNBits, rmsNorm, skipRmsNorm, rotaryEmbedding, gatherBlockQuantized,
 * quickGelu), and the geometry readers of ext_ops.h that the evaluator and the decomposition
 * passes share.  Semantics and operand rules: docs/extension-ops.md.
 * Family ext of ops.def: its op-indexed table is infer_ext_rules. */
#include <inttypes.h>

#include "checked.h"
#include "ext_ops.h"
#include "infer_internal.h"

/* ---- shared readers ------------------------------------------------------------------------ */

static bool power_of_two_block(const Node *n, int64_t block) {
    if (block >= 16 && block <= EXT_MAX_BLOCK_SIZE && (block & (block - 1)) == 0) return true;
    diag_node_error(n, "blockSize %" PRId64 " must be a power of two in 16..%d", block, EXT_MAX_BLOCK_SIZE);
    return false;
}

/* Static dim of operand `slot` at `axis`, or -1 with "dynamic dim not supported ...". */
static int64_t static_dim(const Node *n, int slot, int axis, const char *what) {
    const Value *v = infer_in(n, slot);
    if (!v || axis < 0 || axis >= v->rank) {
        diag_node_error(n, "operand %d has no axis %d", slot, axis);
        return -1;
    }
    return infer_need_static(n, v->shape[axis], what) ? v->shape[axis].v : -1;
}

/* Element count of a fully static operand, or -1 with a diagnostic. */
static int64_t static_count(const Node *n, int slot) {
    const Value *v = infer_in(n, slot);
    int64_t count = 1;
    for (int i = 0; v && i < v->rank; i++) {
        if (!infer_need_static(n, v->shape[i], "operand dims") || !checked_mul_i64(count, v->shape[i].v, &count)) {
            if (!diag_has_error()) diag_node_error(n, "operand %d is too large", slot);
            return -1;
        }
    }
    return count;
}

/* Operand `slot` must be static with `count` elements, either 2-D [rows, cols] or flat. */
static bool matrix_or_flat(Graph *g, const Node *n, int slot, int64_t rows, int64_t cols) {
    const Value *v = infer_in(n, slot);
    int64_t total;
    if (!checked_mul_i64(rows, cols, &total)) {
        diag_node_error(n, "operand %d size overflows", slot);
        return false;
    }
    Dim two[2] = {dim_static(rows), dim_static(cols)}, flat = dim_static(total);
    if (v->rank == 1) return infer_check_shape(g, n, slot, 1, &flat);
    return infer_check_shape(g, n, slot, 2, two);
}

int nbits_geometry(const Node *n, NBitsGeom *geo) {
    geo->k = node_int(n, "k", 0);
    geo->n = node_int(n, "n", 0);
    geo->bits = node_int(n, "bits", 0);
    geo->block = node_int(n, "blockSize", 0);
    if (geo->bits != 2 && geo->bits != 4 && geo->bits != 8) {
        diag_node_error(n, "bits %" PRId64 " is not 2, 4 or 8", geo->bits);
        return -1;
    }
    if (!power_of_two_block(n, geo->block)) return -1;
    if (geo->k < 1 || geo->n < 1 || geo->k >= INFER_LIMIT || geo->n >= INFER_LIMIT) {
        diag_node_error(n, "k %" PRId64 " and n %" PRId64 " must be in 1..2^31-1", geo->k, geo->n);
        return -1;
    }
    geo->k_blocks = (geo->k + geo->block - 1) / geo->block;
    geo->blob = geo->block * geo->bits / 8;
    geo->zp_row_bytes = (geo->k_blocks * geo->bits + 7) / 8;
    return 0;
}

int rotary_geometry(const Node *n, RotaryGeom *geo) {
    const Value *x = infer_in(n, 0), *pos = infer_in(n, 1), *cos = infer_in(n, 2), *sin = infer_in(n, 3);
    if (!x || !cos || !sin) {
        diag_node_error(n, "missing operands");
        return -1;
    }
    if (x->rank != 3 && x->rank != 4) {
        diag_node_error(n, "input %s has rank %d, expected 3 ([B, S, N*H]) or 4 ([B, N, S, H])", value_display_name(x),
                        x->rank);
        return -1;
    }
    geo->four_d = x->rank == 4;
    geo->pos_form = !pos ? 2 : (pos->rank == 1 ? 0 : 1);
    int cache_rank = geo->pos_form == 2 ? 3 : 2;
    if (cos->rank != cache_rank || sin->rank != cache_rank) {
        diag_node_error(n, "cos/sin caches must have rank %d %s", cache_rank,
                        pos ? "([maxPosition, rot/2])" : "([B, S, rot/2] without positionIds)");
        return -1;
    }
    geo->half = static_dim(n, 2, cache_rank - 1, "cache dims");
    if (geo->half < 1) return -1;
    int64_t nh = node_int(n, "numHeads", 0), rd = node_int(n, "rotaryEmbeddingDim", 0);
    if (geo->four_d) {
        geo->heads = static_dim(n, 0, 1, "head count");
        geo->head_size = static_dim(n, 0, 3, "head size");
        if (geo->heads < 0 || geo->head_size < 0) return -1;
        if (nh && nh != geo->heads) {
            diag_node_error(n, "numHeads %" PRId64 " differs from the input's %" PRId64 " heads", nh, geo->heads);
            return -1;
        }
    } else {
        int64_t hidden = static_dim(n, 0, 2, "hidden size");
        if (hidden < 0) return -1;
        if (nh == 0 && rd != 0) {
            diag_node_error(n, "rotaryEmbeddingDim needs numHeads for a 3-D input");
            return -1;
        }
        geo->heads = nh;
        geo->head_size = nh ? hidden / nh : 2 * geo->half;
        if (!nh) geo->heads = hidden / geo->head_size;
        if (geo->heads < 1 || geo->head_size < 1 || geo->heads * geo->head_size != hidden) {
            diag_node_error(n, "hidden size %" PRId64 " is not a multiple of the head size %" PRId64, hidden,
                            geo->head_size);
            return -1;
        }
    }
    geo->rot = rd ? rd : geo->head_size;
    if (geo->rot % 2 || geo->rot > geo->head_size || geo->rot != 2 * geo->half) {
        diag_node_error(n, "rotary dim %" PRId64 " must be even, at most the head size %" PRId64
                        " and twice the cache dim %" PRId64, geo->rot, geo->head_size, geo->half);
        return -1;
    }
    return 0;
}

int gbq_geometry(const Node *n, GbqGeom *geo) {
    const Value *data = infer_in(n, 0);
    geo->bits = node_int(n, "bits", 4);
    geo->block = node_int(n, "blockSize", 0);
    if (!data || !power_of_two_block(n, geo->block)) return -1;
    bool packed = data->dtype == DT_U8;
    if (packed ? (geo->bits != 2 && geo->bits != 4 && geo->bits != 8) : geo->bits != 4) {
        diag_node_error(n, "bits %" PRId64 " is not supported for %s data", geo->bits, dtype_name(data->dtype));
        return -1;
    }
    geo->components = packed ? 8 / geo->bits : 1;
    int64_t ga = node_int(n, "gatherAxis", 0), qa = node_int(n, "quantizeAxis", 0);
    if (!infer_check_axis(n, "gatherAxis", ga, data->rank) || !infer_check_axis(n, "quantizeAxis", qa, data->rank))
        return -1;
    if (packed && (ga != 0 || qa != data->rank - 1)) {
        diag_node_error(n, "uint8 data needs gatherAxis 0 and quantizeAxis = the last axis");
        return -1;
    }
    if (ga == qa) {
        diag_node_error(n, "gatherAxis and quantizeAxis must differ");
        return -1;
    }
    geo->gather_axis = (int)ga;
    geo->quant_axis = (int)qa;
    int64_t stored = static_dim(n, 0, (int)qa, "quantized axis");
    if (stored < 0) return -1;
    geo->quant_dim = stored * geo->components;
    geo->n_blocks = (geo->quant_dim + geo->block - 1) / geo->block;
    return 0;
}

int skip_rms_norm_outputs(const Node *n) {
    int64_t c = node_int(n, "outputCount", 1);
    if (c == 1 || c == 2) return (int)c;
    diag_node_error(n, "outputCount %" PRId64 " is not 1 or 2", c);
    return -1;
}

/* ---- rules ------------------------------------------------------------------------------------ */

static int infer_matmul_nbits(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    (void)max_out;
    NBitsGeom geo;
    const Value *a = infer_in(n, 0), *zp = infer_in(n, 3);
    if (!infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_dtype(n, 1, DTM(U8)) || !infer_check_same_dtype(n, 2, 0) || !infer_check_same_dtype(n, 4, 0) ||
        nbits_geometry(n, &geo) < 0)
        return -1;
    Dim bshape[3] = {dim_static(geo.n), dim_static(geo.k_blocks), dim_static(geo.blob)};
    if (static_dim(n, 0, a->rank - 1, "k") < 0) return -1;
    if (a->shape[a->rank - 1].v != geo.k) {
        diag_node_error(n, "input %s has %" PRId64 " columns, expected k = %" PRId64, value_display_name(a),
                        a->shape[a->rank - 1].v, geo.k);
        return -1;
    }
    if (!infer_check_shape(g, n, 1, 3, bshape) || !matrix_or_flat(g, n, 2, geo.n, geo.k_blocks)) return -1;
    if (zp) {
        if (zp->dtype == DT_U8) {
            if (!matrix_or_flat(g, n, 3, geo.n, geo.zp_row_bytes)) return -1;
        } else if (!infer_check_same_dtype(n, 3, 0) || !matrix_or_flat(g, n, 3, geo.n, geo.k_blocks)) {
            return -1;
        }
    }
    if (!infer_check_vector(g, n, 4, dim_static(geo.n), 0)) return -1;
    infer_desc_of(&out[0], a);
    out[0].shape[a->rank - 1] = dim_static(geo.n);
    return 1;
}

/* Product of the static dims [from, rank) of operand 0, or -1. */
static int64_t norm_size(const Node *n, int from) {
    const Value *x = infer_in(n, 0);
    int64_t size = 1;
    for (int i = from; i < x->rank; i++)
        if (static_dim(n, 0, i, "normalized dims") < 0 || !checked_mul_i64(size, x->shape[i].v, &size)) return -1;
    return size;
}

static int infer_rms_norm(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    (void)g, (void)max_out;
    const Value *x = infer_in(n, 0);
    if (!infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_dtype(n, 1, DTM_FLOAT) ||
        !infer_check_rank(n, 0, 1, WN_MAX_RANK))
        return -1;
    int64_t axis = node_int(n, "axis", 0);
    if (!infer_check_axis(n, "axis", axis, x->rank)) return -1;
    int64_t size = norm_size(n, (int)axis), scale_count = static_count(n, 1);
    if (size < 0 || scale_count < 0) return -1;
    if (scale_count != size) {
        diag_node_error(n, "scale has %" PRId64 " elements, expected %" PRId64 " (the normalized size)", scale_count,
                        size);
        return -1;
    }
    infer_desc_of(&out[0], x);
    out[0].dtype = infer_in(n, 1)->dtype;
    return 1;
}

static int infer_skip_rms_norm(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    const Value *x = infer_in(n, 0), *skip = infer_in(n, 1);
    int count = skip_rms_norm_outputs(n);
    if (count < 0 || !infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_same_dtype(n, 1, 0) || !infer_check_same_dtype(n, 2, 0))
        return -1;
    if (count > max_out) {
        diag_node_error(n, "no room for %d outputs", count);
        return -1;
    }
    if (!infer_unidirectional(skip->rank, skip->shape, x->rank, x->shape)) {
        infer_shapes_error(g, n, "skip shape", skip->rank, skip->shape, "cannot be broadcast to input shape", x->rank,
                           x->shape);
        return -1;
    }
    int64_t hidden = static_dim(n, 0, x->rank - 1, "hidden size");
    if (hidden < 0 || !infer_check_vector(g, n, 2, dim_static(hidden), 0) ||
        !infer_check_vector(g, n, 3, dim_static(hidden), 0))
        return -1;
    for (int i = 0; i < count; i++) infer_desc_of(&out[i], x);
    return count;
}

static int infer_rotary(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    (void)max_out;
    const Value *x = infer_in(n, 0), *pos = infer_in(n, 1);
    RotaryGeom geo;
    if (!infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_same_dtype(n, 2, 0) || !infer_check_same_dtype(n, 3, 0) ||
        !infer_check_dtype(n, 1, DTM(I64) | DTM(I32)) || rotary_geometry(n, &geo) < 0)
        return -1;
    const Value *cos = infer_in(n, 2);
    Dim b = x->shape[0], s = x->shape[geo.four_d ? 2 : 1];
    if (!infer_check_shape(g, n, 3, cos->rank, cos->shape)) return -1;
    if (geo.pos_form == 2) {
        Dim want[3] = {b, s, dim_static(geo.half)};
        if (!infer_check_shape(g, n, 2, 3, want)) return -1;
    } else if (geo.pos_form == 1) {
        Dim want[2] = {b, s};
        if (!infer_check_shape(g, n, 1, 2, want)) return -1;
    } else if (!dim_equal(pos->shape[0], dim_static(1))) {
        diag_node_error(n, "positionIds must be [B, S] or [1] (a start offset)");
        return -1;
    }
    infer_desc_of(&out[0], x);
    return 1;
}

static int infer_gather_block_quantized(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    (void)g, (void)max_out;
    const Value *data = infer_in(n, 0), *idx = infer_in(n, 1), *scales = infer_in(n, 2), *zp = infer_in(n, 3);
    GbqGeom geo;
    if (!infer_check_dtype(n, 0, DTM(U8) | DTM(U4) | DTM(I4)) || !infer_check_dtype(n, 1, DTM(I32) | DTM(I64)) ||
        !infer_check_dtype(n, 2, DTM_FLOAT) || !infer_check_rank(n, 0, 1, WN_MAX_RANK) ||
        !infer_check_same_dtype(n, 3, 0) || gbq_geometry(n, &geo) < 0)
        return -1;
    if (scales->rank != data->rank || (zp && zp->rank != data->rank)) {
        diag_node_error(n, "data, scales and zeroPoints must have the same rank");
        return -1;
    }
    for (int i = 0; i < data->rank; i++) {
        bool q = i == geo.quant_axis;
        Dim want = q ? dim_static(geo.n_blocks) : data->shape[i];
        Dim want_zp = q ? dim_static((geo.n_blocks + geo.components - 1) / geo.components) : data->shape[i];
        if (!dim_equal(scales->shape[i], want) || (zp && !dim_equal(zp->shape[i], want_zp))) {
            diag_node_error(n, "scales/zeroPoints do not match the data's blocks at axis %d", i);
            return -1;
        }
    }
    int rank = data->rank - 1 + idx->rank;
    if (rank > WN_MAX_RANK) {
        diag_node_error(n, "output rank %d exceeds %d", rank, WN_MAX_RANK);
        return -1;
    }
    TensorDesc *o = &out[0];
    o->dtype = scales->dtype;
    o->rank = 0;
    for (int i = 0; i < geo.gather_axis; i++) o->shape[o->rank++] = data->shape[i];
    for (int i = 0; i < idx->rank; i++) o->shape[o->rank++] = idx->shape[i];
    for (int i = geo.gather_axis + 1; i < data->rank; i++)
        o->shape[o->rank++] = i == geo.quant_axis ? dim_static(geo.quant_dim) : data->shape[i];
    return 1;
}

static int infer_quick_gelu(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    (void)g, (void)max_out;
    if (!infer_check_dtype(n, 0, DTM_FLOAT)) return -1;
    infer_desc_of(&out[0], infer_in(n, 0));
    return 1;
}

const InferRule infer_ext_rules[OP_COUNT] = {
    [OP_MATMUL_NBITS] = {infer_matmul_nbits},
    [OP_RMS_NORM] = {infer_rms_norm},
    [OP_SKIP_RMS_NORM] = {infer_skip_rms_norm},
    [OP_ROTARY_EMBEDDING] = {infer_rotary},
    [OP_GATHER_BLOCK_QUANTIZED] = {infer_gather_block_quantized},
    [OP_QUICK_GELU] = {infer_quick_gelu},
};
