/* k_ext_norm.c - kernel family `ext_norm`: rmsNorm (normalized dims = axis..rank-1, output in the
 * scale's dtype) and skipRmsNorm (input + skip (broadcast) + bias normalized over the last dim,
 * optional second output = the sum), float32/float16, one workgroup per normalized row
 * (shaders/ext_rms_norm.comp: f32 sum of squares, subgroup + shared-memory reduction). */
#include <string.h>

#include "core.h"
#include "k_ext_norm.h"
#include "k_ext_util.h"

typedef struct {
    uint32_t rows, size;
    float eps;
    uint32_t outer_rank;
    uint32_t outer[5];
    uint32_t skip_st[5];
    uint32_t skip_inner;
    uint32_t base_x, base_skip, base_bias, base_scale, base_y, base_sum;
} RmsPush;
_Static_assert(sizeof(RmsPush) <= K_PUSH_MAX, "rms norm push constants");

enum { SPEC_WG, SPEC_SG, SPEC_SKIP, SPEC_BIAS, SPEC_SUM, SPEC_COUNT };

static int norm_check(KernelCtx *kc, const Node *n) {
    bool skip = n->op == OP_SKIP_RMS_NORM;
    int scale_slot = skip ? 2 : 1;
    if (n->n_inputs <= scale_slot || n->n_outputs < 1 || n->n_outputs > (skip ? 2 : 1) || ext_float(n, n->inputs[0]) < 0 ||
        ext_float(n, n->inputs[scale_slot]) < 0)
        return -1;
    DType a = n->inputs[0]->dtype, b = n->outputs[0]->dtype;
    for (int k = 1; k < n->n_inputs; k++)
        if (n->inputs[k] && n->inputs[k]->dtype != (k == scale_slot ? b : a)) return kx_no_kernel(n, n->inputs[k]->dtype);
    if (skip && (!n->inputs[1] || n->inputs[1]->rank > n->inputs[0]->rank)) {
        diag_node_error(n, "skip must be present with at most the input's rank");
        return -1;
    }
    return kcheck_shader(kc, n, "ext_rms_norm", a, b);
}

/* Skip broadcast strides over x's outer dims (collapsed to at most 5) and its last dim. */
static int skip_strides(const Node *n, const KTensor *x, const KTensor *skip, RmsPush *pc) {
    int r = x->rank;
    int64_t st[WN_MAX_RANK];
    kshape_broadcast_strides(r, x->shape, skip->rank, skip->shape, st);
    pc->skip_inner = (uint32_t)st[r - 1];
    int64_t shape[WN_MAX_RANK], strides[1][WN_MAX_RANK];
    for (int d = 0; d < r - 1; d++) shape[d] = x->shape[d], strides[0][d] = st[d];
    int orank = r - 1;
    if (orank > 0) orank = kshape_collapse(orank, shape, 1, strides);
    if (orank > 5) {
        diag_node_error(n, "skip broadcast needs more than 5 outer dimensions");
        return -1;
    }
    pc->outer_rank = (uint32_t)orank;
    for (int d = 0; d < orank; d++) pc->outer[d] = (uint32_t)shape[d], pc->skip_st[d] = (uint32_t)strides[0][d];
    return 0;
}

int ext_rms_norm_rows(KernelCtx *kc, const Node *n, const KTensor *x, const KTensor *skip, const KTensor *skip_bias,
                      const KTensor *scale, uint64_t size, float eps, const KTensor *y, const KTensor *sum) {
    int sh = kc_find_shader(kc, n, "ext_rms_norm", x->dtype, y->dtype);
    if (sh < 0 || ext_fits(n, x->numel, "input") < 0) return -1;
    if (size == 0 || x->numel == 0) return 0;
    if (scale->numel != size || (skip_bias && skip_bias->numel != size) || y->numel != x->numel ||
        (sum && sum->numel != x->numel)) {
        diag_node_error(n, "scale/bias must have %llu elements (the normalized size)", (unsigned long long)size);
        return -1;
    }
    RmsPush pc;
    memset(&pc, 0, sizeof pc);
    pc.rows = (uint32_t)(x->numel / size);
    pc.size = (uint32_t)size;
    pc.eps = eps;
    if (skip && skip_strides(n, x, skip, &pc) < 0) return -1;
    KBind b[6];
    if (ext_bind(kc, n, x, false, &b[0], &pc.base_x) < 0 || ext_bind(kc, n, skip ? skip : x, false, &b[1], &pc.base_skip) < 0 ||
        ext_bind(kc, n, skip_bias ? skip_bias : x, false, &b[2], &pc.base_bias) < 0 ||
        ext_bind(kc, n, scale, false, &b[3], &pc.base_scale) < 0 || ext_bind(kc, n, y, true, &b[4], &pc.base_y) < 0 ||
        ext_bind(kc, n, sum ? sum : y, true, &b[5], &pc.base_sum) < 0)
        return -1;
    uint32_t spec[SPEC_COUNT] = {ext_wg(kc), ext_sg_reduce(kc), skip != NULL, skip_bias != NULL, sum != NULL};
    return ext_dispatch_rows(kc, n, sh, spec, SPEC_COUNT, &pc, sizeof pc, b, 6, pc.rows);
}

static int norm_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    bool skip = n->op == OP_SKIP_RMS_NORM;
    const KTensor *x = &in[0];
    int axis = skip ? x->rank - 1 : (int)node_int(n, "axis", 0);
    if (axis < 0 || axis >= x->rank) {
        diag_node_error(n, "axis %d out of range", axis);
        return -1;
    }
    bool has_bias = skip && kx_opt(n, 3), has_sum = skip && n->n_outputs > 1;
    return ext_rms_norm_rows(kc, n, x, skip ? &in[1] : NULL, has_bias ? &in[3] : NULL, &in[skip ? 2 : 1],
                             kshape_numel(x->rank - axis, x->shape + axis), (float)node_float(n, "epsilon", EXT_RMS_NORM_EPSILON),
                             &out[0], has_sum ? &out[1] : NULL);
}

const KernelFamily kfam_ext_norm = {norm_check, norm_record, 0};
