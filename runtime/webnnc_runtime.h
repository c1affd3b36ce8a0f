/* webnnc_runtime.h - the internal C API of the embedded Vulkan compute runtime (independent of the
 * CLI; it takes IR graphs, ir.h).  Library users call the public API, include/webnnc/webnnc.h
 * (webnnc_session_create, webnnc_run, webnnc_generate), which wraps it.
 *
 *   WnrtContext *ctx = wnrt_create(-1);            // -1: auto (discrete GPU, integrated, CPU);
 *                                                  //     env WEBNNC_DEVICE=N overrides
 *   WnrtModel *m = wnrt_load(ctx, graph);          // plan, upload constants, buffers (graph must
 *                                                  // outlive the model)
 *   wnrt_bind_input(m, "input_ids", data, bytes, rank, shape);   // actual sizes of dynamic dims
 *   wnrt_run(m);                                   // one submit + one wait; replays recordings
 *   wnrt_output_info(m, 0, &info); wnrt_read_output(m, 0, dst, cap);
 *   wnrt_free(m); wnrt_destroy(ctx);
 *
 * Every failing call records one diagnostic line (lib/core/diag.h) naming the device, node or
 * tensor and returns NULL / -1.  Dynamic dimensions: the plan is made once for the upper bounds
 * (maxSize); each run binds actual sizes, which are checked against the bounds and against each
 * other (same symbol, same size).  A symbol that no input determines runs at its maxSize.
 */
#ifndef WEBNNC_RUNTIME_H
#define WEBNNC_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

typedef enum {
    WNRT_DEV_OTHER = 0,
    WNRT_DEV_INTEGRATED = 1,
    WNRT_DEV_DISCRETE = 2,
    WNRT_DEV_VIRTUAL = 3,
    WNRT_DEV_CPU = 4,
} WnrtDeviceType;

#define WNRT_MAX_HEAPS 16

typedef struct {
    char name[256];
    WnrtDeviceType type;
    uint32_t api_version; /* VK_MAKE_API_VERSION encoding */
    uint32_t vendor_id, device_id;
    uint64_t max_storage_buffer_range;
    uint64_t max_buffer_size;
    uint32_t min_storage_offset_alignment;
    uint32_t max_shared_memory;
    uint32_t max_push_constants;
    uint32_t max_storage_buffers; /* per shader stage and per descriptor set, the smaller */
    uint32_t max_workgroup_invocations;
    uint32_t max_workgroup_count[3];
    uint32_t subgroup_size;
    bool subgroup_arithmetic;
    bool subgroup_shuffle; /* subgroupShuffleXor in compute shaders */
    bool float16;    /* shaderFloat16 */
    bool storage16;  /* storageBuffer16BitAccess */
    bool int8;       /* shaderInt8 */
    bool storage8;   /* storageBuffer8BitAccess */
    bool int64;      /* shaderInt64 */
    bool int64_atomics; /* shaderBufferInt64Atomics (the o_proj fold's accumulators: runtime/plan_oproj.c) */
    bool push_descriptor;
    bool uniform_standard_layout; /* uniformBufferStandardLayout (required: common.glsl PARAMS_BLOCK) */
    bool rte16;      /* shaderRoundingModeRTEFloat16: float16 results can be asked to round to nearest even
                        (runtime/vk_spirv_rte.h; every shader does, unless WEBNNC_RTE16=0) */
    bool coopmat_nv; /* VK_NV_cooperative_matrix with float16 16x16x16 products into float32 (subgroups of
                        32), enabled at device creation (vkdev_open) unless WEBNNC_COOPMAT=0 */
    int n_heaps;
    uint64_t heap_size[WNRT_MAX_HEAPS];
    bool heap_device_local[WNRT_MAX_HEAPS];
    bool unified_memory; /* the device-local memory type is host visible (lavapipe, UMA) */
} WnrtDeviceInfo;

typedef struct WnrtContext WnrtContext;
typedef struct WnrtModel WnrtModel;

/* Device list (creates a temporary instance).  Returns the count, or -1 with a diagnostic. */
int wnrt_device_count(void);
int wnrt_device_info(int index, WnrtDeviceInfo *out);
const char *wnrt_device_type_name(WnrtDeviceType t);

WnrtContext *wnrt_create(int device_index);
const WnrtDeviceInfo *wnrt_context_device(const WnrtContext *ctx);
void wnrt_destroy(WnrtContext *ctx);

WnrtModel *wnrt_load(WnrtContext *ctx, Graph *g);
void wnrt_free(WnrtModel *m);

/* Input by name (IR name or ONNX origin).  nbytes must equal the size implied by shape. */
int wnrt_bind_input(WnrtModel *m, const char *name, const void *data, uint64_t nbytes, int rank,
                    const int64_t *shape);
int wnrt_run(WnrtModel *m);

typedef struct {
    const char *name;
    DType dtype;
    int rank;
    int64_t shape[WN_MAX_RANK]; /* actual shape of the last run */
    uint64_t nbytes;
} WnrtTensorInfo;

/* The node whose dispatches also do node `node_index`'s work (a plan-level rewrite absorbed it:
 * the dequantization and transposes before a mat-vec, a reduction under its element-wise
 * epilogue; the absorbed node has no dispatch of its own), or -1. */
int wnrt_node_absorbed_into(const WnrtModel *m, int node_index);
/* A short note on how a plan-level rewrite changed node `node_index`'s work beyond absorbing nodes,
 * or NULL: one of the labels below. */
const char *wnrt_node_rewrite_label(const WnrtModel *m, int node_index);
/* a matmulNBits that also adds the skip sum of the normalized projection after it
 * (runtime/plan_residual.c) */
#define WNRT_REWRITE_ADDS_SKIP "+add"
/* that projection, which reads the sum instead of adding it */
#define WNRT_REWRITE_READS_SUM "-add"
/* decode attention that also does the output projection (a matmulNBits) after it and its skip sum
 * (runtime/plan_oproj.c) */
#define WNRT_REWRITE_TAKES_OPROJ "+matmulNBits,add"

int wnrt_output_count(const WnrtModel *m);
int wnrt_output_info(const WnrtModel *m, int index, WnrtTensorInfo *out);
int wnrt_read_output(WnrtModel *m, int index, void *dst, uint64_t capacity);

typedef struct {
    uint64_t const_bytes;        /* resident constants */
    uint64_t intermediate_sum;   /* sum of all non-constant tensors at their upper bounds */
    uint64_t peak_bytes;         /* device memory for non-constant tensors after reuse */
    uint64_t device_bytes;       /* all device memory allocated by the model */
    int recordings;              /* command buffers recorded so far (the device loop's included) */
    int replays;                 /* runs that reused a recording (device loop steps: steps of a
                                  * submission whose command buffer was recorded before it) */
    int dispatches;              /* dispatches in the last run's recording */
    int io_dispatches;           /* of those, copies of graph inputs / outputs between host-visible
                                  * staging and device storage (io_copy; none where the device
                                  * memory is host visible, as on lavapipe) */
    int barriers;                /* barriers in the last run's recording */
    bool replay;                 /* one recording serves every size with the same dispatch plan
                                  * (WEBNNC_REPLAY=0: one per set of sizes, the older path) */
    int params_written;          /* dispatch parameter slots rewritten before the last run */
    uint64_t prepare_ns;         /* host time of the last run (or device loop submission) before its
                                  * submit (shapes, capture, parameter writes, or recording) */
    uint64_t prepare_ns_total;   /* the same summed over all runs */
    uint64_t runs;               /* runs so far, device loop steps included */
    int kv_aliased;              /* KV caches whose present is written in place into the past */
    uint64_t loop_steps;         /* decode steps run by the device token loop (wnrt_loop_next) */
    uint64_t loop_submits;       /* its submissions (host waits) */
    uint64_t loop_ahead;         /* of those, batches whose dispatches were captured ahead: at load (wnrt_loop_prepare)
                                  * or while the one before ran */
    uint64_t loop_idle_first_ns; /* host time from the end of the wait for the run before the loop's first
                                  * submission to that submission (the device has nothing queued meanwhile) */
    uint64_t loop_idle_ns;       /* the same between each later submission and the wait before it, summed */
    int loop_pushed;             /* dispatches of each of its steps whose parameters are push constants in its
                                  * last recording (runtime/loop.c choose_pushes), not read from their slots */
    bool loop_pick_fused;        /* its decode steps' greedy picks are taken by the mat-vec that writes the
                                  * logits (runtime/loop.c offer_pick): no pick dispatch of their own */
    int run_pipelines;           /* compute pipelines the runs created (not at load, wnrt_warm or wnrt_loop_prepare):
                                  * each one's creation was paid inside a run */
} WnrtStats;

void wnrt_stats(const WnrtModel *m, WnrtStats *out);

/* KV caches (Graph.kv bindings, docs/kv-cache.md; runtime/rt_kv.c).  The plan gives each present
 * output the device storage of its past input when the graph writes it in place (scatter into the
 * past, or groupQueryAttention), so a cache is one buffer (stats.kv_aliased counts them).  Without
 * wnrt_kv_resident a cache is an ordinary input/output pair, bound and read back every run.
 * wnrt_kv_resident(m), before the first run, keeps the caches on the device: zero-filled, never
 * bound (wnrt_bind_input refuses them), uploaded or read back; each run's present is the next run's
 * past.  wnrt_kv_reset zero-fills them again (a new sequence).  0 or -1 with a diagnostic. */
int wnrt_kv_resident(WnrtModel *m);
int wnrt_kv_reset(WnrtModel *m);

/* Creates, before the first run, the compute pipelines of the dispatch plans with every symbolic
 * dimension at sizes[k] (clamped to its bound; 0: the bound) for k < count (runtime/warm.c; for a
 * decoder: {prompt length, 1} = its prefill and a decode step), so that those runs do not pay for
 * them.  Bound inputs are left as they are.  Returns the number of plans warmed (a plan whose
 * shapes do not evaluate at a size is skipped). */
int wnrt_warm(WnrtModel *m, int count, const int64_t *sizes);

/* The token loop on the device (runtime/loop.c), for a decoder whose KV caches are resident
 * (wnrt_kv_resident) with replayed recordings (not WEBNNC_REPLAY=0), an attention_mask input (its
 * length is the sequence's) and no profiler.  After wnrt_loop_config every wnrt_run ends with a
 * pick of the next token from its last logits row on the device (runtime/shaders/next_token.comp:
 * greedy argmax, exactly the host's, or sampling), written as the next step's input_ids with that
 * step's position_ids and attention_mask element; wnrt_loop_next runs the decode steps back to
 * back in one submission, each picking the token after it; the host reads back only the ids.  The
 * inputs must be bound again before a later wnrt_run. */
typedef struct {
    const char *input_ids, *position_ids, *attention_mask; /* graph inputs (the last two may be NULL) */
    const char *logits;                                    /* the graph output with the logits */
    float temperature; /* 0: greedy */
    int top_k;         /* sampling: keep the k highest tokens (ties at the k-th kept); 0: all */
    float top_p;       /* sampling: then the fewest highest whose probability reaches top_p; 1: all */
    uint64_t seed;     /* sampling: the token at position p draws from a hash of (seed, p) */
    int steps;         /* decode steps per submission; 0: WNRT_LOOP_STEPS (CPU devices WNRT_LOOP_STEPS_CPU) */
} WnrtLoopConfig;
/* Each submission costs the step about 100-150 us of device time besides the host's (the batch's
 * parameter upload and barriers, the drain before the host reads the ids): H200, Qwen2-0.5B webgpu,
 * 64 new tokens after 128 / 512 prompt tokens, three runs each, batches of 16 / 32 / 64 steps:
 * 1494-1499 / 1501-1503 / 1510-1512 and 1383-1395 / 1402-1405 / 1407-1411 tok/s; 128 new tokens
 * 1469-1483 / 1486-1487 / 1495-1497 and 1380-1384 / 1385-1390 / 1395-1396; the same ids.  A larger
 * batch delivers ids in larger bursts, and a generation that ends (EOS) inside a batch still runs the
 * batch's other steps: on CPU devices, whose steps are long and whose submissions cost next to
 * nothing beside them, batches stay at WNRT_LOOP_STEPS_CPU. */
#define WNRT_LOOP_STEPS 64
#define WNRT_LOOP_STEPS_CPU 16
int wnrt_loop_config(WnrtModel *m, const WnrtLoopConfig *c);
/* Records the loop's command buffer ahead, at load (after wnrt_loop_config and the warm-up), for a
 * first batch of `steps` decode steps feeding positions pos, pos + 1, ... (pos: the prompt length),
 * and writes that batch's parameters, so that the first wnrt_loop_next after the prefill submits at
 * once.  The recording is made once per dispatch plan anyway; this takes it (Qwen2-0.5B: about 25 ms
 * of host time for 16 steps of 130 dispatches) out of the decode.  The inputs' bindings and shapes
 * are left as they were.  Returns 0 (also with no loop, or when the recording cannot be made now:
 * then wnrt_loop_next makes it as before) or -1 with a diagnostic for a device error. */
int wnrt_loop_prepare(WnrtModel *m, int64_t pos, int steps);
/* Up to n >= 1 next tokens into ids: first the one the last wnrt_run picked (alone when n is 1,
 * no submission), then one per decode step (at most `steps` per call, one submission).  Returns
 * the count, or -1 with a diagnostic. */
int wnrt_loop_next(WnrtModel *m, int64_t *ids, int n);

/* GPU timing (runtime/timing.c).  wnrt_set_timing(m, true) before the first run makes every run
 * write two GPU timestamps: after the input uploads and after the last node dispatch (output
 * readbacks excluded).  wnrt_last_gpu_ns gives the interval of the last run in nanoseconds.
 * Both return -1 with a diagnostic (no timestamp support on the device's queue, called after the
 * first run, no run yet). */
int wnrt_set_timing(WnrtModel *m, bool on);
int wnrt_last_gpu_ns(WnrtModel *m, double *ns);

/* The runtime's one public header also brings its profiling API (webnnc_profile.h, profile_agg.h). */
#include "webnnc_profile.h"
#include "profile_agg.h"

#endif
