/* decompose_gather_block_quantized.c - pass decompose_gather_block_quantized: replaces every
 * gatherBlockQuantized (com.microsoft GatherBlockQuantized) by gathering the quantized rows, their
 * scales and zero points, then dequantizing only what was gathered:
 *   data: uint8 holding packed 4-bit values -> uint4 view of the same bytes (logical shape);
 *         packed 2-bit -> unpacked uint8; uint8 (bits 8), int4, uint4 -> as is
 *   zeroPoints: unpacked like data; absent -> 2^(bits-1) for uint8 data, 0 for int4/uint4 data
 *   q = gather(data), s = gather(scales), z = gather(zeroPoints) along gatherAxis
 *   out = dequantizeLinear(q, s, z) (blockwise along quantizeAxis); when the quantized axis is not a
 *         multiple of blockSize, s and z are first repeated blockSize times (reshape, expand,
 *         reshape) and sliced to the axis size.
 * Out-of-range indices: WebNN gather clamps them where ORT outputs zeros (docs/extension-ops.md).
 * Emits WebNN spec ops: gather, dequantizeLinear, reshape, expand, slice. */
#include "decompose.h"
#include "core.h"
#include "pass.h"

/* Repeats the blocks of p (size nb on `axis`) block times and slices to `size` elements. */
static Value *repeat_blocks(Dec *d, Value *p, int axis, int64_t block, int64_t size) {
    if (!p) return NULL;
    Dim shape[WN_MAX_RANK + 1], wide[WN_MAX_RANK + 1], flat[WN_MAX_RANK];
    int r = 0;
    for (int i = 0; i < p->rank; i++) {
        shape[r] = wide[r] = flat[i] = p->shape[i];
        r++;
        if (i == axis) {
            shape[r] = dim_static(1);
            wide[r++] = dim_static(block);
            flat[i] = dim_static(p->shape[i].v * block);
        }
    }
    if (r > WN_MAX_RANK) return pass_dc_fail(d, "rank too large to repeat blocks"), NULL;
    Value *v = pass_dc_reshape(d, pass_dc_expand(d, pass_dc_reshape(d, p, r, shape), r, wide), p->rank, flat);
    return pass_dc_slice(d, v, axis, 0, size);
}

static int build(Dec *d) {
    GbqGeom geo;
    if (gbq_geometry(d->ext, &geo) < 0) return -1;
    Value *data = pass_dc_in(d, 0), *idx = pass_dc_in(d, 1), *scales = pass_dc_in(d, 2), *zp = pass_dc_in(d, 3);
    int64_t lshape[WN_MAX_RANK], sshape[WN_MAX_RANK], total = 1;
    for (int i = 0; i < data->rank; i++) {
        if (!dim_is_static(data->shape[i]) || !dim_is_static(scales->shape[i]))
            return pass_dc_fail(d, "data and scales need static shapes");
        lshape[i] = i == geo.quant_axis ? geo.quant_dim : data->shape[i].v;
        sshape[i] = scales->shape[i].v;
        total *= lshape[i];
    }
    Value *q = data;
    DType qt = data->dtype;
    if (data->dtype == DT_U8 && geo.bits == 4) qt = DT_U4, q = pass_dc_view(d, data, DT_U4, data->rank, lshape);
    if (data->dtype == DT_U8 && geo.bits == 2) q = pass_dc_unpack(d, data, 2, DT_U8, data->rank, lshape, total, total);
    Value *z;
    if (zp && data->dtype == DT_U8) {
        int64_t per = geo.components, zlast = zp->shape[zp->rank - 1].v;
        z = pass_dc_unpack(d, zp, geo.bits, qt, scales->rank, sshape, geo.n_blocks, zlast * per);
    } else {
        z = zp ? zp : pass_dc_filled(d, qt, scales->rank, sshape, data->dtype == DT_U8 ? (double)(1 << (geo.bits - 1)) : 0);
    }
    int ga = geo.gather_axis, qa = geo.quant_axis < ga ? geo.quant_axis : geo.quant_axis + idx->rank - 1;
    Value *gq = pass_dc_gather(d, q, idx, ga), *gs = pass_dc_gather(d, scales, idx, ga), *gz = pass_dc_gather(d, z, idx, ga);
    if (geo.quant_dim % geo.block) {
        gs = repeat_blocks(d, gs, qa, geo.block, geo.quant_dim);
        gz = repeat_blocks(d, gz, qa, geo.block, geo.quant_dim);
    }
    return pass_dc_result(d, 0, pass_dc_dequantize(d, gq, gs, gz));
}

int pass_decompose_gather_block_quantized(Graph *g, const PassOptions *opt) {
    (void)opt;
    return pass_decompose_all(g, OP_GATHER_BLOCK_QUANTIZED, build);
}
