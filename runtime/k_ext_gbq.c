/* k_ext_gbq.c - kernel family `ext_gbq`: gatherBlockQuantized (uint8 data packing 8/bits values
 * per byte, or uint4 / int4 data; blockwise scales along quantizeAxis; optional zero points;
 * int32/int64 indices; out-of-range index -> zeros), float32/float16 output, one output element per
 * invocation that dequantizes only what it gathers (shaders/ext_gather_block_quantized.comp).
 * Geometry from gbq_geometry() (lib/core/ext_ops.h). */
#include <string.h>

#include "core.h"
#include "k_ext_util.h"

typedef struct {
    uint32_t n, I, D, post, Q, inner, nB, block, bits, zp_last;
    uint32_t base_data, base_idx, base_scale, base_zp, base_y;
    uint32_t w0, w1, elem0;
} GbqPush;

enum { SPEC_WG, SPEC_KIND, SPEC_IDX64, SPEC_ZP, SPEC_COUNT };

static int gbq_check(KernelCtx *kc, const Node *n) {
    GbqGeom geo;
    if (n->n_inputs < 3 || n->n_outputs != 1 || !n->inputs[0] || !n->inputs[1] || ext_float(n, n->inputs[2]) < 0 ||
        gbq_geometry(n, &geo) < 0)
        return -1;
    DType dt = n->inputs[2]->dtype, data = n->inputs[0]->dtype, idx = n->inputs[1]->dtype;
    if (data != DT_U8 && data != DT_U4 && data != DT_I4) return kx_no_kernel(n, data);
    if (idx != DT_I32 && idx != DT_I64) return kx_no_kernel(n, idx);
    if (n->outputs[0]->dtype != dt) return kx_no_kernel(n, n->outputs[0]->dtype);
    return kcheck_shader(kc, n, "ext_gather_block_quantized", dt, dt);
}

/* Product of dims [from, to) of t (logical quantized axis). */
static uint64_t span(const KTensor *t, int from, int to, int qa, int64_t qdim) {
    uint64_t p = 1;
    for (int d = from; d < to; d++) p *= (uint64_t)(d == qa ? qdim : t->shape[d]);
    return p;
}

/* Table rows (along the gather axis) per dispatch: all of them, or as many as one binding holds when
 * the table is bigger than maxStorageBufferRange and nothing precedes the gather axis (pre == 1;
 * else the whole table is bound and binding reports what does not fit).  WEBNNC_GBQ_ROWS=N caps
 * it (tests). */
static uint64_t table_rows(const KernelCtx *kc, uint64_t pre, uint64_t D, uint64_t post, uint64_t bits) {
    const WnrtDeviceInfo *d = kc_device(kc);
    uint64_t row_bytes = (post * bits + 7) / 8, range = d->max_storage_buffer_range;
    uint64_t slack = d->min_storage_offset_alignment + 8; /* window start aligned down, end rounded to a word */
    uint64_t rows = D;
    if (pre == 1 && D * row_bytes + slack > range) rows = range > slack + row_bytes ? (range - slack) / row_bytes - 1 : 1;
    rows = (uint64_t)wnrt_env_long("WEBNNC_GBQ_ROWS", 1, 1L << 30, (long)(rows ? rows : 1));
    return rows < D ? rows : D;
}

static int gbq_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    GbqGeom geo;
    if (gbq_geometry(n, &geo) < 0) return -1;
    const KTensor *data = &in[0], *idx = &in[1], *scales = &in[2];
    bool has_zp = kx_opt(n, 3) != NULL;
    int sh = kc_find_shader(kc, n, "ext_gather_block_quantized", scales->dtype, scales->dtype);
    if (sh < 0) return -1;
    int r = data->rank, ga = geo.gather_axis, qa = geo.quant_axis;
    if (geo.quant_dim <= 0 || geo.n_blocks <= 0) {
        diag_node_error(n, "empty quantized axis");
        return -1;
    }
    uint64_t logical = span(data, 0, r, qa, geo.quant_dim);
    if (ext_fits(n, logical, "data") < 0 || ext_fits(n, out[0].numel, "output") < 0) return -1;
    GbqPush pc;
    memset(&pc, 0, sizeof pc);
    pc.n = (uint32_t)out[0].numel;
    pc.I = (uint32_t)idx->numel;
    pc.D = (uint32_t)(ga == qa ? geo.quant_dim : data->shape[ga]);
    pc.post = (uint32_t)span(data, ga + 1, r, qa, geo.quant_dim);
    pc.Q = (uint32_t)geo.quant_dim;
    pc.inner = (uint32_t)span(data, qa + 1, r, qa, geo.quant_dim);
    pc.nB = (uint32_t)geo.n_blocks;
    pc.block = (uint32_t)geo.block;
    pc.bits = (uint32_t)geo.bits;
    uint64_t pre = span(data, 0, ga, qa, geo.quant_dim);
    uint64_t want_scales = logical / geo.quant_dim * (uint64_t)geo.n_blocks;
    if (pc.post == 0 || pc.inner == 0 || pc.Q == 0 || out[0].numel != pre * pc.I * pc.post || scales->numel != want_scales) {
        diag_node_error(n, "operand sizes do not match the gather/quantization geometry");
        return -1;
    }
    if (has_zp) {
        const KTensor *zp = &in[3];
        pc.zp_last = (uint32_t)zp->shape[zp->rank - 1];
        uint64_t want_zp = data->dtype == DT_U8 ? logical / geo.quant_dim * pc.zp_last : want_scales;
        if (zp->numel != want_zp || (data->dtype == DT_U8 && (uint64_t)pc.zp_last * geo.components < (uint64_t)geo.n_blocks)) {
            diag_node_error(n, "zeroPoints do not match the scales' blocks");
            return -1;
        }
    }
    if (out[0].numel == 0) return 0;
    KBind b[5];
    uint32_t bytes;
    if (ext_bind_words(kc, n, idx, &b[1], &pc.base_idx) < 0 || ext_bind(kc, n, scales, false, &b[2], &pc.base_scale) < 0 ||
        ext_bind(kc, n, &out[0], true, &b[4], &pc.base_y) < 0)
        return -1;
    b[3] = b[2];
    if (has_zp) {
        if (ext_bind_bytes(kc, n, &in[3], &b[3], &bytes) < 0) return -1;
        pc.base_zp = bytes * (8 / (data->dtype == DT_U8 ? pc.bits : 4));
    }
    uint32_t kind = data->dtype == DT_U8 ? 0 : data->dtype == DT_U4 ? 1 : 2;
    uint32_t spec[SPEC_COUNT] = {ext_wg(kc), kind, idx->dtype == DT_I64, has_zp};
    uint64_t rows = table_rows(kc, pre, pc.D, pc.post, pc.bits), elems_per_byte = 8 / pc.bits;
    KTensor raw = *data; /* the table's bytes; the last window (or the only one) to its end */
    raw.dtype = DT_U8;
    raw.numel = dtype_storage_bytes(data->dtype, data->numel);
    for (uint64_t w0 = 0; w0 < pc.D; w0 += rows) {
        uint64_t w1 = w0 + rows < pc.D ? w0 + rows : pc.D;
        uint64_t first = w0 * pc.post / elems_per_byte, last = w1 == pc.D ? raw.numel - 1 : (w1 * pc.post - 1) / elems_per_byte;
        if (kc_bind_window(kc, n, &raw, (int64_t)first, (int64_t)last, false, &b[0], &bytes) < 0) return -1;
        pc.base_data = bytes * (uint32_t)elems_per_byte;
        pc.w0 = (uint32_t)w0, pc.w1 = (uint32_t)w1, pc.elem0 = (uint32_t)(first * elems_per_byte);
        if (ext_dispatch_elems(kc, n, sh, spec, SPEC_COUNT, &pc, sizeof pc, b, 5, out[0].numel) < 0) return -1;
    }
    return 0;
}

const KernelFamily kfam_ext_gbq = {gbq_check, gbq_record, 0};
