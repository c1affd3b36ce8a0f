/* k_quant.c - kernel family `quant`: quantizeLinear (float32/float16 -> int4, uint4, int8, uint8,
 * int32, uint32) and dequantizeLinear (the reverse) with blockwise broadcasting of scale and
 * zeroPoint (a lower scale rank means leading dims of 1).  4-bit tensors are packed two per byte,
 * low nibble first, as the IR and the runtime store them.  Shader quant_linear.comp. */
#include <string.h>

#include "kx_util.h"

typedef struct {
    uint32_t n, rank, threads, pad0;
    uint32_t shape[6];
    uint32_t block[6];
    int32_t sst[6];
    int32_t base_x, base_s, base_z, base_y;
} QuantPush;
_Static_assert(sizeof(QuantPush) <= K_PUSH_MAX, "quant push constants");

static bool is4(DType dt) { return dt == DT_I4 || dt == DT_U4; }

static int quant_check(KernelCtx *kc, const Node *n) {
    if (kx_operands(n, 3, 3, 1) < 0) return -1;
    DType a = n->inputs[0]->dtype, b = n->outputs[0]->dtype;
    if (n->inputs[0]->rank > 6) {
        diag_node_error(n, "quantization kernels handle rank <= 6");
        return -1;
    }
    return kcheck_shader(kc, n, "quant_linear", a, b);
}

static int bind_q(KernelCtx *kc, const Node *n, const KTensor *t, bool write, KBind *b, int32_t *base) {
    if (is4(t->dtype)) {
        *base = 0;
        return kx_bind_packed4(kc, n, t, write, b);
    }
    return kx_bind(kc, n, t, write, b, base);
}

static int quant_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "quant_linear", in[0].dtype, out[0].dtype);
    if (sh < 0) return -1;
    const KTensor *x = &in[0], *s = &in[1], *z = &in[2];
    if (x->numel > INT32_MAX || s->rank > x->rank || z->rank != s->rank) {
        diag_node_error(n, "scale/zeroPoint do not match the input (or the input is too large)");
        return -1;
    }
    QuantPush pc;
    memset(&pc, 0, sizeof pc);
    pc.n = (uint32_t)x->numel;
    pc.rank = (uint32_t)x->rank;
    bool out4 = is4(out[0].dtype);
    pc.threads = out4 ? (pc.n + 7) / 8 : pc.n;
    int64_t sst[WN_MAX_RANK];
    kshape_strides(s->rank, s->shape, sst);
    int lead = x->rank - s->rank;
    for (int d = 0; d < x->rank; d++) {
        int64_t sd = d < lead ? 1 : s->shape[d - lead];
        if (d >= lead && z->shape[d - lead] != sd) {
            diag_node_error(n, "zeroPoint must have the shape of scale");
            return -1;
        }
        if (sd <= 0 || x->shape[d] % sd) {
            diag_node_error(n, "scale dimension %d (%lld) does not divide the input's (%lld)", d, (long long)sd,
                            (long long)x->shape[d]);
            return -1;
        }
        pc.shape[d] = (uint32_t)x->shape[d];
        pc.block[d] = (uint32_t)(x->shape[d] / sd);
        pc.sst[d] = d < lead ? 0 : (int32_t)sst[d - lead];
    }
    KBind b[4];
    if (bind_q(kc, n, x, false, &b[0], &pc.base_x) < 0 || bind_q(kc, n, s, false, &b[1], &pc.base_s) < 0 ||
        bind_q(kc, n, z, false, &b[2], &pc.base_z) < 0 || bind_q(kc, n, &out[0], true, &b[3], &pc.base_y) < 0)
        return -1;
    uint32_t spec[1] = {KX_WG};
    return kc_dispatch_1d(kc, n, sh, spec, 1, &pc, sizeof pc, b, 4, (pc.threads + KX_WG - 1) / KX_WG);
}

const KernelFamily kfam_quant = {quant_check, quant_record, 0};
