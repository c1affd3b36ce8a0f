/* decompose_matmul_nbits.c - pass decompose_matmul_nbits: replaces every matmulNBits (com.microsoft
 * MatMulNBits) by a blockwise dequantization of the constant weight followed by a matmul:
 *   b  uint8 [N, kBlocks, blob] -> uint4 view (bits 4, same bytes) or uint8 [N, kBlocks, blockSize]
 *      (bits 8 as is; bits 2 unpacked to uint8 values 0..3)
 *   w  = dequantizeLinear(b, scales [N, kBlocks, 1], zeroPoints [N, kBlocks, 1])   (integer zero
 *        points: unpacked from ORT's packed rows, default 2^(bits-1))
 *      or (cast(b) - zeroPoints) * scales                                           (float zero points)
 *   -> reshape [N, kBlocks*blockSize] -> slice [N, K] (when K % blockSize != 0) -> transpose [K, N]
 *   -> matmul(a, w) (+ bias).  a of rank 1 is reshaped to [1, K] and back.
 * Emits WebNN spec ops: dequantizeLinear (or cast, sub, mul), reshape, slice, transpose, matmul, add. */
#include "decompose.h"
#include "core.h"
#include "pass.h"

/* The weights as [N, kBlocks, blockSize] of the float dtype dt. */
static Value *dequantized(Dec *d, const NBitsGeom *geo, DType dt) {
    Value *b = pass_dc_in(d, 1), *scales = pass_dc_in(d, 2), *zp = pass_dc_in(d, 3);
    int64_t shape[3] = {geo->n, geo->k_blocks, geo->block}, pshape[3] = {geo->n, geo->k_blocks, 1};
    int64_t total = geo->n * geo->k_blocks * geo->block, per = 8 / geo->bits;
    bool float_zp = zp && zp->dtype != DT_U8;
    Value *q;
    if (geo->bits == 4 && !float_zp) q = pass_dc_view(d, b, DT_U4, 3, shape);
    else if (geo->bits == 8) q = pass_dc_view(d, b, DT_U8, 3, shape);
    else q = pass_dc_unpack(d, b, geo->bits, DT_U8, 3, shape, total, total);
    Dim p3[3] = {dim_static(geo->n), dim_static(geo->k_blocks), dim_static(1)};
    Value *s = pass_dc_reshape(d, scales, 3, p3);
    if (float_zp) {
        Value *z = pass_dc_reshape(d, zp, 3, p3);
        return pass_dc_binary(d, OP_MUL, pass_dc_binary(d, OP_SUB, pass_dc_cast(d, q, dt), z), s);
    }
    Value *z = zp ? pass_dc_unpack(d, zp, geo->bits, q ? q->dtype : DT_U8, 3, pshape, geo->k_blocks, geo->zp_row_bytes * per)
                  : pass_dc_filled(d, q ? q->dtype : DT_U8, 3, pshape, (double)(1 << (geo->bits - 1)));
    return pass_dc_dequantize(d, q, s, z);
}

static int build(Dec *d) {
    NBitsGeom geo;
    if (nbits_geometry(d->ext, &geo) < 0) return -1;
    Value *a = pass_dc_in(d, 0), *bias = pass_dc_in(d, 4);
    if (!(pass_dc_in(d, 1)->flags & VF_CONST)) return pass_dc_fail(d, "the quantized weight b must be a constant");
    Value *w = dequantized(d, &geo, a->dtype);
    Dim flat[2] = {dim_static(geo.n), dim_static(geo.k_blocks * geo.block)};
    w = pass_dc_reshape(d, w, 2, flat);
    if (geo.k_blocks * geo.block != geo.k) w = pass_dc_slice_last(d, w, 0, geo.k);
    w = pass_dc_transpose(d, w, 2, (const int64_t[]){1, 0});
    Value *x = a;
    if (a->rank == 1) x = pass_dc_reshape(d, a, 2, (const Dim[]){dim_static(1), dim_static(geo.k)});
    Value *y = pass_dc_binary(d, OP_MATMUL, x, w);
    if (a->rank == 1) y = pass_dc_reshape(d, y, 1, (const Dim[]){dim_static(geo.n)});
    if (bias) y = pass_dc_binary(d, OP_ADD, y, bias);
    return pass_dc_result(d, 0, y);
}

int pass_decompose_matmul_nbits(Graph *g, const PassOptions *opt) {
    (void)opt;
    return pass_decompose_all(g, OP_MATMUL_NBITS, build);
}
