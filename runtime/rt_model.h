/* rt_model.h - internal state of a loaded model (plan + bindings + recordings), shared by
 * plan.c (load-time planning), bind.c (inputs, dynamic dims), record.c (command recording and
 * kernel context) and runtime.c (public API). */
#ifndef WEBNNC_RT_MODEL_H
#define WEBNNC_RT_MODEL_H

#include "kernel.h"
#include "vk_memory.h"

#define RT_MAX_RECORDINGS 4

struct WnrtContext {
    VkDev *dev;
};

typedef struct {
    int64_t *sym;                 /* symbol values the recording was made for */
    int64_t (*shapes)[WN_MAX_RANK]; /* actual shape per value id */
    VkCommandBuffer cb;
    uint64_t last_used;
    int dispatches, barriers;
} Recording;

struct WnrtModel {
    WnrtContext *ctx;
    VkDev *dev;
    Graph *g;
    const KernelFamily **fam; /* per node index (NULL for dead nodes) */
    int32_t *root;            /* per value id: value id owning the storage (views alias) */
    MemAlloc *mem;            /* per value id, valid for roots */
    MemAlloc *staging;        /* per value id: host staging of graph inputs/outputs (non-unified) */
    MemPool *const_pool, *pool, *staging_pool;
    VkFence fence;

    /* bindings of the next run */
    bool *bound;                    /* per graph input */
    int64_t (*in_shape)[WN_MAX_RANK];
    int64_t *sym;                   /* per symbol */

    Recording rec[RT_MAX_RECORDINGS];
    int n_rec, cur;
    uint64_t clock;
    WnrtStats stats;
};

/* plan.c */
int plan_model(WnrtModel *m);
const KernelFamily *kernel_family(OpId op);
/* record.c */
int record_commands(WnrtModel *m, Recording *r);
/* kernel check context (no command buffer) */
int check_node(WnrtModel *m, const Node *n);
void tensor_of(const WnrtModel *m, const Value *v, const int64_t *shape, KTensor *t);

#endif
