/* decompose_rotary.c - pass decompose_rotary: replaces every rotaryEmbedding (com.microsoft
 * RotaryEmbedding, ai.onnx RotaryEmbedding-23) by
 *   c, s = gather(cosCache, positions), gather(sinCache, positions)      [B|1, S, rot/2]
 *          positions = positionIds [B, S]; or offset + (0..S-1) for positionIds [1] (a constant range
 *          when S is static, else cumulativeSum of ones); or the caches themselves when absent
 *   x viewed as [B, S, N, H] (3-D input) or [B, N, S, H] (4-D), c and s reshaped to broadcast
 *   half-split:  x1, x2 = x[..., :rot/2], x[..., rot/2:rot]
 *   interleaved: x[..., :rot] reshaped [..., rot/2, 2], x1, x2 = [..., 0:1], [..., 1:2]
 *   y1 = x1*c - x2*s,  y2 = x2*c + x1*s,  y = concat(y1, y2) (reshaped back), then concat the
 *   untouched channels x[..., rot:] (partial rotary) and reshape to the input shape.
 * Emits WebNN spec ops: gather, reshape, slice, mul, sub, add, concat (expand, cumulativeSum, cast,
 * add for the offset form with a symbolic sequence length). */
#include "decompose.h"
#include "core.h"
#include "pass.h"

/* Positions [S] = offset + (0..S-1) for positionIds of shape [1]. */
static Value *offset_positions(Dec *d, Value *offset, Dim seq) {
    if (dim_is_static(seq)) {
        if (seq.v > INT32_MAX) return pass_dc_fail(d, "sequence too long"), NULL;
        int64_t *range = graph_alloc(d->g, sizeof *range * (size_t)seq.v);
        for (int64_t i = 0; i < seq.v; i++) range[i] = i;
        Value *r = pass_dc_const(d, DT_I64, 1, &seq.v, range, sizeof *range * (uint64_t)seq.v);
        return pass_dc_binary(d, OP_ADD, r, pass_dc_cast(d, offset, DT_I64));
    }
    Value *ones = pass_dc_expand(d, pass_dc_scalar(d, DT_I32, 1), 1, &seq);
    Node *n = graph_new_node(d->g, OP_CUMULATIVE_SUM, d->ext->origin);
    if (!ones) return NULL;
    node_add_input(d->g, n, ones);
    node_set_uint(d->g, n, "axis", 0);
    node_set_bool(d->g, n, "exclusive", true);
    return pass_dc_binary(d, OP_ADD, graph_finish(d->g, n), pass_dc_cast(d, offset, DT_I32));
}

/* The cos or sin rows for every (b, s), shaped to broadcast against the 4-D view (plus a trailing
 * 1 when interleaved). */
static Value *cache_rows(Dec *d, const RotaryGeom *geo, Value *cache, Value *positions, Dim s, bool inter) {
    Value *rows = geo->pos_form == 2 ? cache : pass_dc_gather(d, cache, positions, 0);
    if (!rows) return NULL;
    Dim bb = rows->rank == 3 ? rows->shape[0] : dim_static(1), one = dim_static(1), h = dim_static(geo->half);
    Dim shape[5] = {bb, geo->four_d ? one : s, geo->four_d ? s : one, h, one};
    return pass_dc_reshape(d, rows, inter ? 5 : 4, shape);
}

static Value *rotate(Dec *d, Value *x1, Value *x2, Value *c, Value *s, int axis) {
    Value *y1 = pass_dc_binary(d, OP_SUB, pass_dc_binary(d, OP_MUL, x1, c), pass_dc_binary(d, OP_MUL, x2, s));
    Value *y2 = pass_dc_binary(d, OP_ADD, pass_dc_binary(d, OP_MUL, x2, c), pass_dc_binary(d, OP_MUL, x1, s));
    return pass_dc_concat(d, 2, (Value *[]){y1, y2}, axis);
}

static int build(Dec *d) {
    RotaryGeom geo;
    if (rotary_geometry(d->ext, &geo) < 0) return -1;
    Value *x = pass_dc_in(d, 0), *pos = pass_dc_in(d, 1);
    bool inter = node_bool(d->ext, "interleaved", false);
    Dim b = x->shape[0], s = x->shape[geo.four_d ? 2 : 1];
    Dim v4[4] = {b, s, dim_static(geo.heads), dim_static(geo.head_size)};
    Value *x4 = geo.four_d ? x : pass_dc_reshape(d, x, 4, v4);
    if (geo.pos_form == 0) pos = offset_positions(d, pos, s);
    Value *c = cache_rows(d, &geo, pass_dc_in(d, 2), pos, s, inter), *sn = cache_rows(d, &geo, pass_dc_in(d, 3), pos, s, inter);
    Value *xr = geo.rot < geo.head_size ? pass_dc_slice_last(d, x4, 0, geo.rot) : x4;
    Value *yr;
    if (!xr) return -1;
    if (inter) {
        Dim v5[5] = {xr->shape[0], xr->shape[1], xr->shape[2], dim_static(geo.half), dim_static(2)};
        Value *x5 = pass_dc_reshape(d, xr, 5, v5);
        Value *y5 = rotate(d, pass_dc_slice_last(d, x5, 0, 1), pass_dc_slice_last(d, x5, 1, 1), c, sn, 4);
        yr = pass_dc_reshape(d, y5, 4, xr->shape);
    } else {
        yr = rotate(d, pass_dc_slice_last(d, xr, 0, geo.half), pass_dc_slice_last(d, xr, geo.half, geo.half), c, sn, 3);
    }
    if (geo.rot < geo.head_size)
        yr = pass_dc_concat(d, 2, (Value *[]){yr, pass_dc_slice_last(d, x4, geo.rot, geo.head_size - geo.rot)}, 3);
    return pass_dc_result(d, 0, geo.four_d ? yr : pass_dc_reshape(d, yr, 3, x->shape));
}

int pass_decompose_rotary(Graph *g, const PassOptions *opt) {
    (void)opt;
    return pass_decompose_all(g, OP_ROTARY_EMBEDDING, build);
}
