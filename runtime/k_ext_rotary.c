/* k_ext_rotary.c - kernel family `ext_rotary`: rotaryEmbedding (3-D [B, S, N*H] or 4-D
 * [B, N, S, H] input, half-split or interleaved, partial rotary, positionIds [B, S] / start offset
 * [1] / absent with per-token caches), float32/float16, one element per invocation
 * (shaders/ext_rotary.comp).  Geometry from rotary_geometry() (lib/core/ext_ops.h). */
#include <string.h>

#include "core.h"
#include "k_ext_util.h"

typedef struct {
    uint32_t n, B, S, N, H, rot, cache_rows;
    uint32_t base_x, base_pos, base_cos, base_sin, base_y;
} RotaryPush;

enum { SPEC_WG, SPEC_FOUR_D, SPEC_INTERLEAVED, SPEC_POS_FORM, SPEC_POS64, SPEC_COUNT };

static int rotary_check(KernelCtx *kc, const Node *n) {
    RotaryGeom geo;
    if (n->n_inputs < 4 || n->n_outputs != 1 || ext_float(n, n->inputs[0]) < 0 || rotary_geometry(n, &geo) < 0)
        return -1;
    DType dt = n->inputs[0]->dtype;
    for (int k = 2; k < 4; k++)
        if (!n->inputs[k] || n->inputs[k]->dtype != dt) return kx_no_kernel(n, n->inputs[k] ? n->inputs[k]->dtype : dt);
    const Value *pos = n->inputs[1];
    if (pos && pos->dtype != DT_I32 && pos->dtype != DT_I64) return kx_no_kernel(n, pos->dtype);
    return kcheck_shader(kc, n, "ext_rotary", dt, dt);
}

static int rotary_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    RotaryGeom geo;
    if (rotary_geometry(n, &geo) < 0) return -1;
    const KTensor *x = &in[0];
    int sh = kc_find_shader(kc, n, "ext_rotary", x->dtype, x->dtype);
    if (sh < 0 || ext_fits(n, x->numel, "input") < 0) return -1;
    if (x->numel == 0) return 0;
    RotaryPush pc;
    memset(&pc, 0, sizeof pc);
    pc.n = (uint32_t)x->numel;
    pc.B = (uint32_t)x->shape[0];
    pc.S = (uint32_t)x->shape[geo.four_d ? 2 : 1];
    pc.N = (uint32_t)geo.heads;
    pc.H = (uint32_t)geo.head_size;
    pc.rot = (uint32_t)geo.rot;
    pc.cache_rows = (uint32_t)in[2].shape[0];
    uint64_t want_cache = geo.pos_form == 2 ? (uint64_t)pc.B * pc.S * (uint64_t)geo.half : (uint64_t)in[2].shape[0] * (uint64_t)geo.half;
    uint64_t want_pos = geo.pos_form == 1 ? (uint64_t)pc.B * pc.S : 1;
    if (out[0].numel != x->numel || in[2].numel != want_cache || in[3].numel != want_cache || in[2].shape[0] < 1 ||
        (geo.pos_form != 2 && in[1].numel != want_pos) || x->numel != (uint64_t)pc.B * pc.S * pc.N * pc.H) {
        diag_node_error(n, "operand sizes do not match the rotary geometry");
        return -1;
    }
    KBind b[5];
    if (ext_bind(kc, n, x, false, &b[0], &pc.base_x) < 0 || ext_bind(kc, n, &in[2], false, &b[2], &pc.base_cos) < 0 ||
        ext_bind(kc, n, &in[3], false, &b[3], &pc.base_sin) < 0 || ext_bind(kc, n, &out[0], true, &b[4], &pc.base_y) < 0)
        return -1;
    if (geo.pos_form != 2) {
        if (ext_bind_words(kc, n, &in[1], &b[1], &pc.base_pos) < 0) return -1;
    } else {
        b[1] = b[2]; /* never read */
    }
    uint32_t spec[SPEC_COUNT] = {ext_wg(kc), geo.four_d, node_bool(n, "interleaved", false), (uint32_t)geo.pos_form,
                                 geo.pos_form != 2 && in[1].dtype == DT_I64};
    return ext_dispatch_elems(kc, n, sh, spec, SPEC_COUNT, &pc, sizeof pc, b, 5, x->numel);
}

const KernelFamily kfam_ext_rotary = {rotary_check, rotary_record, 0};
