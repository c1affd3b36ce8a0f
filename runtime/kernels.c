/* kernels.c - the kernel table built from kernels.def (OpId -> KernelFamily, or the reason the
 * runtime has none; kernel_support() answers the op coverage test), and the view family
 * (reshape, identity: the output aliases the input's storage; nothing is recorded); the view
 * family is shared by op families: eltwise, shape. */
#include "kernel.h"
#include "kfamilies.h"
#include "rt_model.h"

static int view_check(KernelCtx *kc, const Node *n) {
    (void)kc;
    if (n->n_inputs < 1 || !n->inputs[0] || n->n_outputs != 1) {
        diag_node_error(n, "view op needs one input and one output");
        return -1;
    }
    if (dtype_storage_bytes(n->inputs[0]->dtype, 1) != dtype_storage_bytes(n->outputs[0]->dtype, 1)) {
        diag_node_error(n, "view changes the element size");
        return -1;
    }
    return 0;
}
const KernelFamily kfam_view = {view_check, NULL, KF_VIEW};

/* kernels.def as an op-indexed table of {family, unsupported reason}. */
static const struct {
    const KernelFamily *fam;
    const char *unsupported;
} kernel_table[OP_COUNT] = {
#define KERNEL(ID, FAMILY) [OP_##ID] = {&kfam_##FAMILY, NULL},
#define KERNEL_UNSUPPORTED(ID, REASON) [OP_##ID] = {NULL, REASON},
#include "kernels.def"
#undef KERNEL
#undef KERNEL_UNSUPPORTED
};

const KernelFamily *kernel_family(OpId op) { return (unsigned)op < OP_COUNT ? kernel_table[op].fam : NULL; }

OpSupport kernel_support(OpId op, const char **reason) {
    if ((unsigned)op >= OP_COUNT) return OPSUP_MISSING;
    if (kernel_table[op].fam) return OPSUP_HANDLED;
    const char *why = kernel_table[op].unsupported;
    if (!why || !*why) return OPSUP_MISSING;
    if (reason) *reason = why;
    return OPSUP_UNSUPPORTED;
}
