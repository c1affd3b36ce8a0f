/* k_reduce.h - the reduction kernel with an element-wise epilogue (k_reduce.c, shaders/reduce.comp),
 * the kernel family of plan_reduce.c's rewrites. */
#ifndef WEBNNC_K_REDUCE_H
#define WEBNNC_K_REDUCE_H

#include "kernel.h"

/* What the rewritten node (the epilogue's last node) runs: `reduce` (a reduce* node: op, axes) over
 * the rewrite's input 0, then y = r OP c (binary_op: an ew_codes.h EWB_ADD / EWB_SUB / EWB_MUL, or
 * 0: none; c = the rewrite's input 1, one element; const_first: y = c OP r) in the reduction's
 * dtype, stored as the node's output dtype (a cast integer -> integer or float -> float when it
 * differs). */
typedef struct {
    const Node *reduce;
    int binary_op;
    bool const_first;
} KReduceEpilogue;

extern const KernelFamily kfam_reduce_epilogue;
/* Whether op is one of the reduce* ops reduce.comp runs. */
bool kernel_is_reduction(OpId op);

#endif
