/* k_act.c - kernel family `act`, shared by op families: ext, fused (quickGelu of family ext,
 * silu of family fused: y = x * sigmoid(alpha x), alpha default 1.702 for quickGelu, 1 for silu),
 * float32/float16, one element per invocation (shaders/ext_act.comp). */
#include <string.h>

#include "core.h"
#include "k_ext_util.h"

typedef struct {
    uint32_t n;
    float alpha;
    uint32_t base_x, base_y;
} ActPush;

static double act_alpha(const Node *n) {
    return n->op == OP_QUICK_GELU ? node_float(n, "alpha", EXT_QUICK_GELU_ALPHA) : 1.0;
}

static int act_check(KernelCtx *kc, const Node *n) {
    if (n->n_inputs < 1 || n->n_outputs != 1 || ext_float(n, n->inputs[0]) < 0) return -1;
    DType dt = n->inputs[0]->dtype;
    if (n->outputs[0]->dtype != dt) return kx_no_kernel(n, n->outputs[0]->dtype);
    return kcheck_shader(kc, n, "ext_act", dt, dt);
}

static int act_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "ext_act", in[0].dtype, in[0].dtype);
    if (sh < 0 || ext_fits(n, in[0].numel, "input") < 0) return -1;
    if (out[0].numel != in[0].numel) {
        diag_node_error(n, "internal: output size differs from the input's");
        return -1;
    }
    ActPush pc = {.n = (uint32_t)in[0].numel, .alpha = (float)act_alpha(n)};
    KBind b[2];
    if (ext_bind(kc, n, &in[0], false, &b[0], &pc.base_x) < 0 || ext_bind(kc, n, &out[0], true, &b[1], &pc.base_y) < 0)
        return -1;
    uint32_t spec[1] = {ext_wg(kc)};
    return ext_dispatch_elems(kc, n, sh, spec, 1, &pc, sizeof pc, b, 2, in[0].numel);
}

const KernelFamily kfam_act = {act_check, act_record, 0};
