/* rt_model.h - internal state of a loaded model (plan + bindings + recordings), shared by
 * plan.c (load-time planning), bind.c (inputs, dynamic dims), record.c (command recording and
 * kernel context) and runtime.c (public API). */
#ifndef WEBNNC_RT_MODEL_H
#define WEBNNC_RT_MODEL_H

#include "kernel.h"
#include "core.h"
#include "replay.h"
#include "vk_memory.h"

#define RT_MAX_RECORDINGS 4
/* A new recording is made in command buffers of RT_PIECE_DISPATCHES dispatches (at most
 * RT_MAX_PIECES), each submitted as soon as it is recorded, so that the GPU runs the first
 * dispatches while the host records the rest (H100, 299 dispatches of a 512-token prefill: 3 ms of
 * recording, which the time to first token paid in full).  Replays submit the pieces together.
 * One piece under the profiler or the timestamps (their queries are per command buffer), or with
 * WEBNNC_RECORD_PIECES=0. */
#define RT_PIECE_DISPATCHES 32
#define RT_MAX_PIECES 16

struct WnrtContext {
    VkDev *dev;
};

typedef struct {
    int64_t *sym;                 /* symbol values the recording was made for */
    int64_t (*shapes)[WN_MAX_RANK]; /* actual shape per value id */
    VkCommandBuffer cb[RT_MAX_PIECES]; /* its pieces, in submission order */
    int n_cb;
    int submitted;                     /* pieces the recording itself submitted (its first run) */
    uint64_t last_used;
    int dispatches, barriers;
    int io_dispatches;   /* of dispatches, graph input/output copies */
    ReplayTrace trace;   /* its dispatches; args as last written into params (replay.h) */
    ReplaySlots params;  /* parameter + indirect-argument slots (kept when the slot is re-recorded) */
} Recording;

/* A plan-level rewrite (plan_matvec.c, plan_reduce.c, plan_pick_row.c, plan_residual.c,
 * plan_oproj.c): node i runs `fam` on `inputs` (instead of kernel_family(op) on its own operands)
 * with family parameters `params` (kc_node_params).  An input may be written by the family (a value
 * of a later node that the rewritten node produces in its place: plan_oproj.c); it then gets its
 * storage where it is first touched. */
#define PLAN_REWRITE_MAX_INPUTS (WN_MAX_INPUT_SLOTS + 8)
typedef struct {
    const KernelFamily *fam;
    int n_inputs;
    const Value *inputs[PLAN_REWRITE_MAX_INPUTS];
    const void *params;
    const char *label; /* wnrt_node_rewrite_label (NULL: none) */
} PlanRewrite;

/* Storage of one kind of plan rewrite (plan_matvec.c, plan_reduce.c, plan_pick_row.c,
 * plan_residual.c): per node a PlanRewrite and its parameters, param_size bytes each; allocated on
 * first use (plan_rewrite_node). */
typedef struct {
    PlanRewrite *rw;
    unsigned char *params;
    size_t param_size;
} PlanRewriteStore;

/* A KV-cache binding of the loaded graph (rt_kv.c). */
typedef struct {
    int in, out;  /* graph input index of the past, graph output index of the present */
    bool aliased; /* the present is written in place into the past's storage */
} RtKv;

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
    /* scratch storage kernels share between their own dispatches (kc_scratch_*): the largest
     * reservation of any node's check, allocated by plan_model */
    uint64_t scratch_bytes;
    MemAlloc scratch;
    uint64_t counter_words; /* zeroed counters (kc_counters_*) */
    MemAlloc counters;

    /* bindings of the next run */
    bool *bound;                    /* per graph input */
    int64_t (*in_shape)[WN_MAX_RANK];
    int64_t *sym;                   /* per symbol */

    /* plan rewrites (plan_matvec.c, plan_reduce.c, plan_pick_row.c, plan_oproj.c, plan_residual.c; all NULL when
     * nothing was rewritten) */
    PlanRewrite **rewrite;    /* per node index */
    bool *absorbed;           /* per node index: folded into a rewritten node; not run */
    int *absorbed_into;       /* per node index: that rewritten node's index (-1: none) */
    const void **const_data;  /* per value id: re-laid-out constant bytes uploaded instead of data */
    uint64_t *const_bytes;    /* per value id: the byte size of const_data when it differs from the value's (0: the same) */
    struct FusePlan *fuse;    /* re-laid-out constants (plan_matvec.c) */
    PlanRewriteStore matvec_plan; /* the rewrites of plan_matvec.c */
    PlanRewriteStore reduce_plan; /* ... (plan_reduce.c) */
    PlanRewriteStore pick_plan;   /* ... (plan_pick_row.c) */
    PlanRewriteStore residual_plan; /* ... (plan_residual.c) */
    PlanRewriteStore oproj_plan;    /* ... (plan_oproj.c) */

    /* GPU timestamps around the node dispatches of every run (timing.c, wnrt_set_timing) */
    VkQueryPool timestamps;
    /* per-dispatch GPU timestamps and host phases (profile.c, wnrt_profile_enable; NULL: off) */
    struct Profile *prof;

    /* KV caches (rt_kv.c) */
    RtKv *kv;
    int n_kv;
    uint8_t *kv_role; /* per value id: 1 past, 2 present of a binding, 0 other */
    bool kv_resident; /* wnrt_kv_resident: caches stay on the device, copy_io skips them */

    /* the device token loop (loop.c, wnrt_loop_*; NULL until configured) */
    struct TokenLoop *loop;

    /* replay.h: one recording per dispatch plan (WEBNNC_REPLAY=0: one per bound size set) */
    bool replay;
    int pipelines_ready;                  /* the device's pipeline count after load / wnrt_warm */
    MemPool *param_pool, *param_host_pool; /* ReplaySlots gpu / host */
    ReplayTrace now;                      /* capture of the coming run */
    int64_t (*now_shapes)[WN_MAX_RANK];   /* its shapes */

    Recording rec[RT_MAX_RECORDINGS];
    int n_rec, cur;
    uint64_t clock;
    uint64_t done_ns; /* monotonic time the last wait for a submission returned (0: none yet) */
    WnrtStats stats;
};

/* plan.c */
int plan_model(WnrtModel *m);
/* plan_matvec.c: fills rewrite / absorbed / const_data before planning; frees its own storage */
int plan_matvec_rewrite(WnrtModel *m);
void plan_matvec_free(WnrtModel *m);
/* plan.c: allocates rewrite / absorbed / absorbed_into / const_data / const_bytes where they are not yet (-1:
 * out of memory) */
int plan_rewrite_arrays(WnrtModel *m);
void plan_rewrite_arrays_free(WnrtModel *m);
/* plan.c: whether node n is live and neither rewritten nor absorbed yet (a rewrite may take it) */
bool plan_node_open(const WnrtModel *m, const Node *n);
/* plan.c: node n's work is done by the rewritten node `into` (absorbed, absorbed_into) */
void plan_absorb(WnrtModel *m, const Node *n, const Node *into);
/* plan.c: node `node` runs rw with a copy of params (param_size bytes; rw->params set to the copy),
 * its storage in s.  0, or -1 out of memory (diagnostic). */
int plan_rewrite_node(WnrtModel *m, PlanRewriteStore *s, int node, const PlanRewrite *rw, const void *params,
                      size_t param_size);
void plan_rewrite_store_free(PlanRewriteStore *s);
/* plan.c: consumers per value id among live nodes, graph outputs counting as one (malloc'd; NULL:
 * out of memory, with a diagnostic) */
int *plan_count_uses(const Graph *g);
/* plan_reduce.c: reductions with an element-wise epilogue (after plan_matvec_rewrite) */
int plan_reduce_rewrite(WnrtModel *m);
/* plan_pick_row.c: one-row gathers read in place by matmulNBits */
int plan_pick_row_rewrite(WnrtModel *m);
/* plan.c: the skeleton of those rewrites: visit(m, n, uses) for every node n still open
 * (plan_node_open, checked before each visit), last to first when `reverse`, with plan_count_uses'
 * counts; stops at the first negative return (-1 then).  WEBNNC_NO_FUSE=1: no visit. */
int plan_visit_open_nodes(WnrtModel *m, bool reverse, int (*visit)(WnrtModel *m, const Node *n, const int *uses));
/* plan_residual.c: skip sums of normalized projections added by the matmulNBits before them */
int plan_residual_rewrite(WnrtModel *m);
/* ... its parts: the matmulNBits whose output projection n (qkvProjection / gatedMlp) reads as input
 * `*slot` (FP_INPUT or FP_SKIP) and that can add the other operand (NULL: none; no test of whether it
 * pays); the two rewrites, the matmulNBits' with family prod_fam, stored in `store` with params. */
const Node *plan_residual_producer(const WnrtModel *m, const Node *n, const int *uses, int *slot);
int plan_residual_pair(WnrtModel *m, PlanRewriteStore *store, const Node *n, const Node *p, int slot,
                       const KernelFamily *prod_fam, const void *params, size_t param_size);
/* plan_oproj.c: decode attention that also takes the output projection after it and its skip sum
 * (before plan_residual_rewrite) */
int plan_oproj_rewrite(WnrtModel *m);
/* rt_kv.c: aliases each present onto its past where it is written in place (after the views are
 * known, before liveness); frees; whether copy_io skips v (a resident cache) */
int wnrt_kv_plan(WnrtModel *m);
void wnrt_kv_free(WnrtModel *m);
bool wnrt_kv_skips_io(const WnrtModel *m, const Value *v);
/* timing.c: destroys the timestamp pool; valid timestamp bits of the device's queue (0: none) */
void wnrt_timing_free(WnrtModel *m);
/* loop.c: frees; the pick that ends every run once the loop is configured (record.c; nothing
 * otherwise); notes a finished run's pick (runtime.c); whether graph input `input` is one the
 * picks write in device storage (the loop's steps do not copy it from staging: replay.c) */
void wnrt_loop_free(WnrtModel *m);
int wnrt_loop_pick(KernelCtx *kc, WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK]);
void wnrt_loop_after_run(WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK]);
bool wnrt_loop_writes_input(const WnrtModel *m, int input);
uint32_t wnrt_timing_bits(const VkDev *d);
/* Operands node n runs with (its rewrite's, else its own); returns the count. */
static inline int plan_node_inputs(const WnrtModel *m, const Node *n, const Value *const **ins) {
    const PlanRewrite *rw = m->rewrite ? m->rewrite[n->index] : NULL;
    if (rw) {
        *ins = rw->inputs;
        return rw->n_inputs;
    }
    *ins = (const Value *const *)n->inputs;
    return n->n_inputs;
}
const KernelFamily *kernel_family(OpId op);
/* Whether kernels.def has a kernel for op, marks it unsupported (*reason) or misses it. */
OpSupport kernel_support(OpId op, const char **reason);
/* k_eltwise.c: whether an op of the unary/binary kernel families has its shader op code
 * (OPSUP_NOT_APPLICABLE for ops of other families). */
OpSupport kernel_eltwise_code_support(OpId op, const char **reason);
/* k_eltwise.c: the binary shader's op code of op (ew_codes.h EWB_*), or 0 */
int kernel_binary_code(OpId op);
/* record.c: records r's command buffers (its pieces; each but the last is submitted once recorded,
 * *submitted of them on return, also on failure: wait for the queue before freeing them). */
int wnrt_record_commands(WnrtModel *m, Recording *r, int *submitted);
/* The dispatches of a run with these shapes, without a command buffer (replay.h). */
int wnrt_record_capture(WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK], ReplayTrace *t);
/* The device token loop's recording (loop.c): begin (cb VK_NULL_HANDLE: capture only; dispatches
 * are appended to t, their slots in params; the dispatches of slots i < n_push_slots with
 * push_slots[i] read their parameters from push constants recorded in cb where their shader's
 * block fits, vk_spirv_push.h, and push_slots[i] is cleared where it does not), one
 * step's input copies and nodes (no output copies), end (frees kc; a barrier that makes shader
 * writes visible to the host; *pushed: the dispatches recorded with pushed parameters, those of
 * shaders whose block fits the layout's push constants, vk_pipeset_push_fits). */
KernelCtx *wnrt_record_loop_begin(WnrtModel *m, VkCommandBuffer cb, const ReplaySlots *params, ReplayTrace *t,
                                  bool *push_slots, int n_push_slots);
int wnrt_record_loop_step(KernelCtx *kc, int64_t (*shapes)[WN_MAX_RANK]);
/* Ends the loop's current command buffer and goes on recording into `next` (begun here): one command
 * buffer per decode step, submitted together.  Barriers order commands across the command buffers of
 * a queue in submission order, so the hazard tracking carries on without one. */
int wnrt_record_loop_next_cb(KernelCtx *kc, VkCommandBuffer next);
int wnrt_record_loop_end(KernelCtx *kc, int *dispatches, int *barriers, int *pushed);
/* kernel check context (no command buffer) */
int wnrt_record_check_node(WnrtModel *m, const Node *n);
void wnrt_tensor_of(const WnrtModel *m, const Value *v, const int64_t *shape, KTensor *t);

#endif
